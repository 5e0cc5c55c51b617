/**
 * Identities and their challenges: providers and levels, creation with its refusals and
 * idempotency, lists, and challenges reviewed by their timer or decided by the operator.
 */
import { assert, describe, it } from "@effect/vitest"
import { IdentityService, REVIEW_DELAY_MS } from "@kassa/core/identity/IdentityService"
import { PartyService } from "@kassa/core/party/PartyService"
import { PartyID } from "@kassa/core/Ids"
import * as Page from "@kassa/core/Page"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"
import { refusal } from "../support/WalletArrange.js"

const passport = { token: "passport-1" }
const insurance = { token: "snils-1" }

describe("IdentityService: providers and identities", () => {
  it.effect("providers test (person) and live (company), each class anonymous → partial → full", () =>
    Effect.gen(function*() {
      const s = yield* IdentityService
      assert.deepStrictEqual((yield* s.providers()).map((p) => p.id), ["test", "live"])
      assert.deepStrictEqual((yield* s.identityClasses("test")).map((c) => c.id), ["person"])
      assert.deepStrictEqual((yield* s.identityClasses("live")).map((c) => c.id), ["company"])
      assert.deepStrictEqual((yield* s.identityLevels("test", "person")).map((l) => l.id), ["anonymous", "partial", "full"])
      assert.deepStrictEqual((yield* s.identityLevel("test", "person", "anonymous")).challenges.map((c) => c.id), ["esia"])
      assert.strictEqual((yield* Effect.flip(s.provider("nope")))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(s.identityClass("test", "company")))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(s.identityLevel("test", "person", "gold")))._tag, "NotFound")
      assert.deepStrictEqual((yield* s.providers("USA")).length, 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an identity takes its provider's default class and starts anonymous; refusals carry the wire's words", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* IdentityService
      const person = yield* s.create(m.partyID, { name: "Ivan", provider: "test" })
      assert.deepInclude(person, { class: "person", level: "anonymous", isBlocked: false, partyID: m.partyID })
      assert.strictEqual((yield* s.create(m.partyID, { name: "LLC", provider: "live" })).class, "company")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", provider: "nope" })), "No such provider")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", provider: "test", class: "company" })), "No such identity class")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", provider: "test", partyID: "other" })), "Party inaccessible")
      assert.strictEqual(yield* refusal(s.create("nobody", { name: "x", provider: "test" })), "Party does not exist")
      yield* (yield* PartyService).setStanding(PartyID.make(m.partyID), "block")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", provider: "test" })), "Identity inaccessible")
      yield* (yield* PartyService).setStanding(PartyID.make(m.partyID), "unblock")
      yield* (yield* PartyService).setStanding(PartyID.make(m.partyID), "suspend")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", provider: "test" })), "Identity inaccessible")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("externalID: the same request answers the original, another one a conflict naming it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* IdentityService
      const first = yield* s.create(m.partyID, { name: "Ivan", provider: "test", externalID: "id-1" })
      assert.strictEqual((yield* s.create(m.partyID, { name: "Ivan", provider: "test", externalID: "id-1" })).id, first.id)
      assert.strictEqual((yield* s.create(m.partyID, { name: "Ivan", provider: "test", class: "person", externalID: "id-1" })).id, first.id)
      const conflict = yield* Effect.flip(s.create(m.partyID, { name: "Petr", provider: "test", externalID: "id-1" }))
      assert.deepInclude(conflict, { _tag: "ExternalIdConflict", externalID: "id-1", id: first.id })
      const other = yield* Arrange.merchantNamed("other")
      assert.notStrictEqual((yield* s.create(other.partyID, { name: "Petr", provider: "test", externalID: "id-1" })).id, first.id)
      assert.strictEqual((yield* s.getByExternalID(m.partyID, "id-1")).id, first.id)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("lists are the caller's, filtered by provider, in pages; another party's identity is not found", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* IdentityService
      for (const name of ["a", "b", "c"]) yield* s.create(m.partyID, { name, provider: "test" })
      const live = yield* s.create(m.partyID, { name: "d", provider: "live" })
      const theirs = yield* s.create(other.partyID, { name: "e", provider: "test" })
      assert.strictEqual((yield* s.list(m.partyID, {})).result.length, 4)
      assert.deepStrictEqual((yield* s.list(m.partyID, { providerID: "live" })).result.map((i) => i.id), [live.id])
      assert.strictEqual((yield* s.list(m.partyID, { partyID: other.partyID })).result.length, 0)
      const first = yield* s.list(m.partyID, { limit: 3 })
      assert.strictEqual(first.result.length, 3)
      const rest = yield* s.list(m.partyID, { limit: 3, after: Option.getOrUndefined(Page.decodeCursor(first.continuationToken!)) })
      assert.strictEqual(rest.result.length, 1)
      assert.isUndefined(rest.continuationToken)
      const all = (yield* s.list(m.partyID, {})).result.map((i) => i.id)
      assert.deepStrictEqual([...first.result, ...rest.result].map((i) => i.id), all)
      assert.strictEqual((yield* Effect.flip(s.get(m.partyID, theirs.id)))._tag, "NotFound")
      assert.deepStrictEqual((yield* s.getWithdrawalMethods(m.partyID, live.id)).methods.map((x) => x.method), ["WithdrawalMethodBankCard"])
      assert.strictEqual(yield* refusal(s.getWithdrawalMethods(m.partyID, theirs.id)), "No such identity")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("IdentityService: challenges", () => {
  it.effect("a challenge stays Pending until its review, then completes and raises the level; one pending at a time", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* IdentityService
      const i = yield* s.create(m.partyID, { name: "Ivan", provider: "test" })
      const c = yield* s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [passport] })
      assert.strictEqual(c.status, "Pending")
      assert.deepStrictEqual(c.proofs, [{ type: "RUSDomesticPassport", token: "passport-1" }])
      const busy = yield* Effect.flip(s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [passport] }))
      assert.deepInclude(busy, { _tag: "Conflict", id: c.id })
      yield* MemoryKassa.elapse(REVIEW_DELAY_MS - 1)
      assert.strictEqual((yield* s.challenge(m.partyID, i.id, c.id)).status, "Pending")
      yield* MemoryKassa.elapse(1)
      const done = yield* s.challenge(m.partyID, i.id, c.id)
      assert.strictEqual(done.status, "Completed")
      assert.isDefined(done.validUntil)
      assert.deepInclude(yield* s.get(m.partyID, i.id), { level: "partial", effectiveChallenge: c.id })
      const events = yield* s.challengeEvents(m.partyID, i.id, c.id, 10)
      assert.deepStrictEqual(events.map((e) => e.status), ["Pending", "Completed"])
      assert.deepStrictEqual((yield* s.challengeEvents(m.partyID, i.id, c.id, 10, 1)).map((e) => e.eventID), [2])
      assert.strictEqual((yield* s.challengeEvent(m.partyID, i.id, c.id, 2)).status, "Completed")
      assert.strictEqual((yield* Effect.flip(s.challengeEvent(m.partyID, i.id, c.id, 3)))._tag, "NotFound")
      // at partial the next step is full identification
      assert.strictEqual(
        yield* refusal(s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [passport] })),
        "Illegal identification type for current identity level"
      )
      const full = yield* s.startChallenge(m.partyID, i.id, { type: "identification", proofs: [passport, insurance] })
      yield* MemoryKassa.elapse(REVIEW_DELAY_MS)
      assert.strictEqual((yield* s.challenge(m.partyID, i.id, full.id)).status, "Completed")
      assert.strictEqual((yield* s.get(m.partyID, i.id)).level, "full")
      assert.strictEqual((yield* s.challenges(m.partyID, i.id)).length, 2)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("refusals: unknown type, wrong level, unknown proof, missing proof; another party's identity is not found", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* IdentityService
      const i = yield* s.create(m.partyID, { name: "Ivan", provider: "test" })
      assert.strictEqual(yield* refusal(s.startChallenge(m.partyID, i.id, { type: "dna", proofs: [passport] })), "No such challenge type")
      assert.strictEqual(
        yield* refusal(s.startChallenge(m.partyID, i.id, { type: "identification", proofs: [passport, insurance] })),
        "Illegal identification type for current identity level"
      )
      assert.strictEqual(
        yield* refusal(s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [{ token: "unknown-9" }] })),
        "Proof not found"
      )
      assert.strictEqual(yield* refusal(s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [insurance] })), "Insufficient proof")
      assert.strictEqual((yield* Effect.flip(s.startChallenge(other.partyID, i.id, { type: "esia", proofs: [passport] })))._tag, "NotFound")
      assert.strictEqual((yield* s.challenges(m.partyID, i.id)).length, 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a rejected proof fails the challenge; a held one waits for the operator, who cancels, fails or completes it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* IdentityService
      const i = yield* s.create(m.partyID, { name: "Ivan", provider: "test" })
      const failed = yield* s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [{ token: "passport-fail" }] })
      yield* MemoryKassa.elapse(REVIEW_DELAY_MS)
      assert.deepInclude(yield* s.challenge(m.partyID, i.id, failed.id), { status: "Failed", failureReason: "Proof rejected" })
      const held = yield* s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [{ token: "passport-hold" }] })
      yield* MemoryKassa.elapse(10 * REVIEW_DELAY_MS)
      assert.strictEqual((yield* s.challenge(m.partyID, i.id, held.id)).status, "Pending")
      assert.strictEqual((yield* s.decideChallenge(i.id, held.id, "cancel")).status, "Cancelled")
      // a settled challenge stays as it is
      assert.strictEqual((yield* s.decideChallenge(i.id, held.id, "complete")).status, "Cancelled")
      const other = yield* s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [{ token: "passport-hold-2" }] })
      assert.deepInclude(yield* s.decideChallenge(i.id, other.id, "fail", "Blurred scan"), { status: "Failed", failureReason: "Blurred scan" })
      const third = yield* s.startChallenge(m.partyID, i.id, { type: "esia", proofs: [{ token: "passport-hold-3" }] })
      assert.strictEqual((yield* s.decideChallenge(i.id, third.id, "complete")).status, "Completed")
      assert.strictEqual((yield* s.get(m.partyID, i.id)).level, "partial")
      assert.strictEqual((yield* Effect.flip(s.decideChallenge(i.id, "nope", "complete")))._tag, "NotFound")
      assert.deepStrictEqual((yield* s.challengeEvents(m.partyID, i.id, held.id, 10)).map((e) => e.status), ["Pending", "Cancelled"])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

/**
 * Wallet reports on the memory ports under the TestClock: a report is made pending and built by
 * its timer into the CSV of the identity's withdrawals in range; lists filter; another party's
 * report is not found; a download link opens its file until it expires after 60 s.
 */
import { assert, describe, it } from "@effect/vitest"
import { IdentityService } from "@kassa/core/identity/IdentityService"
import { LINK_TTL_MS, ReportService } from "@kassa/core/report/ReportService"
import { WithdrawalService } from "@kassa/core/withdrawal/WithdrawalService"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"
import { deposit, destination, refusal, wallet } from "../support/WalletArrange.js"

const rub = (amount: number) => ({ amount, currency: "RUB" })
const now = Effect.map(TestClock.currentTimeMillis, (ms) => new Date(ms))

describe("ReportService", () => {
  it.effect("a withdrawalRegistry report is pending, its timer builds the CSV of the identity's withdrawals in range", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* ReportService
      const withdrawals = yield* WithdrawalService
      const w = yield* wallet(m.partyID)
      yield* deposit(w.id, 100_000)
      const d = yield* destination(m.partyID)
      const from = yield* now
      const a = yield* withdrawals.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000) })
      yield* MemoryKassa.elapse("1 minute")
      const b = yield* withdrawals.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(2500) })
      yield* MemoryKassa.elapse("1 minute")
      const to = yield* now
      yield* MemoryKassa.elapse("1 minute")
      // after the range: left out
      yield* withdrawals.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(700) })
      const r = yield* s.create(m.partyID, w.identityID, { reportType: "withdrawalRegistry", fromTime: from, toTime: to })
      assert.strictEqual(r.status, "pending")
      assert.deepStrictEqual(r.files, [])
      yield* MemoryKassa.settle
      const built = yield* s.get(m.partyID, w.identityID, r.id)
      assert.strictEqual(built.status, "created")
      assert.strictEqual(built.files.length, 1)
      const { token } = yield* s.link(m.partyID, built.files[0]!)
      const file = yield* s.open(token)
      const [a1, b1] = [yield* withdrawals.get(m.partyID, a.id), yield* withdrawals.get(m.partyID, b.id)]
      assert.deepStrictEqual(file.content.split("\r\n"), [
        "id,createdAt,wallet,destination,amount,fee,currency,status",
        `${a.id},${a.createdAt.toISOString()},${w.id},${d.id},1000,${a1.fee},RUB,${a1.status}`,
        `${b.id},${b.createdAt.toISOString()},${w.id},${d.id},2500,${b1.fee},RUB,${b1.status}`,
        ""
      ])
      // lists: within the range, by type; another party sees nothing
      const later = new Date(to.getTime() + 3_600_000)
      assert.deepStrictEqual((yield* s.list(m.partyID, w.identityID, { fromTime: from, toTime: later })).map((x) => x.id), [r.id])
      assert.deepStrictEqual(
        (yield* s.list(m.partyID, w.identityID, { fromTime: new Date(from.getTime() + 1), toTime: later })).map((x) => x.id),
        []
      )
      assert.strictEqual((yield* Effect.flip(s.get(other.partyID, w.identityID, r.id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(s.link(other.partyID, built.files[0]!)))._tag, "NotFound")
      assert.strictEqual(
        yield* refusal(s.create(other.partyID, w.identityID, { reportType: "withdrawalRegistry", fromTime: from, toTime: to })),
        "No such identity"
      )
      assert.deepInclude(
        yield* Effect.flip(s.create(m.partyID, w.identityID, { reportType: "withdrawalRegistry", fromTime: to, toTime: from })),
        { _tag: "InvalidParameter", errorType: "NotInRange" }
      )
      // a blocked identity makes no reports; its made ones stay readable
      yield* (yield* IdentityService).setBlocked(w.identityID, true)
      assert.strictEqual(
        yield* refusal(s.create(m.partyID, w.identityID, { reportType: "withdrawalRegistry", fromTime: from, toTime: to })),
        "Identity inaccessible"
      )
      assert.strictEqual((yield* s.get(m.partyID, w.identityID, r.id)).status, "created")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a download link works for 60 s, then is refused; a forged one is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* ReportService
      const w = yield* wallet(m.partyID)
      const from = yield* now
      yield* MemoryKassa.elapse("1 minute")
      const r = yield* s.create(m.partyID, w.identityID, { reportType: "withdrawalRegistry", fromTime: from, toTime: yield* now })
      yield* MemoryKassa.settle
      const fileID = (yield* s.get(m.partyID, w.identityID, r.id)).files[0]!
      const link = yield* s.link(m.partyID, fileID)
      assert.strictEqual(link.expiresAt.getTime(), (yield* now).getTime() + LINK_TTL_MS)
      assert.strictEqual((yield* s.open(link.token)).content, "id,createdAt,wallet,destination,amount,fee,currency,status\r\n")
      yield* TestClock.adjust(LINK_TTL_MS - 1000)
      assert.strictEqual((yield* s.open(link.token)).id, fileID)
      yield* TestClock.adjust(2000)
      assert.strictEqual((yield* Effect.flip(s.open(link.token)))._tag, "Unauthorized")
      const fresh = yield* s.link(m.partyID, fileID)
      assert.strictEqual((yield* Effect.flip(s.open(`${fresh.token}x`)))._tag, "Unauthorized")
      // an API key is no link
      assert.strictEqual((yield* Effect.flip(s.open(m.apiKey)))._tag, "Unauthorized")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

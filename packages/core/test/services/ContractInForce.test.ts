/**
 * A payment, and a refund, is taken only under a contract in force at that moment (active,
 * within its validity), on an active shop of an active party.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ContractRecord } from "@kassa/core/contract/Contract"
import { ContractID, ShopID } from "@kassa/core/Ids"
import { PartyService } from "@kassa/core/party/PartyService"
import { ContractRepository } from "@kassa/core/ports/ContractRepository"
import { ShopRepository } from "@kassa/core/ports/ShopRepository"
import { RefundService } from "@kassa/core/refund/RefundService"
import { ShopService } from "@kassa/core/shop/ShopService"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const DAY = 86_400_000

/**
 * A new shop of the merchant's under a contract of its own, valid from `validSince` until
 * `validUntil` (ms from now) in `status`: contracts change by the platform's claims, so the
 * test writes one through the port.
 */
const shopUnder = (
  m: Arrange.Merchant,
  contract: { readonly validSinceIn?: number; readonly validUntilIn?: number; readonly status?: ContractRecord["status"] }
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const first = yield* (yield* ShopService).get(m.partyID, m.shopID)
    const contractID = ContractID.make(`contract-${now}`)
    yield* (yield* ContractRepository).insert({
      id: contractID,
      partyID: m.partyID,
      createdAt: new Date(now),
      status: contract.status ?? "active",
      validSince: new Date(now + (contract.validSinceIn ?? 0)),
      ...(contract.validUntilIn === undefined ? {} : { validUntil: new Date(now + contract.validUntilIn) }),
      contractor: { contractorType: "RegisteredUser", email: "merchant@kassa.test" },
      paymentInstitutionID: 1
    })
    const shopID = ShopID.make(`shop-${now}`)
    yield* (yield* ShopRepository).insert({ ...first, id: shopID, contractID, version: 1 })
    return shopID
  })

describe("payments and refunds under a contract in force", () => {
  it.effect("a contract refuses payments from the moment it ends", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const shopID = yield* shopUnder(m, { validUntilIn: DAY })
      const inv = yield* Arrange.invoice(m, 2_000, { shopID, dueInMs: 3 * DAY })
      yield* MemoryKassa.elapse(DAY - 1)
      const inForce = yield* Arrange.invoice(m, 2_000, { shopID })
      assert.strictEqual((yield* Arrange.startPayment(m, inForce.id)).status, "pending")
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(1)
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidContractStatus")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a contract not yet valid refuses payments until it is", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const shopID = yield* shopUnder(m, { validSinceIn: DAY })
      const inv = yield* Arrange.invoice(m, 2_000, { shopID, dueInMs: 3 * DAY })
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidContractStatus")
      yield* MemoryKassa.elapse(DAY)
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      assert.strictEqual(started.status, "pending")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a terminated contract refuses payments", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const shopID = yield* shopUnder(m, { status: "terminated" })
      const inv = yield* Arrange.invoice(m, 2_000, { shopID })
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidContractStatus")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a payment captured under a contract cannot be refunded once the contract has ended", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const shopID = yield* shopUnder(m, { validUntilIn: DAY })
      const inv = yield* Arrange.invoice(m, 2_000, { shopID })
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      const refunds = yield* RefundService
      yield* MemoryKassa.elapse(DAY)
      assert.strictEqual(
        yield* businessCode(refunds.create(m.partyID, inv.id, started.id, { amount: 100 })),
        "invalidContractStatus"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a suspended shop and a blocked party take no payment", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 2_000)
      const shops = yield* ShopService
      yield* shops.setStanding(m.partyID, m.shopID, "suspend")
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidShopStatus")
      yield* shops.setStanding(m.partyID, m.shopID, "activate")
      yield* (yield* PartyService).setStanding(m.partyID, "block")
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidPartyStatus")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

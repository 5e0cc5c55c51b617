import { assert, describe, it, layer } from "@effect/vitest"
import { RandomIds } from "@kassa/adapters"
import { type Contract, Ids } from "@kassa/core"
import { ContractRepository } from "@kassa/core/ports/ContractRepository"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import { type PaymentResourceRecord, PaymentResourceRepository } from "@kassa/core/ports/PaymentResourceRepository"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, IntColumn, OptionalDate, reader } from "../src/internal/rows.js"

describe("Column schemas", () => {
  it("an integer column reads SQLite's number and PostgreSQL's BIGINT text alike", () => {
    const decode = Schema.decodeUnknownSync(IntColumn)
    assert.strictEqual(decode(1_700_000_000_123), 1_700_000_000_123)
    assert.strictEqual(decode("1700000000123"), 1_700_000_000_123)
    assert.throws(() => decode("twelve"))
  })

  it("a flag column reads 0 / 1, booleans and PostgreSQL's 't' / 'f'", () => {
    const decode = Schema.decodeUnknownSync(BoolColumn)
    assert.deepStrictEqual([0, 1, "0", "1", true, false, "t", "f"].map((v) => decode(v)), [false, true, false, true, true, false, true, false])
  })

  it("a date column reads epoch milliseconds; a NULL one leaves its field out", () => {
    const decode = Schema.decodeUnknownSync(Schema.Struct({ at: DateColumn, until: OptionalDate }))
    assert.deepStrictEqual(decode({ at: "1700000000123", until: null }), { at: new Date(1_700_000_000_123) })
    assert.deepStrictEqual(decode({ at: 5, until: 6 }), { at: new Date(5), until: new Date(6) })
  })

  it("a reader maps decoded rows to records; a row that does not decode throws", () => {
    const rows = reader(Schema.Struct({ n: IntColumn }), (r) => r.n * 2)
    assert.deepStrictEqual(rows.all([{ n: 1 }, { n: "2" }]), [2, 4])
    assert.deepStrictEqual(rows.first([]), Option.none())
    assert.deepStrictEqual(rows.first([{ n: 3, extra: "ignored" }]), Option.some(6))
    assert.throws(() => rows.one({ n: null }))
  })
})

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Rows [${dialect}]`, (it) => {
    it.effect("a contract comes back as stored: its dates, its contractor and its legal agreement's dates", () =>
      Effect.gen(function*() {
        const contracts = yield* ContractRepository
        const partyID = Ids.PartyID.make(`p-${RandomIds.make()}`)
        yield* (yield* PartyRepository).insert({
          id: partyID,
          name: "Party",
          email: "party@kassa.test",
          isBlocked: false,
          isSuspended: false,
          createdAt: new Date(1_700_000_000_000),
          version: 1
        })
        const contract: Contract.ContractRecord = {
          id: Ids.ContractID.make(`c-${RandomIds.make()}`),
          partyID,
          createdAt: new Date(1_700_000_000_001),
          status: "active",
          validSince: new Date(1_700_000_000_002),
          validUntil: new Date(1_800_000_000_003),
          contractor: { contractorType: "LegalEntity", entityType: "RussianLegalEntity", registeredName: "Kassa" },
          legalAgreement: { id: "agreement-1", signedAt: new Date(1_690_000_000_000), validUntil: new Date(1_900_000_000_000) },
          paymentInstitutionID: 1
        }
        const bare: Contract.ContractRecord = {
          id: Ids.ContractID.make(`c-${RandomIds.make()}`),
          partyID: contract.partyID,
          createdAt: new Date(1_700_000_000_004),
          status: "terminated",
          terminatedAt: new Date(1_700_000_000_005),
          contractor: { contractorType: "RegisteredUser", email: "owner@kassa.test" },
          paymentInstitutionID: 2
        }
        yield* contracts.insert(contract)
        yield* contracts.insert(bare)
        assert.deepStrictEqual(yield* contracts.findById(contract.partyID, contract.id), Option.some(contract))
        assert.deepStrictEqual(yield* contracts.listByParty(contract.partyID), [contract, bare])
      }))

    it.effect("a payment resource comes back as stored, its tool and details included", () =>
      Effect.gen(function*() {
        const resources = yield* PaymentResourceRepository
        const resource: PaymentResourceRecord = {
          token: `t-${RandomIds.make()}`,
          session: `s-${RandomIds.make()}`,
          partyID: `p-${RandomIds.make()}`,
          tool: { type: "BankCard", vaultToken: "vault-token", paymentSystem: "visa", expMonth: 12, expYear: 2040 },
          details: { detailsType: "PaymentToolDetailsBankCard", cardNumberMask: "424242******4242", last4: "4242", paymentSystem: "visa" },
          clientInfo: { fingerprint: "fp", ip: "203.0.113.7" },
          vaultSession: undefined,
          createdAt: new Date(1_700_000_000_006),
          validUntil: new Date(1_700_086_400_006)
        }
        yield* resources.insert(resource)
        const found = yield* resources.findByToken(resource.token)
        assert.deepStrictEqual(found, Option.some({ ...resource }))
      }))
  })
}

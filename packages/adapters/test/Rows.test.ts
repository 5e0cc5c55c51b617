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
import { SqlInvoices, SqlPayments } from "@kassa/adapters"
import { Invoice } from "@kassa/core/invoice/Invoice"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Columns from "../src/internal/columns.js"
import { BoolColumn, DateColumn, IntColumn, OptionalDate, reader } from "../src/internal/rows.js"
import { PaymentRow, ResourceRow } from "../src/SqlPayments.js"

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

/** An invoice record as the domain makes one: the interface's invoice and its bookkeeping. */
const InvoiceRecord = Schema.Struct({
  ...Invoice.fields,
  partyID: Schema.String,
  activePaymentID: Schema.UndefinedOr(Schema.String),
  paymentCount: Schema.Int,
  version: Schema.Int
})

/** Without its optional fields left `undefined`, which a row cannot tell from absent ones. */
const present = (r: object) => Object.fromEntries(Object.entries(r).filter(([k, v]) => v !== undefined || k === "activePaymentID"))

/** Each of `bad`'s rows makes `read` throw, naming its column but not its value (card-like digits). */
const throwsNamingColumns = (read: (row: unknown) => unknown, bad: ReadonlyArray<readonly [string, unknown]>) => {
  for (const [column, row] of bad) {
    const error = (() => {
      try {
        read(row)
      } catch (e) {
        return e as Error
      }
    })()
    assert.instanceOf(error, Error, column)
    assert.include(error!.message, column)
    assert.notInclude(error!.message, "4111")
  }
}

describe("Columns read by hand", () => {
  it("an invoice comes back from its row as it went in, from SQLite's numbers and PostgreSQL's BIGINT text", () => {
    let compared = 0
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(InvoiceRecord), (record) => {
        const row = SqlInvoices.toRow(record)
        const pgRow = { ...row, createdAt: String(row.createdAt), dueDate: String(row.dueDate), amount: String(row.amount), version: String(row.version) }
        const expected = present(JSON.parse(JSON.stringify({ ...record, createdAt: 0, dueDate: 0 })))
        for (const read of [SqlInvoices.fromRow(row), SqlInvoices.fromRow(pgRow)]) {
          assert.deepStrictEqual(present({ ...JSON.parse(JSON.stringify(read)), createdAt: 0, dueDate: 0 }), expected)
          assert.strictEqual(read.createdAt.getTime(), record.createdAt.getTime())
          assert.strictEqual(read.dueDate.getTime(), record.dueDate.getTime())
        }
        compared++
      }),
      { numRuns: 200, seed: 28 }
    )
    assert.strictEqual(compared, 200)
  })

  it("a row of another shape throws, naming the column but not its value", () => {
    const good = SqlInvoices.toRow({
      id: "i-1",
      partyID: "p-1",
      shopID: "s-1",
      createdAt: new Date(1_700_000_000_000),
      dueDate: new Date(1_700_000_100_000),
      amount: 100,
      currency: "RUB",
      product: "Tea",
      metadata: {},
      status: "unpaid",
      activePaymentID: undefined,
      paymentCount: 0,
      version: 1
    })
    assert.strictEqual(SqlInvoices.fromRow(good).amount, 100)
    const bad: Array<[string, unknown]> = [
      ["amount", { ...good, amount: "4111111111111111x" }],
      ["status", { ...good, status: "4111111111111111" }],
      ["id", { ...good, id: null }],
      ["data", { ...good, data: "{\"metadata\": 4111111111111111" }],
      ["data", { ...good, data: "[4111111111111111]" }],
      ["metadata", { ...good, data: JSON.stringify({ metadata: "4111111111111111" }) }],
      ["cart", { ...good, data: JSON.stringify({ metadata: {}, cart: { line: "4111111111111111" } }) }],
      ["paymentCount", { ...good, data: JSON.stringify({ metadata: {}, paymentCount: 1.5 }) }],
      ["row", "4111111111111111"]
    ]
    throwsNamingColumns(SqlInvoices.fromRow, bad)
    assert.strictEqual(Columns.int({ n: "1700000000123" }, "n"), 1_700_000_000_123)
    assert.throws(() => Columns.int({ n: "" }, "n"))
  })
})

/** The columns whose record field is named otherwise. */
const renamed: Readonly<Record<string, string>> = {
  invoiceId: "invoiceID",
  partyId: "partyID",
  shopId: "shopID",
  externalId: "externalID",
  interactionId: "interactionID"
}

const decodePaymentRow = Schema.decodeUnknownSync(PaymentRow)

/** A payment row as `PaymentRow`'s decoding reads it, as a record's fields: the hand reader's oracle. */
const decodedPayment = (row: unknown) => {
  const { data: { chargedBack, ...fields }, ...columns } = decodePaymentRow(row)
  return defined({
    ...Object.fromEntries(Object.entries(columns).map(([k, v]) => [renamed[k] ?? k, v])),
    ...fields,
    ...(chargedBack === true ? { chargedBack } : {})
  })
}

/** Without the fields left `undefined`. */
const defined = (r: object) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))

describe("Payment rows read by hand", () => {
  const encode = Schema.encodeSync(PaymentRow)

  it("a payment row reads as `PaymentRow`'s decoding read it, from SQLite's numbers and PostgreSQL's BIGINT text", () => {
    let compared = 0
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(PaymentRow), (value) => {
        // (a date Kassa could not have written, a hold's outside RFC 3339's years, is neither written nor read)
        let row: Record<string, unknown>
        let expected: ReturnType<typeof decodedPayment>
        try {
          row = encode(value) as Record<string, unknown>
          expected = decodedPayment(row)
        } catch {
          return
        }
        assert.deepStrictEqual(defined(SqlPayments.fromRow(row)), expected)
        const ints = ["createdAt", "amount", "fee", "statusChangedAt", "version"]
        if (ints.every((c) => Number.isSafeInteger(row[c]))) {
          const pgRow = { ...row, ...Object.fromEntries(ints.map((c) => [c, String(row[c])])) }
          assert.deepStrictEqual(defined(SqlPayments.fromRow(pgRow)), expected)
        }
        compared++
      }),
      { numRuns: 200, seed: 28 }
    )
    assert.isAbove(compared, 150)
  })

  it("a payment row of another shape throws, naming the column but not its value", () => {
    const good = encode({
      invoiceId: "i-1",
      id: "1",
      partyId: "p-1",
      shopId: "s-1",
      createdAt: new Date(1_700_000_000_000),
      amount: 100,
      currency: "RUB",
      status: "captured",
      activity: "done",
      flow: { type: "PaymentFlowInstant" },
      fee: 0,
      statusChangedAt: new Date(1_700_000_000_000),
      data: {
        payer: { payerType: "CustomerPayer", customerID: "c-1" },
        makeRecurrent: false,
        authorizedAmount: 100,
        tool: { type: "PaymentTerminal", provider: "euroset" },
        processingDeadline: new Date(1_700_000_100_000)
      } as unknown as typeof PaymentRow.Type["data"],
      version: 1
    } as typeof PaymentRow.Type) as Record<string, unknown>
    assert.strictEqual(SqlPayments.fromRow(good).amount, 100)
    assert.strictEqual(SqlPayments.fromRow(good).processingDeadline?.getTime(), 1_700_000_100_000)
    const data = JSON.parse(good.data as string)
    const bad: Array<[string, unknown]> = [
      ["amount", { ...good, amount: "4111111111111111x" }],
      ["status", { ...good, status: "4111111111111111" }],
      ["activity", { ...good, activity: "4111111111111111" }],
      ["flow", { ...good, flow: JSON.stringify({ type: "4111111111111111" }) }],
      ["data", { ...good, data: "{\"payer\": 4111111111111111" }],
      ["payer", { ...good, data: JSON.stringify({ ...data, payer: "4111111111111111" }) }],
      ["processingDeadline", { ...good, data: JSON.stringify({ ...data, processingDeadline: "4111111111111111x" }) }],
      ["authorizedAmount", { ...good, data: JSON.stringify({ ...data, authorizedAmount: "4111111111111111" }) }],
      ["row", "4111111111111111"]
    ]
    throwsNamingColumns(SqlPayments.fromRow, bad)
  })
})

const decodeResourceRow = Schema.decodeUnknownSync(ResourceRow)

/** A resource row as `ResourceRow`'s decoding reads it, as a record: the hand reader's oracle. */
const decodedResource = (row: unknown): PaymentResourceRecord => {
  const { data: d, ...r } = decodeResourceRow(row)
  return {
    token: r.token,
    session: r.session,
    partyID: r.partyId,
    tool: d.tool,
    details: d.details,
    clientInfo: d.clientInfo,
    vaultSession: d.vaultSession,
    createdAt: r.createdAt,
    validUntil: r.validUntil
  }
}

describe("Payment resource rows read by hand", () => {
  const encode = Schema.encodeSync(ResourceRow)

  it("a resource row reads as `ResourceRow`'s decoding read it (its JSON text too), from SQLite's numbers and PostgreSQL's BIGINT text", () => {
    let compared = 0
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(ResourceRow), (value) => {
        let row: Record<string, unknown>
        let expected: PaymentResourceRecord
        try {
          row = encode(value) as Record<string, unknown>
          expected = decodedResource(row)
        } catch {
          return
        }
        // (PostgreSQL's BIGINT text holds integers: an invalid date is never written)
        const pgRow = [row.createdAt, row.validUntil].every(Number.isSafeInteger)
          ? [{ ...row, createdAt: String(row.createdAt), validUntil: String(row.validUntil) }]
          : []
        for (const read of [row, ...pgRow].map(SqlPayments.resourceFromRow)) {
          assert.deepStrictEqual(read, expected)
          assert.strictEqual(JSON.stringify(read), JSON.stringify(expected))
        }
        compared++
      }),
      { numRuns: 200, seed: 28 }
    )
    assert.isAbove(compared, 150)
  })

  it("a resource row of another shape throws, naming the column but not its value", () => {
    const good = encode({
      token: "t-1",
      session: "s-1",
      partyId: "p-1",
      data: {
        tool: { type: "PaymentTerminal", provider: "euroset" },
        details: { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "euroset" },
        clientInfo: { fingerprint: "fp" }
      },
      createdAt: new Date(1_700_000_000_000),
      validUntil: new Date(1_700_086_400_000)
    }) as Record<string, unknown>
    assert.strictEqual(SqlPayments.resourceFromRow(good).validUntil.getTime(), 1_700_086_400_000)
    const data = JSON.parse(good.data as string)
    const bad: Array<[string, unknown]> = [
      ["token", { ...good, token: 4111111111111111 }],
      ["createdAt", { ...good, createdAt: "4111111111111111x" }],
      ["data", { ...good, data: "{\"tool\": 4111111111111111" }],
      ["tool", { ...good, data: JSON.stringify({ ...data, tool: "4111111111111111" }) }],
      ["details", { ...good, data: JSON.stringify({ ...data, details: "4111111111111111" }) }],
      ["clientInfo", { ...good, data: JSON.stringify({ ...data, clientInfo: 4111111111111111 }) }],
      ["vaultSession", { ...good, data: JSON.stringify({ ...data, vaultSession: 4111111111111111 }) }],
      ["row", "4111111111111111"]
    ]
    throwsNamingColumns(SqlPayments.resourceFromRow, bad)
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

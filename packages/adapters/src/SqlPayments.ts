/**
 * `PaymentRepository` and `PaymentResourceRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Allocation from "@kassa/core/allocation/Allocation"
import * as Cart from "@kassa/core/cart/Cart"
import { Flow, Payer, type PaymentRecord, PaymentStatus, TransactionInfo } from "@kassa/core/payment/Payment"
import { PaymentError } from "@kassa/core/payment/PaymentError"
import { ClientInfo, PaymentToolDetails } from "@kassa/core/payment/PaymentTool"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { type PaymentResourceRecord, PaymentResourceRepository } from "@kassa/core/ports/PaymentResourceRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as String from "effect/String"
import { DateColumn, IntColumn, JsonColumn, JsonDate, opt, OptionalText, StoredMetadata, toJson } from "./internal/rows.js"
import { PaymentTool, StoredTool } from "./internal/storedTool.js"
import * as Versioned from "./sql/driver/versioned.js"
import { insert, readApart, touchingOnly } from "./sql/driver/writes.js"
import * as Columns from "./internal/columns.js"
import * as Repository from "./internal/repository.js"
import * as Invoices from "./SqlInvoices.js"

/** The payment fields kept in the JSON column (dates as ISO strings). */
const dataOf = (p: PaymentRecord) => ({
  payer: p.payer,
  transactionInfo: p.transactionInfo,
  makeRecurrent: p.makeRecurrent,
  metadata: p.metadata,
  allocation: p.allocation,
  error: p.error,
  authorizedAmount: p.authorizedAmount,
  tool: p.tool,
  vaultSession: p.vaultSession,
  processingDeadline: p.processingDeadline,
  capture: p.capture,
  cancelReason: p.cancelReason,
  recurrentToken: p.recurrentToken,
  cart: p.cart,
  chargedBack: p.chargedBack
})

/**
 * The columns `fromRow` reads: a payment's own, not the search columns (migration 0010) that
 * every read would otherwise parse.
 *
 * @since 0.1.0 @category rows
 */
export const columns = "invoice_id, id, party_id, shop_id, external_id, created_at, amount, currency, status, activity, flow, " +
  "interaction_id, fee, status_changed_at, data, version"

const Lines = Schema.Array(Cart.InvoiceLine)
const Allocations = Schema.Array(Allocation.AllocationTransaction)

/** @internal The payment fields kept in the JSON column, as `dataOf` writes them. */
export const PaymentData = Schema.Struct({
  payer: Payer,
  transactionInfo: Schema.optional(TransactionInfo),
  makeRecurrent: Schema.Boolean,
  metadata: Schema.optional(StoredMetadata),
  allocation: Schema.optional(Allocations),
  error: Schema.optional(PaymentError),
  authorizedAmount: Schema.Number,
  tool: PaymentTool,
  vaultSession: Schema.optional(Schema.String),
  processingDeadline: Schema.optional(JsonDate),
  capture: Schema.optional(Schema.Struct({
    amount: Schema.Number,
    reason: Schema.String,
    cart: Schema.optional(Lines),
    allocation: Schema.optional(Allocations)
  })),
  cancelReason: Schema.optional(Schema.String),
  recurrentToken: Schema.optional(Schema.String),
  cart: Schema.optional(Lines),
  chargedBack: Schema.optional(Schema.Boolean)
})

/** @internal A `payments` row, as `columns` reads it. */
export const PaymentRow = Schema.Struct({
  invoiceId: Schema.String,
  id: Schema.String,
  partyId: Schema.String,
  shopId: Schema.String,
  externalId: OptionalText,
  createdAt: DateColumn,
  amount: IntColumn,
  currency: Schema.String,
  status: PaymentStatus,
  activity: Schema.Literal("processing", "interaction", "waiting", "capturing", "cancelling", "done"),
  flow: JsonColumn(Flow),
  interactionId: OptionalText,
  fee: IntColumn,
  statusChangedAt: DateColumn,
  data: JsonColumn(PaymentData),
  version: IntColumn
})

/** Each invoice column's key in a row, and its key renamed `inv_` beside a payment's columns. */
const invoiceKeys = Invoices.columns.split(", ").map((column) => [String.snakeToCamel(column), String.snakeToCamel(`inv_${column}`)] as const)

const status = Columns.literal(PaymentStatus.literals)
const activity = Columns.literal(PaymentRow.fields.activity.literals)
const decodeFlow = Schema.decodeUnknownSync(Flow)
// an instant payment's flow is its type alone; a hold's has a date, read as its schema reads it
const readFlow = (text: unknown): PaymentRecord["flow"] => {
  const flow: unknown = JSON.parse(text as string)
  return Columns.isObject(flow) && flow.type === "PaymentFlowInstant" ? { type: "PaymentFlowInstant" } : decodeFlow(flow)
}
const isBoolean = (u: unknown): u is boolean => typeof u === "boolean"
const isNumber = (u: unknown): u is number => typeof u === "number"

/**
 * Reads a `payments` row (searches and invoice histories read the same rows) by hand, as
 * `SqlInvoices.fromRow` reads an invoice's: Kassa wrote it from a record the domain made, so its
 * columns and its JSON fields are checked for their kind, not decoded again by `PaymentRow`
 * (whose unions cost a read most of its CPU); its dates become dates as the schema makes them
 * (a hold's flow is decoded by its own schema, for its date). A row of another shape throws,
 * naming the column but never its value.
 *
 * @since 0.1.0 @category rows
 */
export const fromRow = (input: unknown): PaymentRecord => {
  const r = Columns.row(input)
  const d = Columns.json(r, "data")
  const externalID = Columns.optionalText(r, "externalId")
  const transactionInfo = Columns.optionalField(d, "transactionInfo", Columns.isObject, "an object")
  const metadata = Columns.optionalField(d, "metadata", Columns.isObject, "an object")
  const allocation = Columns.optionalField(d, "allocation", Columns.isArray, "an array")
  const error = Columns.optionalField(d, "error", Columns.isObject, "an object")
  const chargedBack = Columns.optionalField(d, "chargedBack", isBoolean, "a flag")
  return {
    id: Columns.text(r, "id"),
    invoiceID: Columns.text(r, "invoiceId"),
    partyID: Columns.text(r, "partyId"),
    shopID: Columns.text(r, "shopId"),
    ...opt("externalID", externalID),
    createdAt: Columns.date(r, "createdAt"),
    amount: Columns.int(r, "amount"),
    currency: Columns.text(r, "currency"),
    flow: Columns.decoded(r, "flow", readFlow, "a payment flow"),
    payer: Columns.field(d, "payer", Columns.isObject, "an object") as PaymentRecord["payer"],
    ...opt("transactionInfo", transactionInfo as PaymentRecord["transactionInfo"]),
    makeRecurrent: Columns.field(d, "makeRecurrent", isBoolean, "a flag"),
    ...opt("metadata", metadata),
    ...opt("allocation", allocation as PaymentRecord["allocation"]),
    status: status(r, "status"),
    ...opt("error", error as PaymentRecord["error"]),
    ...(chargedBack === true ? { chargedBack: true } : {}),
    authorizedAmount: Columns.field(d, "authorizedAmount", isNumber, "a number"),
    activity: activity(r, "activity"),
    tool: Columns.field(d, "tool", Columns.isObject, "an object") as PaymentRecord["tool"],
    vaultSession: Columns.optionalField(d, "vaultSession", Predicate.isString, "text"),
    processingDeadline: Columns.optionalJsonDate(d, "processingDeadline"),
    capture: Columns.optionalField(d, "capture", Columns.isObject, "an object") as PaymentRecord["capture"],
    cancelReason: Columns.optionalField(d, "cancelReason", Predicate.isString, "text"),
    interactionID: Columns.optionalText(r, "interactionId"),
    recurrentToken: Columns.optionalField(d, "recurrentToken", Predicate.isString, "text"),
    cart: Columns.optionalField(d, "cart", Columns.isArray, "an array") as PaymentRecord["cart"],
    fee: Columns.int(r, "fee"),
    statusChangedAt: Columns.date(r, "statusChangedAt"),
    version: Columns.int(r, "version")
  }
}

const payments = {
  one: fromRow,
  first: (rows: ReadonlyArray<unknown>): Option.Option<PaymentRecord> => (rows.length === 0 ? Option.none() : Option.some(fromRow(rows[0]))),
  all: (rows: ReadonlyArray<unknown>): Array<PaymentRecord> => rows.map(fromRow)
}

/** @internal A `payment_resources` row: what the resource's hand reader reads, as a schema (the tests' oracle). */
export const ResourceRow = Schema.Struct({
  token: Schema.String,
  session: Schema.String,
  partyId: Schema.String,
  data: JsonColumn(Schema.Struct({
    tool: StoredTool,
    details: PaymentToolDetails,
    clientInfo: ClientInfo,
    vaultSession: Schema.optional(Schema.String)
  })),
  createdAt: DateColumn,
  validUntil: DateColumn
})

/**
 * Reads a `payment_resources` row by hand, as `fromRow` reads a payment's: Kassa wrote its tool,
 * details and client info from records the domain made, so they are checked for their kind, not
 * decoded again through `ResourceRow`'s unions (each createPayment by a resource reads one).
 *
 * @since 0.1.0 @category rows
 */
export const resourceFromRow = (input: unknown): PaymentResourceRecord => {
  const r = Columns.row(input)
  const d = Columns.json(r, "data")
  return {
    token: Columns.text(r, "token"),
    session: Columns.text(r, "session"),
    partyID: Columns.text(r, "partyId"),
    tool: Columns.field(d, "tool", Columns.isObject, "an object") as PaymentResourceRecord["tool"],
    details: Columns.field(d, "details", Columns.isObject, "an object") as PaymentResourceRecord["details"],
    clientInfo: Columns.field(d, "clientInfo", Columns.isObject, "an object") as PaymentResourceRecord["clientInfo"],
    vaultSession: Columns.optionalField(d, "vaultSession", Predicate.isString, "text"),
    createdAt: Columns.date(r, "createdAt"),
    validUntil: Columns.date(r, "validUntil")
  }
}

const resources = {
  first: (rows: ReadonlyArray<unknown>): Option.Option<PaymentResourceRecord> =>
    rows.length === 0 ? Option.none() : Option.some(resourceFromRow(rows[0]))
}

/** What builds the repositories: `layer` runs them, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repositories = [
  Repository.make(
    PaymentRepository,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const one = payments.first
      const own = sql.literal(columns)
      const ofPayments = touchingOnly("payments")
      // the driver's read: no span nor scope of its own, apart from a transaction not yet opened
      const read = <A extends object>(statement: Statement.Statement<A>) => readApart(ofPayments(statement))
      const paymentColumns = sql.literal(columns.split(", ").map((column) => `p.${column}`).join(", "))
      const invoiceColumns = sql.literal(Invoices.columns.split(", ").map((column) => `i.${column} AS inv_${column}`).join(", "))
      return {
        findById: (invoiceID, id) =>
          Versioned.find(sql, "payments", `${invoiceID}/${id}`, (lock) =>
            ofPayments(sql`SELECT ${own} FROM payments WHERE invoice_id = ${invoiceID} AND id = ${id} ${lock}`)).pipe(
              Effect.map(one),
              Effect.orDie
            ),
        findOfParty: (partyID, invoiceID, id) =>
          read(sql`SELECT ${own} FROM payments WHERE invoice_id = ${invoiceID} AND id = ${id} AND party_id = ${partyID}`).pipe(
            Effect.map(one),
            Effect.orDie
          ),
        // the invoice's columns renamed (both tables have a party, a shop, …), read back under their own names
        findOfPartyWithInvoice: (partyID, invoiceID, id) =>
          readApart(touchingOnly("payments", "invoices")(sql<Record<string, unknown>>`SELECT ${paymentColumns}, ${invoiceColumns}
            FROM payments p JOIN invoices i ON i.id = p.invoice_id
            WHERE p.invoice_id = ${invoiceID} AND p.id = ${id} AND p.party_id = ${partyID}`)).pipe(
            Effect.map(([row]) =>
              row === undefined ? Option.none() : Option.some({
                payment: payments.one(row),
                invoice: Invoices.fromRow(Object.fromEntries(invoiceKeys.map(([key, as]) => [key, row[as]])))
              })
            ),
            Effect.orDie
          ),
        listByInvoice: (invoiceID) =>
          read(sql`SELECT ${own} FROM payments WHERE invoice_id = ${invoiceID} ORDER BY created_at, id`).pipe(
            Effect.map((rows) => payments.all(rows).sort((a, b) => Number(a.id) - Number(b.id))),
            Effect.orDie
          ),
        findByInteraction: (interactionID) =>
          read(sql`SELECT ${own} FROM payments WHERE interaction_id = ${interactionID}`).pipe(Effect.map(one), Effect.orDie),
        insert: (p) =>
          insert(sql, "payments", sql`INSERT INTO payments ${
            sql.insert({
              invoiceId: p.invoiceID,
              id: p.id,
              partyId: p.partyID,
              shopId: p.shopID,
              externalId: p.externalID ?? null,
              createdAt: p.createdAt.getTime(),
              amount: p.amount,
              currency: p.currency,
              status: p.status,
              activity: p.activity,
              flow: toJson(p.flow),
              interactionId: p.interactionID ?? null,
              fee: p.fee,
              statusChangedAt: p.statusChangedAt.getTime(),
              data: toJson(dataOf(p)),
              version: p.version
            })
          }`),
        update: (p, expected) =>
          Versioned.update(sql, "payments", `${p.invoiceID}/${p.id}`, { expected, next: p.version }, (returning) =>
            sql`UPDATE payments SET amount = ${p.amount}, status = ${p.status}, activity = ${p.activity},
              interaction_id = ${p.interactionID ?? null}, fee = ${p.fee}, status_changed_at = ${p.statusChangedAt.getTime()},
              data = ${toJson(dataOf(p))}, version = ${p.version}
              WHERE invoice_id = ${p.invoiceID} AND id = ${p.id} AND version = ${expected} ${returning}`)
      }
    })
  ),
  Repository.make(
    PaymentResourceRepository,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const invoiceColumns = sql.literal(Invoices.columns.split(", ").map((column) => `i.${column}`).join(", "))
      return {
        insert: (r) =>
          insert(sql, "payment_resources", sql`INSERT INTO payment_resources ${
            sql.insert({
              token: r.token,
              session: r.session,
              partyId: r.partyID,
              data: toJson({ tool: r.tool, details: r.details, clientInfo: r.clientInfo, vaultSession: r.vaultSession }),
              createdAt: r.createdAt.getTime(),
              validUntil: r.validUntil.getTime()
            })
          }`),
        findByToken: (token) =>
          readApart(touchingOnly("payment_resources")(
            sql`SELECT token, session, party_id, data, created_at, valid_until FROM payment_resources WHERE token = ${token}`
          )).pipe(
            Effect.map(resources.first),
            Effect.orDie
          ),
        // one row whatever is there: each table joined to it by its key, the resource's columns renamed
        findWithInvoice: (partyID, invoiceID, token) =>
          readApart(touchingOnly("invoices", "payment_resources")(sql<Record<string, unknown>>`SELECT ${invoiceColumns},
              r.token AS resource_token, r.session AS resource_session, r.party_id AS resource_party_id,
              r.data AS resource_data, r.created_at AS resource_created_at, r.valid_until AS resource_valid_until
            FROM (SELECT 1 AS one) q
            LEFT JOIN invoices i ON i.id = ${invoiceID} AND i.party_id = ${partyID}
            LEFT JOIN payment_resources r ON r.token = ${token}`)).pipe(
            Effect.map(([row]) => ({
              invoice: row === undefined || row.id === null ? Option.none() : Option.some(Invoices.fromRow(row)),
              resource: row === undefined || row.resourceToken === null ? Option.none() : resources.first([{
                token: row.resourceToken,
                session: row.resourceSession,
                partyId: row.resourcePartyId,
                data: row.resourceData,
                createdAt: row.resourceCreatedAt,
                validUntil: row.resourceValidUntil
              }])
            })),
            Effect.orDie
          )
      }
    })
  )
] as const

/** @since 0.1.0 @category layers */
export const layer = Repository.layerAll(repositories)

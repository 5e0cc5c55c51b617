/**
 * `InvoiceRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Invoice } from "@kassa/core"
import { Invoice as InvoiceSchema, InvoiceStatus } from "@kassa/core/invoice/Invoice"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalText, StoredMetadata, toJson } from "./internal/rows.js"
import * as Versioned from "./sql/driver/versioned.js"
import { insert } from "./sql/driver/writes.js"

type Record = Invoice.InvoiceRecord

/** The invoice fields kept in the JSON column. */
const dataOf = (i: Record) => ({
  description: i.description,
  cart: i.cart,
  allocation: i.allocation,
  bankAccount: i.bankAccount,
  metadata: i.metadata,
  clientInfo: i.clientInfo,
  amountRandomized: i.amountRandomized,
  reason: i.reason,
  paymentCount: i.paymentCount
})

/**
 * The columns `InvoiceRow` reads, named (not `*`: a statement prepared with `*` would break when a
 * migration adds a column). @since 0.1.0
 */
export const columns = "id, party_id, shop_id, external_id, created_at, due_date, amount, currency, product, status, " +
  "invoice_template_id, active_payment_id, data, version"

const fields = InvoiceSchema.fields

/** An `invoices` row, as `columns` reads it. */
const InvoiceRow = Schema.Struct({
  id: Schema.String,
  partyId: Schema.String,
  shopId: Schema.String,
  externalId: OptionalText,
  createdAt: DateColumn,
  dueDate: DateColumn,
  amount: IntColumn,
  currency: Schema.String,
  product: Schema.String,
  status: InvoiceStatus,
  invoiceTemplateId: OptionalText,
  activePaymentId: OptionalText,
  data: JsonColumn(Schema.Struct({
    description: fields.description,
    cart: fields.cart,
    allocation: fields.allocation,
    bankAccount: fields.bankAccount,
    metadata: StoredMetadata,
    clientInfo: fields.clientInfo,
    amountRandomized: fields.amountRandomized,
    reason: fields.reason,
    // Kassa always writes it; rows seeded by hand for searches (which never number payments) may lack it.
    paymentCount: Schema.optionalWith(Schema.Int, { default: () => 0 })
  })),
  version: IntColumn
})

const decodeRow = Schema.decodeUnknownSync(InvoiceRow)

/** Reads an `invoices` row (searches read the same rows). @since 0.1.0 */
export const fromRow = (row: unknown): Record => {
  const { data: d, ...r } = decodeRow(row)
  return {
    id: r.id,
    partyID: r.partyId,
    shopID: r.shopId,
    ...opt("externalID", r.externalId),
    createdAt: r.createdAt,
    dueDate: r.dueDate,
    amount: r.amount,
    currency: r.currency,
    product: r.product,
    ...opt("description", d.description),
    ...opt("invoiceTemplateID", r.invoiceTemplateId),
    ...opt("cart", d.cart),
    ...opt("allocation", d.allocation),
    ...opt("bankAccount", d.bankAccount),
    metadata: d.metadata,
    ...opt("clientInfo", d.clientInfo),
    ...opt("amountRandomized", d.amountRandomized),
    status: r.status,
    ...opt("reason", d.reason),
    activePaymentID: r.activePaymentId,
    paymentCount: d.paymentCount,
    version: r.version
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  InvoiceRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<unknown>) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))
    const own = sql.literal(columns)
    const setColumns = (i: Invoice.InvoiceRecord) =>
      sql`status = ${i.status}, active_payment_id = ${i.activePaymentID ?? null}, data = ${toJson(dataOf(i))}, version = ${i.version}`
    return {
      findById: (partyID, id) =>
        Versioned.find(sql, "invoices", id, (lock) => sql`SELECT ${own} FROM invoices WHERE id = ${id} AND party_id = ${partyID} ${lock}`)
          .pipe(Effect.map(one), Effect.orDie),
      findByIdUnscoped: (id) =>
        Versioned.find(sql, "invoices", id, (lock) => sql`SELECT ${own} FROM invoices WHERE id = ${id} ${lock}`).pipe(
          Effect.map(one),
          Effect.orDie
        ),
      insert: (i) =>
        insert(sql, "invoices", sql`INSERT INTO invoices ${
          sql.insert({
            id: i.id,
            partyId: i.partyID,
            shopId: i.shopID,
            externalId: i.externalID ?? null,
            createdAt: i.createdAt.getTime(),
            dueDate: i.dueDate.getTime(),
            amount: i.amount,
            currency: i.currency,
            product: i.product,
            status: i.status,
            invoiceTemplateId: i.invoiceTemplateID ?? null,
            activePaymentId: i.activePaymentID ?? null,
            data: toJson(dataOf(i)),
            version: i.version
          })
        }`),
      update: (i, expected) =>
        Versioned.update(sql, "invoices", i.id, { expected, next: i.version }, (returning) =>
          sql`UPDATE invoices SET ${setColumns(i)} WHERE id = ${i.id} AND version = ${expected} ${returning}`)
    }
  })
)

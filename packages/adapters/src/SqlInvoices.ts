/**
 * `InvoiceRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Invoice } from "@kassa/core"
import { InvoiceStatus } from "@kassa/core/invoice/Invoice"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type { Mutable } from "effect/Types"
import * as Columns from "./internal/columns.js"
import { toJson } from "./internal/rows.js"
import * as Versioned from "./sql/driver/versioned.js"
import { insert } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

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
 * The columns `fromRow` reads, named (not `*`: a statement prepared with `*` would break when a
 * migration adds a column). @since 0.1.0
 */
export const columns = "id, party_id, shop_id, external_id, created_at, due_date, amount, currency, product, status, " +
  "invoice_template_id, active_payment_id, data, version"

/** The `invoices` row of a record, as `fromRow` reads it back. @since 0.1.0 */
export const toRow = (i: Record) => ({
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

const status = Columns.literal(InvoiceStatus.literals)

/**
 * Reads an `invoices` row (searches read the same rows) by hand: Kassa wrote it from a record the
 * domain made, so its columns and its JSON fields are checked for their kind, not decoded again
 * by the invoice's schema. A row of another shape throws.
 *
 * @since 0.1.0
 */
export const fromRow = (input: unknown): Record => {
  const row = Columns.row(input)
  const d = Columns.json(row, "data")
  const out: Mutable<Record> = {
    id: Columns.text(row, "id"),
    partyID: Columns.text(row, "partyId"),
    shopID: Columns.text(row, "shopId"),
    createdAt: Columns.date(row, "createdAt"),
    dueDate: Columns.date(row, "dueDate"),
    amount: Columns.int(row, "amount"),
    currency: Columns.text(row, "currency"),
    product: Columns.text(row, "product"),
    metadata: Columns.field(d, "metadata", Columns.isObject, "an object"),
    status: status(row, "status"),
    activePaymentID: Columns.optionalText(row, "activePaymentId"),
    // Kassa always writes it; rows seeded by hand for searches (which never number payments) may lack it.
    paymentCount: Columns.optionalField(d, "paymentCount", Number.isSafeInteger as (u: unknown) => u is number, "an integer") ?? 0,
    version: Columns.int(row, "version")
  }
  const externalID = Columns.optionalText(row, "externalId")
  if (externalID !== undefined) out.externalID = externalID
  const invoiceTemplateID = Columns.optionalText(row, "invoiceTemplateId")
  if (invoiceTemplateID !== undefined) out.invoiceTemplateID = invoiceTemplateID
  const description = Columns.optionalField(d, "description", Predicate.isString, "text")
  if (description !== undefined) out.description = description
  const cart = Columns.optionalField(d, "cart", Columns.isArray, "an array")
  if (cart !== undefined) out.cart = cart as Record["cart"]
  const allocation = Columns.optionalField(d, "allocation", Columns.isArray, "an array")
  if (allocation !== undefined) out.allocation = allocation as Record["allocation"]
  const bankAccount = Columns.optionalField(d, "bankAccount", Columns.isObject, "an object")
  if (bankAccount !== undefined) out.bankAccount = bankAccount as Record["bankAccount"]
  const clientInfo = Columns.optionalField(d, "clientInfo", Columns.isObject, "an object")
  if (clientInfo !== undefined) out.clientInfo = clientInfo as Record["clientInfo"]
  const amountRandomized = Columns.optionalField(d, "amountRandomized", Columns.isObject, "an object")
  if (amountRandomized !== undefined) out.amountRandomized = amountRandomized as Record["amountRandomized"]
  const reason = Columns.optionalField(d, "reason", Predicate.isString, "text")
  if (reason !== undefined) out.reason = reason
  return out
}

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  InvoiceRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<unknown>) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))
    // The row, if any, a failure a defect, in one match: `Effect.map` then `Effect.orDie` cost
    // every read two steps more.
    const oneOrDie = <E>(rows: Effect.Effect<ReadonlyArray<unknown>, E>) =>
      Effect.matchEffect(rows, { onFailure: Effect.die, onSuccess: (found) => Effect.succeed(one(found)) })
    const own = sql.literal(columns)
    const setColumns = (i: Invoice.InvoiceRecord) =>
      sql`status = ${i.status}, active_payment_id = ${i.activePaymentID ?? null}, data = ${toJson(dataOf(i))}, version = ${i.version}`
    return {
      findById: (partyID, id) =>
        oneOrDie(Versioned.find(sql, "invoices", id, (lock) => sql`SELECT ${own} FROM invoices WHERE id = ${id} AND party_id = ${partyID} ${lock}`)),
      findByIdUnscoped: (id) =>
        oneOrDie(Versioned.find(sql, "invoices", id, (lock) => sql`SELECT ${own} FROM invoices WHERE id = ${id} ${lock}`)),
      insert: (i) =>
        insert(sql, "invoices", sql`INSERT INTO invoices ${sql.insert(toRow(i))}`),
      update: (i, expected) =>
        Versioned.update(sql, "invoices", i.id, { expected, next: i.version }, (returning) =>
          sql`UPDATE invoices SET ${setColumns(i)} WHERE id = ${i.id} AND version = ${expected} ${returning}`)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

/**
 * `InvoiceRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Invoice } from "@kassa/core"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { date, int, json, opt, optString, toJson } from "./internal/rows.js"
import * as Versioned from "./sql/driver/versioned.js"
import { write } from "./sql/driver/writes.js"

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

/** Reads an `invoices` row (searches read the same rows). @since 0.1.0 */
export const fromRow = (r: any): Record => {
  const d = json<ReturnType<typeof dataOf>>(r.data)
  return {
    id: r.id,
    partyID: r.partyId,
    shopID: r.shopId,
    ...opt("externalID", optString(r.externalId)),
    createdAt: date(r.createdAt),
    dueDate: date(r.dueDate),
    amount: int(r.amount),
    currency: r.currency,
    product: r.product,
    ...opt("description", d.description),
    ...opt("invoiceTemplateID", optString(r.invoiceTemplateId)),
    ...opt("cart", d.cart),
    ...opt("allocation", d.allocation),
    ...opt("bankAccount", d.bankAccount),
    metadata: d.metadata,
    ...opt("clientInfo", d.clientInfo),
    ...opt("amountRandomized", d.amountRandomized),
    status: r.status,
    ...opt("reason", d.reason),
    activePaymentID: optString(r.activePaymentId),
    ...opt("paymentCount", d.paymentCount),
    version: int(r.version)
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  InvoiceRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<any>) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))
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
        write(sql`INSERT INTO invoices ${
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

/**
 * `RefundRepository` and `ChargebackRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { type ChargebackRecord, ChargebackStage, ChargebackStatus } from "@kassa/core/chargeback/Chargeback"
import { ChargebackRepository } from "@kassa/core/ports/ChargebackRepository"
import { RefundRepository } from "@kassa/core/ports/RefundRepository"
import * as Allocation from "@kassa/core/allocation/Allocation"
import * as Cart from "@kassa/core/cart/Cart"
import { RefundError, type RefundRecord, RefundStatus } from "@kassa/core/refund/Refund"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalText, reader, toJson } from "./internal/rows.js"
import * as Payments from "./SqlPayments.js"
import * as Versioned from "./sql/driver/versioned.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const refundData = (r: RefundRecord) => ({ reason: r.reason, cart: r.cart, allocation: r.allocation, error: r.error })

/** The columns `RefundRow` reads, named (a statement prepared with `*` breaks when a column is added). */
const refundColumns = "id, invoice_id, payment_id, party_id, shop_id, external_id, created_at, amount, currency, status, fee, data, version"

/** A `refunds` row, as `refundColumns` reads it. */
const RefundRow = Schema.Struct({
  id: Schema.String,
  invoiceId: Schema.String,
  paymentId: Schema.String,
  partyId: Schema.String,
  shopId: Schema.String,
  externalId: OptionalText,
  createdAt: DateColumn,
  amount: IntColumn,
  currency: Schema.String,
  status: RefundStatus,
  fee: IntColumn,
  data: JsonColumn(Schema.Struct({
    reason: Schema.optional(Schema.String),
    cart: Schema.optional(Schema.Array(Cart.InvoiceLine)),
    allocation: Schema.optional(Schema.Array(Allocation.AllocationTransaction)),
    error: Schema.optional(RefundError)
  })),
  version: IntColumn
})

const refunds = reader(RefundRow, ({ data: d, ...r }): RefundRecord => ({
  id: r.id,
  invoiceID: r.invoiceId,
  paymentID: r.paymentId,
  partyID: r.partyId,
  shopID: r.shopId,
  ...opt("externalID", r.externalId),
  createdAt: r.createdAt,
  amount: r.amount,
  currency: r.currency,
  ...opt("reason", d.reason),
  ...opt("cart", d.cart),
  ...opt("allocation", d.allocation),
  status: r.status,
  ...opt("error", d.error),
  fee: r.fee,
  version: r.version
}))

/** Reads a `refunds` row (searches read the same rows). @since 0.1.0 @category rows */
export const fromRow = refunds.one

/** A `chargebacks` row. */
const ChargebackRow = Schema.Struct({
  id: Schema.String,
  invoiceId: Schema.String,
  paymentId: Schema.String,
  partyId: Schema.String,
  shopId: Schema.String,
  createdAt: DateColumn,
  body: IntColumn,
  levy: IntColumn,
  currency: Schema.String,
  reasonCode: OptionalText,
  stage: ChargebackStage,
  status: ChargebackStatus,
  version: IntColumn
})

const chargebacks = reader(ChargebackRow, (r): ChargebackRecord => ({
  id: r.id,
  invoiceID: r.invoiceId,
  paymentID: r.paymentId,
  partyID: r.partyId,
  shopID: r.shopId,
  createdAt: r.createdAt,
  body: r.body,
  levy: r.levy,
  currency: r.currency,
  ...opt("reasonCode", r.reasonCode),
  stage: r.stage,
  status: r.status,
  version: r.version
      }))

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const byNumber = <A extends { readonly id: string }>(rows: Array<A>) =>
  rows.sort((a, b) => Number(a.id) - Number(b.id) || compareText(a.id, b.id))

/** The order of `ChargebackRepository.listByPayment`: `ORDER BY created_at, id`. */
const byCreatedAt = (rows: Array<ChargebackRecord>) =>
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.id, b.id))

/** What builds the repositories: `layer` runs them, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repositories = [
  Repository.make(
    RefundRepository,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const read = touchingOnly("refunds")
      const own = sql.literal(refundColumns)
      // One list of both tables (and `more`): `kind` tells the rows apart, and each carries the
      // other tables' own columns as NULL, so `RefundRow` and `ChargebackRow` read them as they are.
      const takenBack = (invoiceID: string, paymentID: string, more: Statement.Fragment) =>
        sql<{ readonly kind: string }>`SELECT 'r' AS kind, ${own}, NULL AS body, NULL AS levy, NULL AS reason_code,
              NULL AS stage, NULL AS activity, NULL AS flow, NULL AS interaction_id, CAST(NULL AS BIGINT) AS status_changed_at
              FROM refunds WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID}
            UNION ALL SELECT 'c', id, invoice_id, payment_id, party_id, shop_id, NULL, created_at, NULL, currency, status,
              NULL, NULL, version, body, levy, reason_code, stage, NULL, NULL, NULL, NULL
              FROM chargebacks WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID} ${more}`
      const takenBackOf = (rows: ReadonlyArray<{ readonly kind: string }>) => ({
        refunds: byNumber(refunds.all(rows.filter((r) => r.kind === "r"))),
        chargebacks: byCreatedAt(chargebacks.all(rows.filter((r) => r.kind === "c")))
      })
      return {
        findById: (invoiceID, paymentID, id) =>
          read(sql`SELECT ${own} FROM refunds WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID} AND id = ${id}`).pipe(
            Effect.map(refunds.first),
            Effect.orDie
          ),
        findOfParty: (partyID, invoiceID, paymentID, id) =>
          read(sql`SELECT ${own} FROM refunds WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID} AND id = ${id}
              AND party_id = ${partyID}`).pipe(
            Effect.map(refunds.first),
            Effect.orDie
          ),
        listByPayment: (invoiceID, paymentID) =>
          read(sql`SELECT ${own} FROM refunds WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID}`).pipe(
            Effect.map((rows) => byNumber(refunds.all(rows))),
            Effect.orDie
          ),
        listWithChargebacks: (invoiceID, paymentID) =>
          touchingOnly("refunds", "chargebacks")(takenBack(invoiceID, paymentID, sql``)).pipe(
            Effect.map(takenBackOf),
            Effect.orDie
          ),
        // the payment's row last: its own columns are the last four (`status_changed_at` typed in
        // the first row, where PostgreSQL settles a column's type)
        findPaymentOfParty: (partyID, invoiceID, paymentID) =>
          touchingOnly("payments", "refunds", "chargebacks")(takenBack(
            invoiceID,
            paymentID,
            sql`UNION ALL SELECT 'p', id, invoice_id, NULL, party_id, shop_id, external_id, created_at, amount, currency,
              status, fee, data, version, NULL, NULL, NULL, NULL, activity, flow, interaction_id, status_changed_at
              FROM payments WHERE invoice_id = ${invoiceID} AND id = ${paymentID} AND party_id = ${partyID}`
          )).pipe(
            Effect.map((rows) => {
              const payment = rows.find((r) => r.kind === "p")
              return payment === undefined ? Option.none() : Option.some({ payment: Payments.fromRow(payment), ...takenBackOf(rows) })
            }),
            Effect.orDie
          ),
        insert: (r) =>
          insert(sql, "refunds", sql`INSERT INTO refunds ${
            sql.insert({
              invoiceId: r.invoiceID,
              paymentId: r.paymentID,
              id: r.id,
              partyId: r.partyID,
              shopId: r.shopID,
              externalId: r.externalID ?? null,
              createdAt: r.createdAt.getTime(),
              amount: r.amount,
              currency: r.currency,
              status: r.status,
              fee: r.fee,
              data: toJson(refundData(r)),
              version: r.version
            })
          }`),
        update: (r, expected) =>
          Versioned.update(sql, "refunds", `${r.invoiceID}/${r.paymentID}/${r.id}`, { expected, next: r.version }, (returning) =>
            sql`UPDATE refunds SET status = ${r.status}, data = ${toJson(refundData(r))}, version = ${r.version}
              WHERE invoice_id = ${r.invoiceID} AND payment_id = ${r.paymentID} AND id = ${r.id}
              AND version = ${expected} ${returning}`)
      }
    })
  ),
  Repository.make(
    ChargebackRepository,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const read = touchingOnly("chargebacks")
      return {
        findById: (invoiceID, paymentID, id) =>
          read(sql`SELECT * FROM chargebacks WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID} AND id = ${id}`).pipe(
            Effect.map(chargebacks.first),
            Effect.orDie
          ),
        listByPayment: (invoiceID, paymentID) =>
          read(sql`SELECT * FROM chargebacks WHERE invoice_id = ${invoiceID} AND payment_id = ${paymentID}
              ORDER BY created_at, id`).pipe(Effect.map(chargebacks.all), Effect.orDie),
        insert: (c) =>
          sql`INSERT INTO chargebacks ${
            sql.insert({
              invoiceId: c.invoiceID,
              paymentId: c.paymentID,
              id: c.id,
              partyId: c.partyID,
              shopId: c.shopID,
              createdAt: c.createdAt.getTime(),
              body: c.body,
              levy: c.levy,
              currency: c.currency,
              reasonCode: c.reasonCode ?? null,
              stage: c.stage,
              status: c.status,
              version: c.version
            })
          }`.pipe(Effect.asVoid, Effect.orDie),
        update: (c, expected) =>
          sql`UPDATE chargebacks SET body = ${c.body}, levy = ${c.levy}, stage = ${c.stage}, status = ${c.status},
              version = ${c.version}
              WHERE invoice_id = ${c.invoiceID} AND payment_id = ${c.paymentID} AND id = ${c.id}
              AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
      }
    })
  )
] as const

/** @since 0.1.0 @category layers */
export const layer = Repository.layerAll(repositories)

/**
 * `PaymentRepository` and `PaymentResourceRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { PaymentRecord } from "@kassa/core/payment/Payment"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { type PaymentResourceRecord, PaymentResourceRepository } from "@kassa/core/ports/PaymentResourceRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { date, int, json, optString, toJson } from "./internal/rows.js"
import * as Versioned from "./sql/driver/versioned.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"

const revive = (d: Date | string | undefined): Date | undefined => (d === undefined ? undefined : new Date(d))

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

/** @since 0.1.0 @category rows */
export const fromRow = (r: any): PaymentRecord => {
  const d = json<any>(r.data)
  const flow = json<any>(r.flow)
  return {
    id: r.id,
    invoiceID: r.invoiceId,
    partyID: r.partyId,
    shopID: r.shopId,
    ...(r.externalId === null || r.externalId === undefined ? {} : { externalID: r.externalId }),
    createdAt: date(r.createdAt),
    amount: int(r.amount),
    currency: r.currency,
    flow: flow.type === "PaymentFlowHold" && flow.heldUntil !== undefined ? { ...flow, heldUntil: new Date(flow.heldUntil) } : flow,
    payer: d.payer,
    ...(d.transactionInfo === undefined ? {} : { transactionInfo: d.transactionInfo }),
    makeRecurrent: d.makeRecurrent,
    ...(d.metadata === undefined ? {} : { metadata: d.metadata }),
    ...(d.allocation === undefined ? {} : { allocation: d.allocation }),
    status: r.status,
    ...(d.error === undefined ? {} : { error: d.error }),
    ...(d.chargedBack === true ? { chargedBack: true } : {}),
    authorizedAmount: d.authorizedAmount,
    activity: r.activity,
    tool: d.tool,
    vaultSession: d.vaultSession,
    processingDeadline: revive(d.processingDeadline),
    capture: d.capture,
    cancelReason: d.cancelReason,
    interactionID: optString(r.interactionId),
    recurrentToken: d.recurrentToken,
    cart: d.cart,
    fee: int(r.fee),
    statusChangedAt: date(r.statusChangedAt),
    version: int(r.version)
  }
}

const resourceFromRow = (r: any): PaymentResourceRecord => {
  const d = json<any>(r.data)
  return {
    token: r.token,
    session: r.session,
    partyID: r.partyId,
    tool: d.tool,
    details: d.details,
    clientInfo: d.clientInfo,
    vaultSession: d.vaultSession,
    createdAt: date(r.createdAt),
    validUntil: date(r.validUntil)
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(
  Layer.effect(
    PaymentRepository,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const one = (rows: ReadonlyArray<any>) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))
      const own = sql.literal(columns)
      const read = touchingOnly("payments")
      return {
        findById: (invoiceID, id) =>
          Versioned.find(sql, "payments", `${invoiceID}/${id}`, (lock) =>
            read(sql`SELECT ${own} FROM payments WHERE invoice_id = ${invoiceID} AND id = ${id} ${lock}`)).pipe(
              Effect.map(one),
              Effect.orDie
            ),
        findOfParty: (partyID, invoiceID, id) =>
          read(sql`SELECT ${own} FROM payments WHERE invoice_id = ${invoiceID} AND id = ${id} AND party_id = ${partyID}`).pipe(
            Effect.map(one),
            Effect.orDie
          ),
        listByInvoice: (invoiceID) =>
          read(sql`SELECT ${own} FROM payments WHERE invoice_id = ${invoiceID} ORDER BY created_at, id`).pipe(
            Effect.map((rows) => rows.map(fromRow).sort((a, b) => Number(a.id) - Number(b.id))),
            Effect.orDie
          ),
        findByInteraction: (interactionID) =>
          sql`SELECT ${own} FROM payments WHERE interaction_id = ${interactionID}`.pipe(Effect.map(one), Effect.orDie),
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
  Layer.effect(
    PaymentResourceRepository,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
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
          sql`SELECT token, session, party_id, data, created_at, valid_until FROM payment_resources WHERE token = ${token}`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(resourceFromRow))),
            Effect.orDie
          )
      }
    })
  )
)

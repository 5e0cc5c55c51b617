/**
 * Reads for searches and statistics: rows of one party's shop created in a time window, in
 * (created at, ids) descending order, filtered, counted and aggregated by the store.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentSearchRecord, RefundSearchRecord } from "../search/SearchResults.js"

/** One party's shop. @since 0.1.0 @category models */
export interface Scope {
  readonly partyID: string
  readonly shopID: string
}

/** Creation times from `from` (inclusive) to `to` (exclusive), epoch milliseconds. @since 0.1.0 @category models */
export interface Window {
  readonly from: number
  readonly to: number
}

/**
 * Conditions on payments; every present one must hold. Values are as stored: `flow` is the flow
 * type (`PaymentFlowHold`), `method` the details type (`PaymentToolDetailsBankCard`), e-mail,
 * token provider and payment system lower-case. `bin` and `first6` equal the card's first
 * digits; `lastDigits` are a suffix of the card's last digits (each entry must hold).
 *
 * @since 0.1.0 @category models
 */
export interface PaymentConditions {
  readonly status?: string | undefined
  readonly flow?: string | undefined
  readonly method?: string | undefined
  readonly terminalProvider?: string | undefined
  readonly invoiceID?: string | undefined
  readonly paymentID?: string | undefined
  readonly email?: string | undefined
  readonly ip?: string | undefined
  readonly fingerprint?: string | undefined
  readonly customerID?: string | undefined
  readonly tokenProvider?: string | undefined
  readonly paymentSystem?: string | undefined
  readonly bin?: ReadonlyArray<string> | undefined
  readonly lastDigits?: ReadonlyArray<string> | undefined
  readonly rrn?: string | undefined
  readonly approvalCode?: string | undefined
  readonly amount?: number | undefined
}

/** @since 0.1.0 @category models */
export interface InvoiceConditions {
  readonly status?: string | undefined
  readonly id?: string | undefined
  readonly amount?: number | undefined
  /** When present: the invoice has a payment meeting these. */
  readonly payment?: PaymentConditions | undefined
}

/** @since 0.1.0 @category models */
export interface RefundConditions {
  readonly status?: string | undefined
  readonly invoiceID?: string | undefined
  readonly paymentID?: string | undefined
  readonly id?: string | undefined
  /** When present: the refunded payment meets these. */
  readonly payment?: PaymentConditions | undefined
}

/** A search: where, when and what. @since 0.1.0 @category models */
export interface Query<C> {
  readonly scope: Scope
  readonly window: Window
  readonly conditions: C
}

/**
 * A position in the order of a search: the creation time and the ids of the last row returned
 * (invoices: id; payments: invoice id, id; refunds: invoice id, payment id, id).
 *
 * @since 0.1.0 @category models
 */
export interface Keyset {
  readonly createdAt: number
  readonly ids: ReadonlyArray<string>
}

/** Which rows: after a position (or from the start), skipping `offset`, at most `limit`. @since 0.1.0 @category models */
export interface Page {
  readonly limit: number
  readonly offset: number
  readonly after: Option.Option<Keyset>
}

/** What statistics group successful payments by, besides the time segment. @since 0.1.0 @category models */
export type StatsKey = "currency" | "country" | "paymentSystem"

/**
 * A group of a window's payments: `segment` is `floor((createdAt - from) / bucketMs)`; the keys
 * asked for are present. `total` counts every payment, `successful` the captured and refunded
 * ones, whose amounts and fees `revenue` and `fee` sum.
 *
 * @since 0.1.0 @category models
 */
export interface StatsRow {
  readonly segment: number
  readonly currency?: string | undefined
  readonly country?: string | null | undefined
  readonly paymentSystem?: string | null | undefined
  readonly total: number
  readonly successful: number
  readonly revenue: number
  readonly fee: number
}

/** @since 0.1.0 @category models */
export interface StatsQuery {
  readonly scope: Scope
  readonly window: Window
  readonly bucketMs: number
  readonly by: ReadonlyArray<StatsKey>
  /** Only successful payments (captured, refunded). */
  readonly successfulOnly: boolean
  /** Only bank card payments. */
  readonly bankCardOnly: boolean
}

/** @since 0.1.0 @category tags */
export class SearchRepository extends Context.Tag("kassa/SearchRepository")<SearchRepository, {
  readonly invoices: (query: Query<InvoiceConditions>, page: Page) => Effect.Effect<ReadonlyArray<InvoiceRecord>>
  readonly countInvoices: (query: Query<InvoiceConditions>) => Effect.Effect<number>
  readonly payments: (query: Query<PaymentConditions>, page: Page) => Effect.Effect<ReadonlyArray<PaymentSearchRecord>>
  readonly countPayments: (query: Query<PaymentConditions>) => Effect.Effect<number>
  readonly refunds: (query: Query<RefundConditions>, page: Page) => Effect.Effect<ReadonlyArray<RefundSearchRecord>>
  readonly countRefunds: (query: Query<RefundConditions>) => Effect.Effect<number>
  readonly paymentStats: (query: StatsQuery) => Effect.Effect<ReadonlyArray<StatsRow>>
  /**
   * Distinct payers of the window's successful payments: a payer is the device fingerprint, else
   * the customer, else the e-mail; payments with none of them are not counted.
   */
  readonly uniquePayers: (scope: Scope, window: Window) => Effect.Effect<number>
}>() {}

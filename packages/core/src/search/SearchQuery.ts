/**
 * From a search's parameters to the store's query: the window and paging rules, and the filters
 * as conditions on stored values.
 *
 * - `fromTime` must be before `toTime` (`invalidRequest`); a window longer than 366 days is
 *   refused with `limitExceeded`.
 * - `offset` and `continuationToken` exclude each other (`invalidRequest`); `offset + limit`
 *   beyond 100 000 is refused with `limitExceeded` (continuation tokens page without limit).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import { BusinessError } from "../Errors.js"
import type {
  InvoiceConditions,
  PaymentConditions,
  RefundConditions,
  Scope,
  Window
} from "../ports/SearchRepository.js"
import type { InvoiceSearchParams, PaymentSearchParams, RefundSearchParams } from "./SearchParams.js"

const DAY = 86_400_000

/** The longest window served. @since 0.1.0 */
export const maxWindowMs = 366 * DAY
/** How deep the offset form reaches: `offset + limit` at most. @since 0.1.0 */
export const maxDepth = 100_000

/** @since 0.1.0 */
export const window = (fromTime: Date, toTime: Date): Either.Either<Window, BusinessError> => {
  const from = fromTime.getTime()
  const to = toTime.getTime()
  if (from >= to) return Either.left(BusinessError.of("invalidRequest", "fromTime: must be earlier than toTime"))
  if (to - from > maxWindowMs) {
    return Either.left(
      BusinessError.of("limitExceeded", "fromTime, toTime: the window exceeds 366 days; ask for a shorter one")
    )
  }
  return Either.right({ from, to })
}

/** Checks the paging parameters of one request. @since 0.1.0 */
export const paging = (
  params: { readonly limit: number; readonly offset?: number | undefined; readonly continuationToken?: string | undefined }
): Either.Either<void, BusinessError> => {
  if (params.offset !== undefined && params.continuationToken !== undefined) {
    return Either.left(BusinessError.of("invalidRequest", "offset: cannot be combined with continuationToken"))
  }
  if ((params.offset ?? 0) + params.limit > maxDepth) {
    return Either.left(
      BusinessError.of(
        "limitExceeded",
        `offset: offset + limit must not exceed ${maxDepth}; narrow the search or page with continuationToken`
      )
    )
  }
  return Either.right(undefined)
}

const defined = <A>(values: ReadonlyArray<A | undefined>): ReadonlyArray<A> | undefined => {
  const present = values.filter((v): v is A => v !== undefined)
  return present.length === 0 ? undefined : present
}

/** Drops absent conditions; `undefined` when none is left. */
const compact = <A extends object>(conditions: A): A | undefined => {
  const entries = Object.entries(conditions).filter(([, v]) => v !== undefined)
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as A)
}

/** A payment search's filters: its parameters without the window and paging. @since 0.1.0 @category models */
export type PaymentFilterParams = Omit<PaymentSearchParams, "fromTime" | "toTime" | "limit" | "offset" | "continuationToken">

const flows = { instant: "PaymentFlowInstant", hold: "PaymentFlowHold" } as const
const methods = { bankCard: "PaymentToolDetailsBankCard", paymentTerminal: "PaymentToolDetailsPaymentTerminal" } as const

/** The payment filters as conditions on stored payments. @since 0.1.0 */
export const paymentConditions = (p: Partial<PaymentFilterParams>): PaymentConditions | undefined =>
  compact<PaymentConditions>({
    status: p.paymentStatus,
    flow: p.paymentFlow === undefined ? undefined : flows[p.paymentFlow],
    method: p.paymentMethod === undefined ? undefined : methods[p.paymentMethod],
    terminalProvider: p.paymentTerminalProvider,
    invoiceID: p.invoiceID,
    paymentID: p.paymentID,
    email: p.payerEmail?.toLowerCase(),
    ip: p.payerIP,
    fingerprint: p.payerFingerprint,
    customerID: p.customerID,
    tokenProvider: p.bankCardTokenProvider,
    paymentSystem: p.bankCardPaymentSystem,
    bin: defined([p.first6, p.bin]),
    lastDigits: defined([p.last4 === "" ? undefined : p.last4, p.cardNumberMask]),
    rrn: p.rrn,
    approvalCode: p.approvalCode,
    amount: p.paymentAmount
  })

/** @since 0.1.0 */
export const invoiceConditions = (p: InvoiceSearchParams): InvoiceConditions => {
  const { invoiceID, ...payment } = p
  return compact<InvoiceConditions>({
    status: p.invoiceStatus,
    id: invoiceID,
    amount: p.invoiceAmount,
    payment: paymentConditions(payment)
  }) ?? {}
}

/** @since 0.1.0 */
export const refundConditions = (p: RefundSearchParams): RefundConditions =>
  compact<RefundConditions>({
    status: p.refundStatus,
    invoiceID: p.invoiceID,
    paymentID: p.paymentID,
    id: p.refundID,
    payment: compact<PaymentConditions>({ rrn: p.rrn, approvalCode: p.approvalCode })
  }) ?? {}

/** What a continuation token is bound to. @since 0.1.0 */
export const binding = (scope: Scope, w: Window, conditions: unknown) => ({
  partyID: scope.partyID,
  shopID: scope.shopID,
  from: w.from,
  to: w.to,
  conditions
})

/**
 * The query parameters of the searches and statistics, as the interface sends them (strings in
 * a URL; the schemas decode numbers and date-times). One operation takes both revisions'
 * parameters: `offset` (older) and `continuationToken` (newer), `bin` / `cardNumberMask`
 * (older) and `first6` / `last4` (newer).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Email } from "../Email.js"
import { Identifier } from "../Ids.js"
import { DateTime } from "../Time.js"

const digits = (pattern: RegExp, expected: string) =>
  Schema.String.pipe(Schema.pattern(pattern, { message: () => `Expected ${expected}` }))

/** An integer in a URL. */
const IntFromString = (min: number, max: number) =>
  Schema.compose(Schema.NumberFromString, Schema.Int.pipe(Schema.between(min, max)))

/** `limit`: 1 to 1000. @since 0.1.0 @category schemas */
export const Limit = IntFromString(1, 1000)
/** `offset`: 0 or more. @since 0.1.0 @category schemas */
export const Offset = IntFromString(0, Number.MAX_SAFE_INTEGER)
/** An amount filter: int64 ≥ 1, within the safe integers. @since 0.1.0 @category schemas */
export const AmountFilter = IntFromString(1, Number.MAX_SAFE_INTEGER)
/** @since 0.1.0 @category schemas */
export const ContinuationToken = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000))

/** @since 0.1.0 @category schemas */
export const InvoiceStatus = Schema.Literal("unpaid", "cancelled", "paid", "fulfilled")
/** @since 0.1.0 @category schemas */
export const PaymentStatus = Schema.Literal("pending", "processed", "captured", "cancelled", "refunded", "failed")
/** @since 0.1.0 @category schemas */
export const RefundStatus = Schema.Literal("pending", "succeeded", "failed")
/** @since 0.1.0 @category schemas */
export const PaymentFlow = Schema.Literal("instant", "hold")
/** @since 0.1.0 @category schemas */
export const PaymentMethod = Schema.Literal("bankCard", "paymentTerminal")
/** The one terminal provider the interface names. @since 0.1.0 @category schemas */
export const TerminalProvider = Schema.Literal("euroset")
/** The three wallet providers the interface names. @since 0.1.0 @category schemas */
export const TokenProvider = Schema.Literal("applepay", "googlepay", "samsungpay")
/** The 15 card networks the interface names. @since 0.1.0 @category schemas */
export const PaymentSystem = Schema.Literal(
  "visa",
  "mastercard",
  "visaelectron",
  "maestro",
  "forbrugsforeningen",
  "dankort",
  "amex",
  "dinersclub",
  "discover",
  "unionpay",
  "jcb",
  "nspkmir",
  "elo",
  "rupay",
  "dummy"
)

const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
const hex = /^[0-9a-fA-F]{1,4}$/

/** Whether a string is an IPv4 or IPv6 address (RFC 4291 text forms, with an optional IPv4 tail). @since 0.1.0 */
export const isIpAddress = (s: string): boolean => {
  if (ipv4.test(s)) return true
  if (!s.includes(":")) return false
  let text = s
  let groups = 8
  const last = s.lastIndexOf(":")
  const tail = s.slice(last + 1)
  if (tail.includes(".")) {
    if (!ipv4.test(tail)) return false
    groups = 6
    text = s.slice(0, last + 1)
    if (!text.endsWith("::")) text = text.slice(0, -1)
  }
  const halves = text.split("::")
  if (halves.length > 2) return false
  const all = halves.flatMap((half) => (half === "" ? [] : half.split(":")))
  if (!all.every((group) => hex.test(group))) return false
  return halves.length === 2 ? all.length <= groups - 1 : all.length === groups
}

/** @since 0.1.0 @category schemas */
export const PayerEmail = Email
/** @since 0.1.0 @category schemas */
export const PayerIP = Schema.String.pipe(
  Schema.maxLength(45),
  Schema.filter(isIpAddress, { message: () => "Expected an IPv4 or IPv6 address" })
)
/** @since 0.1.0 @category schemas */
export const PayerFingerprint = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
/** Newer revision: exactly 6 digits. @since 0.1.0 @category schemas */
export const First6 = digits(/^\d{6}$/, "exactly 6 digits")
/** Newer revision: 0 to 4 digits, the end of the card number. @since 0.1.0 @category schemas */
export const Last4 = digits(/^\d{0,4}$/, "0 to 4 digits")
/** Older revision: 6 to 8 digits. @since 0.1.0 @category schemas */
export const Bin = digits(/^\d{6,8}$/, "6 to 8 digits")
/** Older revision: 2 to 4 digits, the end of the card number. @since 0.1.0 @category schemas */
export const CardNumberMask = digits(/^\d{2,4}$/, "2 to 4 digits")
/** @since 0.1.0 @category schemas */
export const Rrn = digits(/^[a-zA-Z0-9]{12}$/, "12 letters or digits")
/** @since 0.1.0 @category schemas */
export const ApprovalCode = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

/** The window every search and statistic takes. @since 0.1.0 @category schemas */
export const TimeWindow = { fromTime: DateTime, toTime: DateTime }

const paging = {
  ...TimeWindow,
  limit: Limit,
  offset: Schema.optional(Offset),
  continuationToken: Schema.optional(ContinuationToken)
}

/** Filters on payments shared by invoice and payment searches. */
const paymentFilters = {
  paymentStatus: Schema.optional(PaymentStatus),
  paymentFlow: Schema.optional(PaymentFlow),
  paymentMethod: Schema.optional(PaymentMethod),
  paymentTerminalProvider: Schema.optional(TerminalProvider),
  invoiceID: Schema.optional(Identifier),
  paymentID: Schema.optional(Identifier),
  payerEmail: Schema.optional(PayerEmail),
  payerIP: Schema.optional(PayerIP),
  payerFingerprint: Schema.optional(PayerFingerprint),
  customerID: Schema.optional(Identifier),
  bankCardTokenProvider: Schema.optional(TokenProvider),
  bankCardPaymentSystem: Schema.optional(PaymentSystem),
  first6: Schema.optional(First6),
  last4: Schema.optional(Last4),
  bin: Schema.optional(Bin),
  cardNumberMask: Schema.optional(CardNumberMask),
  rrn: Schema.optional(Rrn),
  paymentAmount: Schema.optional(AmountFilter)
}

/** searchInvoices. @since 0.1.0 @category schemas */
export const InvoiceSearchParams = Schema.Struct({
  ...paging,
  invoiceStatus: Schema.optional(InvoiceStatus),
  ...paymentFilters,
  invoiceAmount: Schema.optional(AmountFilter)
})
/** @since 0.1.0 */
export type InvoiceSearchParams = typeof InvoiceSearchParams.Type

/** searchPayments. @since 0.1.0 @category schemas */
export const PaymentSearchParams = Schema.Struct({
  ...paging,
  ...paymentFilters,
  approvalCode: Schema.optional(ApprovalCode)
})
/** @since 0.1.0 */
export type PaymentSearchParams = typeof PaymentSearchParams.Type

/** searchRefunds. @since 0.1.0 @category schemas */
export const RefundSearchParams = Schema.Struct({
  ...paging,
  invoiceID: Schema.optional(Identifier),
  paymentID: Schema.optional(Identifier),
  refundID: Schema.optional(Identifier),
  rrn: Schema.optional(Rrn),
  approvalCode: Schema.optional(ApprovalCode),
  refundStatus: Schema.optional(RefundStatus)
})
/** @since 0.1.0 */
export type RefundSearchParams = typeof RefundSearchParams.Type

/** searchPayouts (older revision). @since 0.1.0 @category schemas */
export const PayoutSearchParams = Schema.Struct({
  ...TimeWindow,
  limit: Limit,
  offset: Schema.optional(Offset),
  payoutStatus: Schema.optional(Schema.Literal("unpaid", "paid", "cancelled", "confirmed")),
  payoutID: Schema.optional(Identifier),
  payoutToolType: Schema.optional(Schema.Literal("PayoutCard", "PayoutAccount"))
})
/** @since 0.1.0 */
export type PayoutSearchParams = typeof PayoutSearchParams.Type

/** @since 0.1.0 @category schemas */
export const SplitUnit = Schema.Literal("minute", "hour", "day", "week", "month", "year")
/** @since 0.1.0 */
export type SplitUnit = typeof SplitUnit.Type

/** The statistics split into segments. @since 0.1.0 @category schemas */
export const SplitStatsParams = Schema.Struct({
  ...TimeWindow,
  splitUnit: SplitUnit,
  splitSize: IntFromString(1, 2147483647)
})
/** @since 0.1.0 */
export type SplitStatsParams = typeof SplitStatsParams.Type

/** getPaymentMethodStats. @since 0.1.0 @category schemas */
export const PaymentMethodStatsParams = Schema.Struct({
  ...SplitStatsParams.fields,
  paymentMethod: Schema.Literal("bankCard")
})
/** @since 0.1.0 */
export type PaymentMethodStatsParams = typeof PaymentMethodStatsParams.Type

/** getPaymentRateStats. @since 0.1.0 @category schemas */
export const RateStatsParams = Schema.Struct(TimeWindow)
/** @since 0.1.0 */
export type RateStatsParams = typeof RateStatsParams.Type

/**
 * From invoice events to notifications, as pure functions.
 *
 * An event of the invoice aggregate holds one or more changes; each change that has a
 * notification gives one, in change order. Every notification carries the snapshots of the
 * invoice (and payment, refund) as they stood right after the event: statuses are folded from
 * the invoice's history up to that event, the other fields come from the current records.
 *
 * | change | delivered `eventType` |
 * |---|---|
 * | InvoiceCreated | InvoiceCreated |
 * | InvoiceStatusChanged paid / cancelled / fulfilled | InvoicePaid / InvoiceCancelled / InvoiceFulfilled |
 * | PaymentStarted | PaymentStarted |
 * | PaymentStatusChanged processed / captured / cancelled / refunded / failed | PaymentProcessed / … / PaymentFailed |
 * | PaymentInteractionRequested / Completed | PaymentInteractionRequested / Completed |
 * | RefundStarted | RefundCreated |
 * | RefundStatusChanged pending / succeeded / failed | RefundPending / RefundSucceeded / RefundFailed |
 * | PaymentChargedBack (Kassa's own change: a chargeback took what remained of the payment) | PaymentChargedBack, the payment `charged_back` |
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Cart from "../cart/Cart.js"
import type { Invoice as ApiInvoice } from "../invoice/Invoice.js"
import { InvoiceCreated, InvoiceStatusChanged, PaymentChargedBack } from "../invoice/InvoiceChange.js"
import type { Payer as ApiPayer, Payment as ApiPayment } from "../payment/Payment.js"
import { PaymentChange, type UserInteraction } from "../payment/PaymentChange.js"
import { type PaymentError as ApiPaymentError, path as errorPath } from "../payment/PaymentError.js"
import type { PaymentToolDetails as ApiDetails } from "../payment/PaymentTool.js"
import { DateTime } from "../Time.js"
import type * as N from "./Notification.js"
import type { SubscriptionEventType } from "./Webhook.js"

// ---------------------------------------------------------------------------------------------
// Event types: subscribed and delivered names
// ---------------------------------------------------------------------------------------------

const deliveredBySubscription: Readonly<Record<SubscriptionEventType, N.EventType>> = {
  InvoiceCreated: "InvoiceCreated",
  InvoicePaid: "InvoicePaid",
  InvoiceCancelled: "InvoiceCancelled",
  InvoiceFulfilled: "InvoiceFulfilled",
  PaymentStarted: "PaymentStarted",
  PaymentProcessed: "PaymentProcessed",
  PaymentCaptured: "PaymentCaptured",
  PaymentCancelled: "PaymentCancelled",
  PaymentRefunded: "PaymentRefunded",
  PaymentFailed: "PaymentFailed",
  PaymentRefundCreated: "RefundCreated",
  PaymentRefundSucceeded: "RefundSucceeded",
  PaymentRefundFailed: "RefundFailed",
  PaymentUserInteractionRequested: "PaymentInteractionRequested",
  PaymentUserInteractionCompleted: "PaymentInteractionCompleted",
  PaymentChargedBack: "PaymentChargedBack",
  CustomerCreated: "CustomerCreated",
  CustomerDeleted: "CustomerDeleted",
  CustomerReady: "CustomerReady",
  CustomerBindingStarted: "CustomerBindingStarted",
  CustomerBindingSucceeded: "CustomerBindingSucceeded",
  CustomerBindingFailed: "CustomerBindingFailed"
}

const subscriptionByDelivered = new Map<N.EventType, SubscriptionEventType>(
  Object.entries(deliveredBySubscription).map(([s, d]) => [d, s as SubscriptionEventType])
)

/** The `eventType` a subscription value is delivered as. @since 0.1.0 */
export const deliveredName = (subscription: SubscriptionEventType): N.EventType => deliveredBySubscription[subscription]

/**
 * The subscription value whose webhooks receive a delivered `eventType`; `undefined` for those
 * no subscription can ask for (`RefundPending`, `PaymentCashChanged`: Kassa creates refunds
 * `pending` and announces them as `RefundCreated`; it never changes a payment's cash).
 *
 * @since 0.1.0
 */
export const subscriptionFor = (delivered: N.EventType): SubscriptionEventType | undefined =>
  subscriptionByDelivered.get(delivered)

// ---------------------------------------------------------------------------------------------
// The changes a notification can come from
// ---------------------------------------------------------------------------------------------

/** The refund as the refund changes carry it (the specification's `Refund`). */
const RefundOfChange = Schema.Struct({
  id: Schema.String,
  createdAt: DateTime,
  amount: Schema.Int,
  currency: Schema.String,
  reason: Schema.optional(Schema.String),
  status: Schema.Literal("pending", "succeeded", "failed"),
  error: Schema.optional(Schema.Struct({ code: Schema.String, message: Schema.String }))
})

/** @since 0.1.0 @category schemas */
export const RefundStarted = Schema.Struct({
  changeType: Schema.Literal("RefundStarted"),
  paymentID: Schema.String,
  refund: RefundOfChange
})

/** @since 0.1.0 @category schemas */
export const RefundStatusChanged = Schema.Struct({
  changeType: Schema.Literal("RefundStatusChanged"),
  paymentID: Schema.String,
  refundID: Schema.String,
  status: Schema.Literal("pending", "succeeded", "failed"),
  error: Schema.optional(Schema.Struct({ code: Schema.String, message: Schema.String }))
})

/**
 * The invoice changes notifications are made of, as stored in the event log (the
 * specification's `getInvoiceEvents` shapes). Other change types are skipped.
 *
 * @since 0.1.0 @category schemas
 */
export const WebhookChange = Schema.Union(
  InvoiceCreated,
  InvoiceStatusChanged,
  ...PaymentChange.members,
  RefundStarted,
  RefundStatusChanged,
  PaymentChargedBack
)
/** @since 0.1.0 */
export type WebhookChange = typeof WebhookChange.Type

const decodeOne = Schema.decodeUnknownOption(WebhookChange)

/**
 * Decodes the stored (JSON) changes of an event, leaving out the ones no notification is made
 * of (unknown change types, later additions).
 *
 * @since 0.1.0
 */
export const decodeChanges = (stored: ReadonlyArray<unknown>): ReadonlyArray<WebhookChange> =>
  stored.flatMap((c) => Option.toArray(decodeOne(c)))

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

/** An event of the invoice with its decoded changes. @since 0.1.0 @category models */
export interface InvoiceEvent {
  readonly id: number
  readonly createdAt: Date
  readonly changes: ReadonlyArray<WebhookChange>
}

/** A payment as a notification shows it: the API's payment and its fee. @since 0.1.0 @category models */
export type PaymentSnapshot = ApiPayment & { readonly fee?: number | undefined }

/** @since 0.1.0 @category models */
export type RefundSnapshot = typeof RefundOfChange.Type

/** The objects as they stood right after an event. @since 0.1.0 @category models */
export interface Snapshots {
  readonly invoice: ApiInvoice
  readonly payments: ReadonlyMap<string, PaymentSnapshot>
  /** By `paymentID/refundID`. */
  readonly refunds: ReadonlyMap<string, RefundSnapshot>
  /** The last interaction requested of each payment. */
  readonly interactions: ReadonlyMap<string, UserInteraction>
}

const refundKey = (paymentID: string, refundID: string) => `${paymentID}/${refundID}`

/** Sets or removes an optional field without ever writing `undefined`. */
const withField = <T extends object, K extends string, V>(target: T, key: K, value: V | undefined): T => {
  const { [key]: _old, ...rest } = target as Record<string, unknown>
  return (value === undefined ? rest : { ...rest, [key]: value }) as T
}

/**
 * The snapshots right after event `eventID`: statuses (and errors, reasons) folded from the
 * invoice's `history` up to that event; everything else from the `current` records when given
 * (fees, transaction info, captured amounts), else from the history. None when the history has
 * no invoice.
 *
 * @since 0.1.0
 */
export const snapshotsAt = (
  history: ReadonlyArray<InvoiceEvent>,
  eventID: number,
  current: {
    readonly invoice?: ApiInvoice | undefined
    readonly payments?: ReadonlyArray<PaymentSnapshot> | undefined
  } = {}
): Option.Option<Snapshots> => {
  const currentPayments = new Map((current.payments ?? []).map((p) => [p.id, p]))
  let invoice: ApiInvoice | undefined = current.invoice
  let status: ApiInvoice["status"] | undefined
  let reason: string | undefined
  const payments = new Map<string, PaymentSnapshot>()
  const refunds = new Map<string, RefundSnapshot>()
  const interactions = new Map<string, UserInteraction>()
  const events = [...history].filter((e) => e.id <= eventID).sort((a, b) => a.id - b.id)
  for (const event of events) {
    for (const change of event.changes) {
      switch (change.changeType) {
        case "InvoiceCreated":
          invoice = invoice ?? change.invoice
          status = change.invoice.status
          reason = change.invoice.reason
          break
        case "InvoiceStatusChanged":
          status = change.status
          reason = change.reason
          break
        case "PaymentStarted": {
          const base = currentPayments.get(change.payment.id) ?? change.payment
          payments.set(change.payment.id, withField({ ...base, status: change.payment.status }, "error", change.payment.error))
          break
        }
        case "PaymentStatusChanged": {
          const p = payments.get(change.paymentID) ?? currentPayments.get(change.paymentID)
          if (p !== undefined) payments.set(change.paymentID, withField({ ...p, status: change.status }, "error", change.error))
          break
        }
        case "PaymentInteractionRequested":
          interactions.set(change.paymentID, change.userInteraction)
          break
        case "PaymentInteractionCompleted":
          if (change.userInteraction !== undefined) interactions.set(change.paymentID, change.userInteraction)
          break
        case "RefundStarted":
          refunds.set(refundKey(change.paymentID, change.refund.id), change.refund)
          break
        case "RefundStatusChanged": {
          const key = refundKey(change.paymentID, change.refundID)
          const r = refunds.get(key)
          if (r !== undefined) refunds.set(key, withField({ ...r, status: change.status }, "error", change.error))
          break
        }
      }
    }
  }
  if (invoice === undefined) return Option.none()
  const snapshot = status === undefined ? invoice : withField({ ...invoice, status }, "reason", reason)
  return Option.some({ invoice: snapshot, payments, refunds, interactions })
}

// ---------------------------------------------------------------------------------------------
// Wire shapes
// ---------------------------------------------------------------------------------------------

const iso = (d: Date) => d.toISOString()

/** Copies `key: value` only when the value is present. */
const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

type CartLine = NonNullable<N.Invoice["cart"]>[number]

const cartLine = (l: Cart.InvoiceLine): CartLine => ({
  product: l.product,
  quantity: l.quantity,
  price: l.price,
  cost: l.cost,
  ...(l.taxMode === undefined ? {} : { taxMode: { rate: l.taxMode.rate } })
})

/** The invoice as notifications show it. @since 0.1.0 */
export const toWebhookInvoice = (i: ApiInvoice): N.Invoice => ({
  id: i.id,
  shopID: i.shopID,
  createdAt: iso(i.createdAt),
  status: i.status,
  ...opt("reason", i.reason),
  dueDate: iso(i.dueDate),
  amount: i.amount,
  currency: i.currency,
  metadata: i.metadata,
  product: i.product,
  ...opt("description", i.description),
  ...(i.cart === undefined || i.cart.length === 0 ? {} : { cart: i.cart.map(cartLine) }),
  ...opt("externalId", i.externalID)
})

/** `{code, message, subError}`: the message names the codes from the top. @since 0.1.0 */
export const toWebhookError = (e: ApiPaymentError): N.Payment["error"] & object => {
  const sub = (s: ApiPaymentError | undefined): N.SubError | undefined =>
    s === undefined ? undefined : { code: s.code, ...opt("subError", sub(s.subError)) }
  return { code: e.code, message: errorPath(e).join(": "), ...opt("subError", sub(e.subError)) }
}

const tokenProviders = new Set(["applepay", "googlepay", "samsungpay", "yandexpay"])
const terminalProviders = new Set(["euroset", "wechat", "alipay", "qps", "uzcard"])
const cryptoCurrencies = new Set(["bitcoin", "litecoin", "bitcoinCash", "ripple", "ethereum", "zcash"])

/**
 * The payment tool details as notifications show them: cards by BIN, last digits, mask and
 * payment system only. A tool the payload schema cannot express (a non-QIWI wallet) has none.
 *
 * @since 0.1.0
 */
export const toWebhookDetails = (d: ApiDetails): N.PaymentToolDetails | undefined => {
  switch (d.detailsType) {
    case "PaymentToolDetailsBankCard": {
      const masked = /^(\d{6,8})\*+(\d{2,4})$/.exec(d.cardNumberMask)
      const bin = d.bin ?? d.first6 ?? masked?.[1]
      const lastDigits = d.lastDigits ?? d.last4 ?? masked?.[2]
      if (bin === undefined || lastDigits === undefined || masked === null) return undefined
      const provider = d.tokenProvider?.toLowerCase()
      return {
        detailsType: "PaymentToolDetailsBankCard",
        bin,
        lastDigits,
        cardNumberMask: d.cardNumberMask,
        paymentSystem: d.paymentSystem,
        ...(d.tokenProvider === undefined ? {} : {
          tokenProvider: (provider !== undefined && tokenProviders.has(provider) ? provider : "unknown") as typeof N.TokenProvider.Type,
          tokenProviderName: d.tokenProvider
        })
      } as N.PaymentToolDetails
    }
    case "PaymentToolDetailsPaymentTerminal":
      return {
        detailsType: "PaymentToolDetailsPaymentTerminal",
        provider: (terminalProviders.has(d.provider) ? d.provider : "unknown") as typeof N.TerminalProvider.Type,
        providerName: d.provider
      }
    case "PaymentToolDetailsDigitalWallet":
      return d.digitalWalletDetailsType === "DigitalWalletDetailsQIWI" && d.phoneNumberMask !== undefined
        ? { detailsType: "PaymentToolDetailsDigitalWallet", digitalWalletDetailsType: "DigitalWalletDetailsQIWI", phoneNumberMask: d.phoneNumberMask }
        : undefined
    case "PaymentToolDetailsCryptoWallet":
      return cryptoCurrencies.has(d.cryptoCurrency)
        ? { detailsType: "PaymentToolDetailsCryptoWallet", cryptoCurrency: d.cryptoCurrency as typeof N.CryptoCurrency.Type }
        : { detailsType: "PaymentToolDetailsCryptoWallet", cryptoCurrency: "unknown", cryptoCurrencyType: d.cryptoCurrency }
    case "PaymentToolDetailsMobileCommerce":
      return { detailsType: "PaymentToolDetailsMobileCommerce", phoneNumber: d.phoneNumber }
  }
}

const contactOf = (c: { readonly email?: string | undefined; readonly phoneNumber?: string | undefined } | undefined): N.ContactInfo => ({
  ...opt("email", c?.email),
  ...opt("phoneNumber", c?.phoneNumber)
})

/** @since 0.1.0 */
export const toWebhookPayer = (p: ApiPayer): N.Payer => {
  switch (p.payerType) {
    case "PaymentResourcePayer": {
      const details = toWebhookDetails(p.paymentToolDetails)
      return {
        payerType: "PaymentResourcePayer",
        paymentToolToken: p.paymentToolToken,
        paymentSession: p.paymentSession,
        ...opt("paymentToolDetails", details),
        clientInfo: { ...opt("ip", p.clientInfo.ip), fingerprint: p.clientInfo.fingerprint },
        contactInfo: contactOf(p.contactInfo)
      }
    }
    case "CustomerPayer":
      return { payerType: "CustomerPayer", customerID: p.customerID }
    case "RecurrentPayer":
      return {
        payerType: "RecurrentPayer",
        contactInfo: contactOf(p.contactInfo),
        recurrentParentPayment: { invoiceID: p.recurrentParentPayment.invoiceID, paymentID: p.recurrentParentPayment.paymentID }
      }
  }
}

/**
 * The payment as notifications show it, with the deprecated top-level copies of the payer's
 * session, contact info, IP and fingerprint (`paymentSession` and `contactInfo` are required:
 * empty for payers without a payment resource).
 *
 * @since 0.1.0
 */
export const toWebhookPayment = (p: PaymentSnapshot): N.Payment => {
  const resource = p.payer.payerType === "PaymentResourcePayer" ? p.payer : undefined
  const contact = p.payer.payerType === "CustomerPayer" ? undefined : p.payer.contactInfo
  return {
    id: p.id,
    createdAt: iso(p.createdAt),
    status: p.status,
    ...(p.error === undefined ? {} : { error: toWebhookError(p.error) }),
    amount: p.amount,
    currency: p.currency,
    ...opt("metadata", p.metadata),
    ...opt("paymentToolToken", resource?.paymentToolToken),
    paymentSession: resource?.paymentSession ?? "",
    contactInfo: contactOf(contact),
    ...opt("ip", resource?.clientInfo.ip),
    ...opt("fingerprint", resource?.clientInfo.fingerprint),
    payer: toWebhookPayer(p.payer),
    ...opt("fee", p.fee),
    ...opt("rrn", p.transactionInfo?.rrn),
    ...opt("externalId", p.externalID)
  }
}

/** @since 0.1.0 */
export const toWebhookRefund = (r: RefundSnapshot): N.Refund => ({
  id: r.id,
  createdAt: iso(r.createdAt),
  status: r.status,
  ...(r.error === undefined ? {} : { error: { code: r.error.code, message: r.error.message } }),
  amount: r.amount,
  currency: r.currency,
  ...opt("reason", r.reason)
})

/** A redirect as `BrowserHTTPRequest`. @since 0.1.0 */
export const toWebhookInteraction = (u: UserInteraction): N.UserInteractionDetails => {
  const request = u.request
  return request.requestType === "BrowserGetRequest"
    ? { userInteractionType: "BrowserHTTPRequest", browserHTTPInfo: { requestType: "get", url: request.uriTemplate } }
    : {
      userInteractionType: "BrowserHTTPRequest",
      browserHTTPInfo: {
        requestType: "post",
        url: request.uriTemplate,
        form: Object.fromEntries(request.form.map((f) => [f.key, f.template]))
      }
    }
}

// ---------------------------------------------------------------------------------------------
// Notifications of an event
// ---------------------------------------------------------------------------------------------

const invoiceStatusEvents = {
  paid: "InvoicePaid",
  cancelled: "InvoiceCancelled",
  fulfilled: "InvoiceFulfilled"
} as const

const paymentStatusEvents = {
  processed: "PaymentProcessed",
  captured: "PaymentCaptured",
  cancelled: "PaymentCancelled",
  refunded: "PaymentRefunded",
  failed: "PaymentFailed",
  charged_back: "PaymentChargedBack"
} as const

const refundStatusEvents = {
  pending: "RefundPending",
  succeeded: "RefundSucceeded",
  failed: "RefundFailed"
} as const

/**
 * The notifications of one invoice event, in change order, with the snapshots as they stood
 * right after it (see `snapshotsAt`). A change whose payment or refund the snapshots lack gives
 * none.
 *
 * @since 0.1.0
 */
export const notificationsOf = (event: InvoiceEvent, snapshots: Snapshots): ReadonlyArray<N.InvoiceNotification> => {
  const head = { eventID: event.id, occuredAt: iso(event.createdAt), topic: "InvoicesTopic" as const }
  const invoice = toWebhookInvoice(snapshots.invoice)
  const payment = (id: string) => {
    const p = snapshots.payments.get(id)
    return p === undefined ? undefined : toWebhookPayment(p)
  }
  const out: Array<N.InvoiceNotification> = []
  for (const change of event.changes) {
    switch (change.changeType) {
      case "InvoiceCreated":
        out.push({ ...head, eventType: "InvoiceCreated", invoice })
        break
      case "InvoiceStatusChanged": {
        if (change.status === "unpaid") break
        out.push({ ...head, eventType: invoiceStatusEvents[change.status], invoice })
        break
      }
      case "PaymentStarted": {
        const p = payment(change.payment.id)
        if (p !== undefined) out.push({ ...head, eventType: "PaymentStarted", invoice, payment: p })
        break
      }
      case "PaymentStatusChanged": {
        // the payment as this change left it: one event may move it twice (authorised and captured)
        const s = snapshots.payments.get(change.paymentID)
        const p = s === undefined ? undefined : toWebhookPayment(withField({ ...s, status: change.status }, "error", change.error))
        const status = change.status as keyof typeof paymentStatusEvents | "pending"
        if (p !== undefined && status !== "pending") out.push({ ...head, eventType: paymentStatusEvents[status], invoice, payment: p })
        break
      }
      case "PaymentInteractionRequested":
      case "PaymentInteractionCompleted": {
        const interaction = change.userInteraction ?? snapshots.interactions.get(change.paymentID)
        if (interaction === undefined) break
        out.push({
          ...head,
          eventType: change.changeType,
          userInteractionDetails: toWebhookInteraction(interaction),
          invoiceId: snapshots.invoice.id,
          paymentId: change.paymentID
        })
        break
      }
      case "RefundStarted":
      case "RefundStatusChanged": {
        const p = payment(change.paymentID)
        const refundID = change.changeType === "RefundStarted" ? change.refund.id : change.refundID
        const r = snapshots.refunds.get(refundKey(change.paymentID, refundID))
        if (p === undefined || r === undefined) break
        const eventType = change.changeType === "RefundStarted" ? "RefundCreated" : refundStatusEvents[change.status]
        out.push({ ...head, eventType, invoice, payment: p, refund: toWebhookRefund(r) })
        break
      }
      case "PaymentChargedBack": {
        const p = payment(change.paymentID)
        if (p !== undefined) out.push({ ...head, eventType: "PaymentChargedBack", invoice, payment: { ...p, status: "charged_back" } })
        break
      }
    }
  }
  return out
}

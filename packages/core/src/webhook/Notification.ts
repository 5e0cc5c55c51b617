/**
 * The notifications Kassa POSTs to webhook URLs, exactly as the Webhook Events API 2.0.0
 * (swag-webhook-events @b02d9b2, the last revision with `CustomersTopic`) shapes them. These are
 * webhook-specific shapes, not the REST API's: `externalId`, `invoiceId`, `paymentId`, card
 * `bin` / `lastDigits`, an invoice status `refunded`, a payment status `charged_back`.
 *
 * Dates are RFC 3339 strings here: the type is the JSON that is sent.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { DateTimeText } from "../Time.js"

/** A date-time as sent. @since 0.1.0 @category schemas */
export const DateTimeString = DateTimeText

const Int64Min1 = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** @since 0.1.0 @category schemas */
export const Topic = Schema.Literal("InvoicesTopic", "CustomersTopic")
/** @since 0.1.0 */
export type Topic = typeof Topic.Type

/** Every delivered `eventType`. @since 0.1.0 @category schemas */
export const EventType = Schema.Literal(
  "InvoiceCreated",
  "InvoicePaid",
  "InvoiceCancelled",
  "InvoiceFulfilled",
  "PaymentStarted",
  "PaymentProcessed",
  "PaymentCaptured",
  "PaymentCancelled",
  "PaymentChargedBack",
  "PaymentRefunded",
  "PaymentFailed",
  "PaymentCashChanged",
  "RefundCreated",
  "RefundPending",
  "RefundSucceeded",
  "RefundFailed",
  "CustomerCreated",
  "CustomerDeleted",
  "CustomerReady",
  "CustomerBindingStarted",
  "CustomerBindingSucceeded",
  "CustomerBindingFailed",
  "PaymentInteractionRequested",
  "PaymentInteractionCompleted"
)
/** @since 0.1.0 */
export type EventType = typeof EventType.Type

// ---------------------------------------------------------------------------------------------
// Invoice
// ---------------------------------------------------------------------------------------------

/** @since 0.1.0 @category schemas */
export const InvoiceCartLine = Schema.Struct({
  product: Schema.String.pipe(Schema.maxLength(1000)),
  quantity: Int64Min1,
  price: Int64Min1,
  cost: Int64Min1,
  taxMode: Schema.optional(Schema.Struct({
    rate: Schema.Literal("0%", "10%", "18%", "20%", "10/110", "18/118", "20/120")
  }))
})

/** @since 0.1.0 @category schemas */
export const InvoiceStatus = Schema.Literal("unpaid", "cancelled", "paid", "refunded", "fulfilled")

/** @since 0.1.0 @category schemas */
export const Invoice = Schema.Struct({
  id: Schema.String,
  shopID: Schema.String,
  createdAt: DateTimeString,
  status: InvoiceStatus,
  reason: Schema.optional(Schema.String),
  dueDate: DateTimeString,
  amount: Int64Min1,
  currency: Schema.String,
  metadata: JsonObject,
  product: Schema.String,
  description: Schema.optional(Schema.String),
  cart: Schema.optional(Schema.Array(InvoiceCartLine).pipe(Schema.minItems(1), Schema.maxItems(100))),
  externalId: Schema.optional(Schema.String)
}).annotations({ identifier: "WebhookInvoice" })
/** @since 0.1.0 */
export type Invoice = typeof Invoice.Type

// ---------------------------------------------------------------------------------------------
// Payment
// ---------------------------------------------------------------------------------------------

/** @since 0.1.0 @category models */
export interface SubError {
  readonly code: string
  readonly subError?: SubError | undefined
}

/** @since 0.1.0 @category schemas */
export const SubError: Schema.Schema<SubError> = Schema.Struct({
  code: Schema.String,
  subError: Schema.optional(Schema.suspend((): Schema.Schema<SubError> => SubError))
})

/** @since 0.1.0 @category schemas */
export const PaymentError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  subError: Schema.optional(SubError)
})

/** @since 0.1.0 @category schemas */
export const TokenProvider = Schema.Literal("applepay", "googlepay", "samsungpay", "yandexpay", "unknown")

/** @since 0.1.0 @category schemas */
export const PaymentToolDetailsBankCard = Schema.Struct({
  detailsType: Schema.Literal("PaymentToolDetailsBankCard"),
  bin: Schema.String.pipe(Schema.pattern(/^\d{6,8}$/)),
  lastDigits: Schema.String.pipe(Schema.pattern(/^\d{2,4}$/)),
  cardNumberMask: Schema.String.pipe(Schema.pattern(/^\d{6,8}\*+\d{2,4}$/)),
  paymentSystem: Schema.String.pipe(Schema.maxLength(100)),
  tokenProvider: Schema.optional(TokenProvider),
  tokenProviderName: Schema.optional(Schema.String),
  issuerCountry: Schema.optional(Schema.String),
  bankName: Schema.optional(Schema.String)
})

/** @since 0.1.0 @category schemas */
export const TerminalProvider = Schema.Literal("euroset", "wechat", "alipay", "qps", "uzcard", "unknown")

/** @since 0.1.0 @category schemas */
export const PaymentToolDetailsPaymentTerminal = Schema.Struct({
  detailsType: Schema.Literal("PaymentToolDetailsPaymentTerminal"),
  provider: TerminalProvider,
  providerName: Schema.String
})

const MaskedPhone = Schema.String.pipe(Schema.pattern(/^\+\d\*{1,10}\d{2,4}$/))

/** @since 0.1.0 @category schemas */
export const PaymentToolDetailsDigitalWallet = Schema.Struct({
  detailsType: Schema.Literal("PaymentToolDetailsDigitalWallet"),
  digitalWalletDetailsType: Schema.Literal("DigitalWalletDetailsQIWI"),
  phoneNumberMask: MaskedPhone
})

/** @since 0.1.0 @category schemas */
export const CryptoCurrency = Schema.Literal("bitcoin", "litecoin", "bitcoinCash", "ripple", "ethereum", "zcash", "unknown")

/** @since 0.1.0 @category schemas */
export const PaymentToolDetailsCryptoWallet = Schema.Struct({
  detailsType: Schema.Literal("PaymentToolDetailsCryptoWallet"),
  cryptoCurrency: CryptoCurrency,
  cryptoCurrencyType: Schema.optional(Schema.String)
})

/** @since 0.1.0 @category schemas */
export const PaymentToolDetailsMobileCommerce = Schema.Struct({
  detailsType: Schema.Literal("PaymentToolDetailsMobileCommerce"),
  phoneNumber: MaskedPhone
})

/** @since 0.1.0 @category schemas */
export const PaymentToolDetails = Schema.Union(
  PaymentToolDetailsBankCard,
  PaymentToolDetailsPaymentTerminal,
  PaymentToolDetailsDigitalWallet,
  PaymentToolDetailsCryptoWallet,
  PaymentToolDetailsMobileCommerce
)
/** @since 0.1.0 */
export type PaymentToolDetails = typeof PaymentToolDetails.Type

/** @since 0.1.0 @category schemas */
export const ClientInfo = Schema.Struct({
  ip: Schema.optional(Schema.String.pipe(Schema.maxLength(45))),
  fingerprint: Schema.String.pipe(Schema.maxLength(1000))
})

/** @since 0.1.0 @category schemas */
export const ContactInfo = Schema.Struct({
  email: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  phoneNumber: Schema.optional(Schema.String)
})
/** @since 0.1.0 */
export type ContactInfo = typeof ContactInfo.Type

/** @since 0.1.0 @category schemas */
export const PaymentResource = Schema.Struct({
  paymentToolToken: Schema.String.pipe(Schema.maxLength(1000)),
  paymentSession: Schema.String.pipe(Schema.maxLength(1000)),
  paymentToolDetails: Schema.optional(PaymentToolDetails),
  clientInfo: Schema.optional(ClientInfo)
})

/** @since 0.1.0 @category schemas */
export const PaymentResourcePayer = Schema.Struct({
  payerType: Schema.Literal("PaymentResourcePayer"),
  ...PaymentResource.fields,
  contactInfo: ContactInfo
})

/** @since 0.1.0 @category schemas */
export const CustomerPayer = Schema.Struct({
  payerType: Schema.Literal("CustomerPayer"),
  customerID: Schema.String
})

/** @since 0.1.0 @category schemas */
export const RecurrentPayer = Schema.Struct({
  payerType: Schema.Literal("RecurrentPayer"),
  contactInfo: ContactInfo,
  recurrentParentPayment: Schema.Struct({ invoiceID: Schema.String, paymentID: Schema.String })
})

/** @since 0.1.0 @category schemas */
export const Payer = Schema.Union(PaymentResourcePayer, CustomerPayer, RecurrentPayer)
/** @since 0.1.0 */
export type Payer = typeof Payer.Type

/** @since 0.1.0 @category schemas */
export const PaymentStatus = Schema.Literal("pending", "processed", "captured", "cancelled", "refunded", "failed", "charged_back")

/** @since 0.1.0 @category schemas */
export const Payment = Schema.Struct({
  id: Schema.String,
  createdAt: DateTimeString,
  status: PaymentStatus,
  error: Schema.optional(PaymentError),
  amount: Int64Min1,
  changedAmount: Schema.optional(Int64Min1),
  currency: Schema.String,
  metadata: Schema.optional(JsonObject),
  paymentToolToken: Schema.optional(Schema.String),
  paymentSession: Schema.String,
  contactInfo: Schema.Struct({ email: Schema.optional(Schema.String), phoneNumber: Schema.optional(Schema.String) }),
  ip: Schema.optional(Schema.String),
  fingerprint: Schema.optional(Schema.String),
  payer: Payer,
  fee: Schema.optional(Schema.Int),
  rrn: Schema.optional(Schema.String),
  externalId: Schema.optional(Schema.String),
  extraPaymentInfo: Schema.optional(JsonObject)
}).annotations({ identifier: "WebhookPayment" })
/** @since 0.1.0 */
export type Payment = typeof Payment.Type

// ---------------------------------------------------------------------------------------------
// Refund, customer, user interaction
// ---------------------------------------------------------------------------------------------

const CodeMessage = Schema.Struct({ code: Schema.String, message: Schema.String })

/** @since 0.1.0 @category schemas */
export const Refund = Schema.Struct({
  id: Schema.String,
  createdAt: DateTimeString,
  status: Schema.Literal("pending", "succeeded", "failed"),
  error: Schema.optional(CodeMessage),
  amount: Int64Min1,
  currency: Schema.String,
  reason: Schema.optional(Schema.String),
  rrn: Schema.optional(Schema.String)
}).annotations({ identifier: "WebhookRefund" })
/** @since 0.1.0 */
export type Refund = typeof Refund.Type

/** @since 0.1.0 @category schemas */
export const Customer = Schema.Struct({
  id: Schema.String,
  shopID: Schema.String,
  status: Schema.Literal("ready", "unready"),
  contactInfo: ContactInfo,
  metadata: JsonObject
})
/** @since 0.1.0 */
export type Customer = typeof Customer.Type

/** @since 0.1.0 @category schemas */
export const CustomerBinding = Schema.Struct({
  status: Schema.Literal("pending", "succeeded", "failed"),
  error: Schema.optional(CodeMessage),
  id: Schema.String,
  paymentResource: PaymentResource
})
/** @since 0.1.0 */
export type CustomerBinding = typeof CustomerBinding.Type

/** @since 0.1.0 @category schemas */
export const BrowserHTTPRequest = Schema.Struct({
  userInteractionType: Schema.Literal("BrowserHTTPRequest"),
  browserHTTPInfo: Schema.Struct({
    requestType: Schema.Literal("get", "post"),
    url: Schema.String.pipe(Schema.maxLength(1000)),
    form: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String.pipe(Schema.maxLength(1000)) }))
  })
})

/** @since 0.1.0 @category schemas */
export const UserInteractionDetails = Schema.Union(
  BrowserHTTPRequest,
  Schema.Struct({
    userInteractionType: Schema.Literal("PaymentTerminalReceipt"),
    paymentTerminalReceiptInfo: Schema.Struct({ shortPaymentId: Schema.String, due: DateTimeString })
  }),
  Schema.Struct({
    userInteractionType: Schema.Literal("CryptoCurrencyTransferRequest"),
    cryptoCurrencyTransferInfo: Schema.Struct({
      cryptoAddress: Schema.String,
      cryptoAmount: Schema.Struct({ divider: Int64Min1, denominator: Int64Min1 }),
      cryptoCurrency: Schema.String
    })
  }),
  Schema.Struct({
    userInteractionType: Schema.Literal("QrCodeDisplayRequest"),
    qrCodeDisplayInfo: Schema.Struct({ qrCode: Schema.String })
  }),
  Schema.Struct({
    userInteractionType: Schema.Literal("ApiExtensionRequest"),
    apiExtensionInfo: Schema.Struct({ apiType: Schema.String })
  })
)
/** @since 0.1.0 */
export type UserInteractionDetails = typeof UserInteractionDetails.Type

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

const event = <T extends Topic, E extends EventType, Fields extends Schema.Struct.Fields>(
  topic: T,
  eventType: E,
  fields: Fields
) =>
  Schema.Struct({
    eventID: Schema.Int,
    occuredAt: DateTimeString,
    topic: Schema.Literal(topic),
    eventType: Schema.Literal(eventType),
    ...fields
  }).annotations({ identifier: eventType })

const withInvoice = { invoice: Invoice }
const withPayment = { invoice: Invoice, payment: Payment }
const withRefund = { invoice: Invoice, payment: Payment, refund: Refund }
const withInteraction = { userInteractionDetails: UserInteractionDetails, invoiceId: Schema.String, paymentId: Schema.String }
const withCustomer = { customer: Customer }
const withBinding = { customer: Customer, binding: CustomerBinding }

/** @since 0.1.0 @category schemas */
export const InvoiceCreated = event("InvoicesTopic", "InvoiceCreated", withInvoice)
/** @since 0.1.0 @category schemas */
export const InvoicePaid = event("InvoicesTopic", "InvoicePaid", withInvoice)
/** @since 0.1.0 @category schemas */
export const InvoiceCancelled = event("InvoicesTopic", "InvoiceCancelled", withInvoice)
/** @since 0.1.0 @category schemas */
export const InvoiceFulfilled = event("InvoicesTopic", "InvoiceFulfilled", withInvoice)
/** @since 0.1.0 @category schemas */
export const PaymentStarted = event("InvoicesTopic", "PaymentStarted", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentProcessed = event("InvoicesTopic", "PaymentProcessed", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentCaptured = event("InvoicesTopic", "PaymentCaptured", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentCancelled = event("InvoicesTopic", "PaymentCancelled", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentChargedBack = event("InvoicesTopic", "PaymentChargedBack", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentRefunded = event("InvoicesTopic", "PaymentRefunded", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentFailed = event("InvoicesTopic", "PaymentFailed", withPayment)
/** @since 0.1.0 @category schemas */
export const PaymentCashChanged = event("InvoicesTopic", "PaymentCashChanged", withPayment)
/** @since 0.1.0 @category schemas */
export const RefundCreated = event("InvoicesTopic", "RefundCreated", withRefund)
/** @since 0.1.0 @category schemas */
export const RefundPending = event("InvoicesTopic", "RefundPending", withRefund)
/** @since 0.1.0 @category schemas */
export const RefundSucceeded = event("InvoicesTopic", "RefundSucceeded", withRefund)
/** @since 0.1.0 @category schemas */
export const RefundFailed = event("InvoicesTopic", "RefundFailed", withRefund)
/** @since 0.1.0 @category schemas */
export const PaymentInteractionRequested = event("InvoicesTopic", "PaymentInteractionRequested", withInteraction)
/** @since 0.1.0 @category schemas */
export const PaymentInteractionCompleted = event("InvoicesTopic", "PaymentInteractionCompleted", withInteraction)
/** @since 0.1.0 @category schemas */
export const CustomerCreated = event("CustomersTopic", "CustomerCreated", withCustomer)
/** @since 0.1.0 @category schemas */
export const CustomerDeleted = event("CustomersTopic", "CustomerDeleted", withCustomer)
/** @since 0.1.0 @category schemas */
export const CustomerReady = event("CustomersTopic", "CustomerReady", withCustomer)
/** @since 0.1.0 @category schemas */
export const CustomerBindingStarted = event("CustomersTopic", "CustomerBindingStarted", withBinding)
/** @since 0.1.0 @category schemas */
export const CustomerBindingSucceeded = event("CustomersTopic", "CustomerBindingSucceeded", withBinding)
/** @since 0.1.0 @category schemas */
export const CustomerBindingFailed = event("CustomersTopic", "CustomerBindingFailed", withBinding)

/** The notifications of `InvoicesTopic`. @since 0.1.0 @category schemas */
export const InvoiceNotification = Schema.Union(
  InvoiceCreated,
  InvoicePaid,
  InvoiceCancelled,
  InvoiceFulfilled,
  PaymentStarted,
  PaymentProcessed,
  PaymentCaptured,
  PaymentCancelled,
  PaymentChargedBack,
  PaymentRefunded,
  PaymentFailed,
  PaymentCashChanged,
  RefundCreated,
  RefundPending,
  RefundSucceeded,
  RefundFailed,
  PaymentInteractionRequested,
  PaymentInteractionCompleted
)
/** @since 0.1.0 */
export type InvoiceNotification = typeof InvoiceNotification.Type

/** The notifications of `CustomersTopic`. @since 0.1.0 @category schemas */
export const CustomerNotification = Schema.Union(
  CustomerCreated,
  CustomerDeleted,
  CustomerReady,
  CustomerBindingStarted,
  CustomerBindingSucceeded,
  CustomerBindingFailed
)
/** @since 0.1.0 */
export type CustomerNotification = typeof CustomerNotification.Type

/** Any notification. @since 0.1.0 @category schemas */
export const Notification = Schema.Union(InvoiceNotification, CustomerNotification)
/** @since 0.1.0 */
export type Notification = typeof Notification.Type

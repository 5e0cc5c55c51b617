/**
 * The webhook as the merchant manages it: a URL subscribed to a topic of one shop, with the
 * event types it wants and the public half of its party's key that signs its notifications.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Identifier } from "../Ids.js"

/**
 * The event types a webhook of `InvoicesTopic` subscribes to (Payments API v2's enum). Some are
 * delivered under another name (see `NotificationMapping.deliveredName`).
 *
 * @since 0.1.0 @category schemas
 */
export const InvoicesEventType = Schema.Literal(
  "InvoiceCreated",
  "InvoicePaid",
  "InvoiceCancelled",
  "InvoiceFulfilled",
  "PaymentStarted",
  "PaymentProcessed",
  "PaymentCaptured",
  "PaymentCancelled",
  "PaymentRefunded",
  "PaymentFailed",
  "PaymentRefundCreated",
  "PaymentRefundSucceeded",
  "PaymentRefundFailed",
  "PaymentUserInteractionRequested",
  "PaymentUserInteractionCompleted"
)
/** @since 0.1.0 */
export type InvoicesEventType = typeof InvoicesEventType.Type

/**
 * The invoice event types a webhook may ask for beyond Payments API v2's enum: the
 * webhook-events specification's `PaymentChargedBack`. The answer lists them apart, in
 * `scope.additionalEventTypes`, so `eventTypes` holds only values the enum lists.
 *
 * @since 0.1.0 @category schemas
 */
export const AdditionalInvoicesEventType = Schema.Literal("PaymentChargedBack")
/** @since 0.1.0 */
export type AdditionalInvoicesEventType = typeof AdditionalInvoicesEventType.Type

/** Every invoice event type a webhook may subscribe to. @since 0.1.0 @category schemas */
export const InvoicesSubscription = Schema.Literal(...InvoicesEventType.literals, ...AdditionalInvoicesEventType.literals)
/** @since 0.1.0 */
export type InvoicesSubscription = typeof InvoicesSubscription.Type

/** The event types a webhook of `CustomersTopic` subscribes to. @since 0.1.0 @category schemas */
export const CustomersEventType = Schema.Literal(
  "CustomerCreated",
  "CustomerDeleted",
  "CustomerReady",
  "CustomerBindingStarted",
  "CustomerBindingSucceeded",
  "CustomerBindingFailed"
)
/** @since 0.1.0 */
export type CustomersEventType = typeof CustomersEventType.Type

/** Any subscription event type. @since 0.1.0 */
export type SubscriptionEventType = InvoicesSubscription | CustomersEventType

/**
 * The invoice scope as created and stored: `eventTypes` may hold the additional types too, and
 * `additionalEventTypes` (as answered) is accepted and stored merged into it.
 *
 * @since 0.1.0 @category schemas
 */
export const InvoicesTopic = Schema.Struct({
  topic: Schema.Literal("InvoicesTopic"),
  shopID: Identifier,
  eventTypes: Schema.Array(InvoicesSubscription),
  additionalEventTypes: Schema.optional(Schema.Array(AdditionalInvoicesEventType))
}).annotations({ identifier: "InvoicesTopic" })

/** The invoice scope as answered. @since 0.1.0 @category schemas */
export const InvoicesTopicAnswer = Schema.Struct({
  topic: Schema.Literal("InvoicesTopic"),
  shopID: Schema.String,
  eventTypes: Schema.Array(InvoicesEventType),
  additionalEventTypes: Schema.optional(Schema.Array(AdditionalInvoicesEventType))
}).annotations({ identifier: "InvoicesTopicAnswer" })

/** @since 0.1.0 @category schemas */
export const CustomersTopic = Schema.Struct({
  topic: Schema.Literal("CustomersTopic"),
  shopID: Identifier,
  eventTypes: Schema.Array(CustomersEventType)
}).annotations({ identifier: "CustomersTopic" })

/** @since 0.1.0 @category schemas */
export const WebhookScope = Schema.Union(InvoicesTopic, CustomersTopic).annotations({ identifier: "WebhookScope" })
/** @since 0.1.0 */
export type WebhookScope = typeof WebhookScope.Type

/** @since 0.1.0 */
export type Topic = WebhookScope["topic"]

/** The scope as answered: the invoice scope's additional event types listed apart. @since 0.1.0 @category schemas */
export const WebhookScopeAnswer = Schema.Union(InvoicesTopicAnswer, CustomersTopic).annotations({ identifier: "WebhookScopeAnswer" })
/** @since 0.1.0 */
export type WebhookScopeAnswer = typeof WebhookScopeAnswer.Type

const isListed = (t: InvoicesSubscription): t is InvoicesEventType => (InvoicesEventType.literals as ReadonlyArray<string>).includes(t)

/** Every invoice event type the scope asks for, once. */
const invoiceEventTypes = (scope: typeof InvoicesTopic.Type): ReadonlyArray<InvoicesSubscription> => [
  ...new Set([...scope.eventTypes, ...(scope.additionalEventTypes ?? [])])
]

/** The scope to store: every invoice event type asked for in `eventTypes`. @since 0.1.0 */
export const storedScope = (scope: WebhookScope): WebhookScope =>
  scope.topic === "CustomersTopic" ? scope : { topic: scope.topic, shopID: scope.shopID, eventTypes: invoiceEventTypes(scope) }

/** The scope to answer: `eventTypes` only with values the enum lists, the others apart. @since 0.1.0 */
export const scopeAnswer = (scope: WebhookScope): WebhookScopeAnswer => {
  if (scope.topic === "CustomersTopic") return scope
  const all = invoiceEventTypes(scope)
  const additional = all.filter((t): t is AdditionalInvoicesEventType => !isListed(t))
  return {
    topic: scope.topic,
    shopID: scope.shopID,
    eventTypes: all.filter(isListed),
    ...(additional.length === 0 ? {} : { additionalEventTypes: additional })
  }
}

/** The longest URL a webhook may have. @since 0.1.0 */
export const MAX_URL_LENGTH = 1000

/**
 * Whether `text` is an absolute `http:` or `https:` URL with a host.
 *
 * @since 0.1.0
 */
export const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

/** @since 0.1.0 @category schemas */
export const WebhookUrl = Schema.String.pipe(
  Schema.maxLength(MAX_URL_LENGTH),
  Schema.filter(isHttpUrl, { message: () => "Expected an absolute http or https URL" })
).annotations({ jsonSchema: { type: "string", format: "http-url", maxLength: MAX_URL_LENGTH } })

/**
 * createWebhook's body.
 *
 * @since 0.1.0 @category schemas
 */
export const WebhookParams = Schema.Struct({
  scope: WebhookScope,
  partyID: Schema.optional(Identifier),
  url: WebhookUrl
}).annotations({ identifier: "WebhookParams" })
/** @since 0.1.0 */
export type WebhookParams = typeof WebhookParams.Type

/**
 * The webhook as the interface shows it. `publicKey` is the PEM block of the RSA key that
 * verifies its notifications: the party's current key, the same for all its webhooks.
 *
 * @since 0.1.0 @category schemas
 */
export const Webhook = Schema.Struct({
  id: Schema.String,
  active: Schema.Boolean,
  scope: WebhookScopeAnswer,
  partyID: Schema.String,
  url: Schema.String,
  publicKey: Schema.String
}).annotations({ identifier: "Webhook" })
/** @since 0.1.0 */
export type Webhook = typeof Webhook.Type

/**
 * The webhook as stored: the interface's fields (`publicKey` read from the party's current key)
 * plus the creation time.
 *
 * @since 0.1.0 @category models
 */
export interface WebhookRecord extends Omit<Webhook, "scope"> {
  readonly scope: WebhookScope
  readonly createdAt: Date
}

/** The webhook as the interface answers a read. @since 0.1.0 */
export const toWebhook = (r: WebhookRecord): Webhook => ({
  id: r.id,
  active: r.active,
  scope: scopeAnswer(r.scope),
  partyID: r.partyID,
  url: r.url,
  publicKey: r.publicKey
})

/** At most this many active `InvoicesTopic` webhooks per shop (the reference platform's default). @since 0.1.0 */
export const MAX_INVOICE_WEBHOOKS_PER_SHOP = 10

/** The 429 message of createWebhook. @since 0.1.0 */
export const LIMIT_MESSAGE = "Webhook limit exceeded"

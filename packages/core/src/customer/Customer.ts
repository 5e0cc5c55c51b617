/**
 * The customer: a payer a merchant keeps, with bindings (saved cards verified by the acquirer)
 * to charge again without asking for the card.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Identifier } from "../Ids.js"
import { ContactInfo } from "../payment/Payment.js"
import { UserInteraction } from "../payment/PaymentChange.js"
import { ClientInfo, PaymentToolDetails, type StoredTool } from "../payment/PaymentTool.js"
import { Metadata } from "../Time.js"

/** @since 0.1.0 @category schemas */
export const CustomerStatus = Schema.Literal("ready", "unready")

/** @since 0.1.0 @category schemas */
export const Customer = Schema.Struct({
  id: Schema.String,
  externalID: Schema.optional(Schema.String),
  shopID: Schema.String,
  partyID: Schema.optional(Schema.String),
  contactInfo: ContactInfo,
  status: CustomerStatus,
  metadata: Metadata
}).annotations({ identifier: "Customer" })
/** @since 0.1.0 */
export type Customer = typeof Customer.Type

/** @since 0.1.0 @category schemas */
export const CustomerParams = Schema.Struct({
  externalID: Schema.optional(Identifier),
  shopID: Identifier,
  partyID: Schema.optional(Identifier),
  contactInfo: ContactInfo,
  metadata: Metadata
}).annotations({ identifier: "CustomerParams" })
/** @since 0.1.0 */
export type CustomerParams = typeof CustomerParams.Type

/** The customer as stored. @since 0.1.0 @category models */
export interface CustomerRecord extends Customer {
  readonly partyID: string
  readonly createdAt: Date
  readonly deletedAt: Date | undefined
  readonly version: number
}

/** @since 0.1.0 */
export const toCustomer = (r: CustomerRecord): Customer => ({
  id: r.id,
  ...(r.externalID === undefined ? {} : { externalID: r.externalID }),
  shopID: r.shopID,
  partyID: r.partyID,
  contactInfo: r.contactInfo,
  status: r.status,
  metadata: r.metadata
})

/** @since 0.1.0 @category schemas */
export const BindingStatus = Schema.Literal("pending", "succeeded", "failed")

/** @since 0.1.0 @category schemas */
export const BindingError = Schema.Struct({ code: Schema.String, message: Schema.String })

/** @since 0.1.0 @category schemas */
export const PaymentResource = Schema.Struct({
  paymentToolToken: Schema.String,
  paymentSession: Schema.String,
  paymentToolDetails: Schema.optional(PaymentToolDetails),
  clientInfo: Schema.optional(ClientInfo)
})

/** @since 0.1.0 @category schemas */
export const Binding = Schema.Struct({
  id: Schema.String,
  externalID: Schema.optional(Schema.String),
  paymentResource: PaymentResource,
  status: BindingStatus,
  error: Schema.optional(BindingError)
}).annotations({ identifier: "CustomerBinding" })
/** @since 0.1.0 */
export type Binding = typeof Binding.Type

/** @since 0.1.0 @category schemas */
export const BindingParams = Schema.Struct({
  externalID: Schema.optional(Identifier),
  paymentResource: Schema.Struct({
    paymentToolToken: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
    paymentSession: Schema.optional(Schema.String.pipe(Schema.maxLength(1000)))
  })
}).annotations({ identifier: "CustomerBindingParams" })
/** @since 0.1.0 */
export type BindingParams = typeof BindingParams.Type

/** The binding as stored. @since 0.1.0 @category models */
export interface BindingRecord extends Binding {
  readonly customerID: string
  readonly partyID: string
  readonly createdAt: Date
  readonly tool: StoredTool
  readonly vaultSession: string | undefined
  readonly recurrentToken: string | undefined
  readonly interactionID: string | undefined
  /** The payer answered the challenge (the first answer decides; later ones change nothing). */
  readonly interactionCompleted?: boolean | undefined
  readonly version: number
}

/** @since 0.1.0 */
export const toBinding = (r: BindingRecord): Binding => ({
  id: r.id,
  ...(r.externalID === undefined ? {} : { externalID: r.externalID }),
  paymentResource: r.paymentResource,
  status: r.status,
  ...(r.error === undefined ? {} : { error: r.error })
})

/** The customer changes the specification shows (`getCustomerEvents`). @since 0.1.0 @category schemas */
export const CustomerChange = Schema.Union(
  Schema.Struct({ changeType: Schema.Literal("CustomerBindingStarted"), customerBinding: Binding }),
  Schema.Struct({
    changeType: Schema.Literal("CustomerBindingStatusChanged"),
    customerBindingID: Schema.String,
    status: BindingStatus,
    error: Schema.optional(BindingError)
  }),
  Schema.Struct({
    changeType: Schema.Literal("CustomerBindingInteractionRequested"),
    customerBindingID: Schema.String,
    userInteraction: UserInteraction
  }),
  Schema.Struct({
    changeType: Schema.Literal("CustomerBindingInteractionCompleted"),
    customerBindingID: Schema.String,
    userInteraction: Schema.optional(UserInteraction)
  })
)
/** @since 0.1.0 */
export type CustomerChange = typeof CustomerChange.Type

/**
 * Changes kept in the customer's log for notifications (CustomerCreated, CustomerDeleted,
 * CustomerReady) that the specification's history does not show.
 *
 * @since 0.1.0
 */
export const LifecycleChange = Schema.Struct({
  changeType: Schema.Literal("CustomerCreated", "CustomerDeleted", "CustomerReady")
})

/** @since 0.1.0 @category schemas */
export const CustomerEvent = Schema.Struct({
  id: Schema.Int,
  createdAt: Schema.DateFromString,
  changes: Schema.Array(CustomerChange)
}).annotations({ identifier: "CustomerEvent" })
/** @since 0.1.0 */
export type CustomerEvent = typeof CustomerEvent.Type

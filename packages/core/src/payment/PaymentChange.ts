/**
 * The payment changes of the invoice's events, in the specification's shapes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Payment, PaymentStatus } from "./Payment.js"
import { PaymentError } from "./PaymentError.js"

/** @since 0.1.0 @category schemas */
export const BrowserRequest = Schema.Union(
  Schema.Struct({ requestType: Schema.Literal("BrowserGetRequest"), uriTemplate: Schema.String }),
  Schema.Struct({
    requestType: Schema.Literal("BrowserPostRequest"),
    uriTemplate: Schema.String,
    form: Schema.Array(Schema.Struct({ key: Schema.String, template: Schema.String }))
  })
)

/** @since 0.1.0 @category schemas */
export const UserInteraction = Schema.Struct({
  interactionType: Schema.Literal("Redirect"),
  request: BrowserRequest
}).annotations({ identifier: "UserInteraction" })
/** @since 0.1.0 */
export type UserInteraction = typeof UserInteraction.Type

/** @since 0.1.0 @category schemas */
export const PaymentStarted = Schema.Struct({ changeType: Schema.Literal("PaymentStarted"), payment: Payment })

/** @since 0.1.0 @category schemas */
export const PaymentStatusChanged = Schema.Struct({
  changeType: Schema.Literal("PaymentStatusChanged"),
  paymentID: Schema.String,
  status: PaymentStatus,
  error: Schema.optional(PaymentError)
})

/** @since 0.1.0 @category schemas */
export const PaymentInteractionRequested = Schema.Struct({
  changeType: Schema.Literal("PaymentInteractionRequested"),
  paymentID: Schema.String,
  userInteraction: UserInteraction
})

/** @since 0.1.0 @category schemas */
export const PaymentInteractionCompleted = Schema.Struct({
  changeType: Schema.Literal("PaymentInteractionCompleted"),
  paymentID: Schema.String,
  userInteraction: Schema.optional(UserInteraction)
})

/** @since 0.1.0 @category schemas */
export const PaymentChange = Schema.Union(
  PaymentStarted,
  PaymentStatusChanged,
  PaymentInteractionRequested,
  PaymentInteractionCompleted
)
/** @since 0.1.0 */
export type PaymentChange = typeof PaymentChange.Type

/**
 * The payment: one attempt to pay an invoice, one-step (`PaymentFlowInstant`) or two-step
 * (`PaymentFlowHold`: authorise, then capture or cancel).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { Email } from "../Email.js"
import { Identifier } from "../Ids.js"
import { Amount, Currency } from "../Money.js"
import { DateTime, Metadata } from "../Time.js"
import { PaymentError } from "./PaymentError.js"
import { ClientInfo, PaymentToolDetails, type StoredTool } from "./PaymentTool.js"

/** @since 0.1.0 @category schemas */
export const PaymentStatus = Schema.Literal("pending", "processed", "captured", "cancelled", "refunded", "failed")
/** @since 0.1.0 */
export type PaymentStatus = typeof PaymentStatus.Type

/** @since 0.1.0 @category schemas */
export const OnHoldExpiration = Schema.Literal("cancel", "capture")

/** The flow as a merchant sends it. @since 0.1.0 @category schemas */
export const FlowParams = Schema.Union(
  Schema.Struct({ type: Schema.Literal("PaymentFlowInstant") }),
  Schema.Struct({
    type: Schema.Literal("PaymentFlowHold"),
    onHoldExpiration: Schema.optionalWith(OnHoldExpiration, { default: () => "cancel" as const })
  })
)

/** The flow as Kassa answers it: a hold carries `heldUntil`. @since 0.1.0 @category schemas */
export const Flow = Schema.Union(
  Schema.Struct({ type: Schema.Literal("PaymentFlowInstant") }),
  Schema.Struct({ type: Schema.Literal("PaymentFlowHold"), onHoldExpiration: OnHoldExpiration, heldUntil: Schema.optional(DateTime) })
)
/** @since 0.1.0 */
export type Flow = typeof Flow.Type

/** @since 0.1.0 @category schemas */
export const ContactInfo = Schema.Struct({
  email: Schema.optional(Email),
  phoneNumber: Schema.optional(Schema.String.pipe(Schema.maxLength(20))),
  firstName: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  lastName: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  country: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/))),
  state: Schema.optional(Schema.String.pipe(Schema.maxLength(40))),
  city: Schema.optional(Schema.String.pipe(Schema.maxLength(40))),
  address: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  postalCode: Schema.optional(Schema.String.pipe(Schema.maxLength(40))),
  dateOfBirth: Schema.optional(Schema.String.pipe(Schema.maxLength(40))),
  documentId: Schema.optional(Schema.String.pipe(Schema.maxLength(100)))
})

const SessionInfo = Schema.Struct({ redirectUrl: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))) })

/** @since 0.1.0 @category schemas */
export const RecurrentParent = Schema.Struct({ invoiceID: Identifier, paymentID: Identifier })

/** The payer as a merchant sends it. @since 0.1.0 @category schemas */
export const PayerParams = Schema.Union(
  Schema.Struct({
    payerType: Schema.Literal("PaymentResourcePayer"),
    paymentToolToken: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
    paymentSession: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
    contactInfo: ContactInfo,
    sessionInfo: Schema.optional(SessionInfo)
  }),
  Schema.Struct({ payerType: Schema.Literal("CustomerPayer"), customerID: Identifier }),
  Schema.Struct({
    payerType: Schema.Literal("RecurrentPayer"),
    contactInfo: ContactInfo,
    recurrentParentPayment: RecurrentParent
  })
)
/** @since 0.1.0 */
export type PayerParams = typeof PayerParams.Type

/** The payer as Kassa answers it. @since 0.1.0 @category schemas */
export const Payer = Schema.Union(
  Schema.Struct({
    payerType: Schema.Literal("PaymentResourcePayer"),
    paymentToolToken: Schema.String,
    paymentSession: Schema.String,
    paymentToolDetails: PaymentToolDetails,
    clientInfo: ClientInfo,
    contactInfo: ContactInfo,
    sessionInfo: Schema.optional(SessionInfo)
  }),
  Schema.Struct({
    payerType: Schema.Literal("CustomerPayer"),
    customerID: Schema.String,
    paymentToolDetails: Schema.optional(PaymentToolDetails)
  }),
  Schema.Struct({
    payerType: Schema.Literal("RecurrentPayer"),
    contactInfo: ContactInfo,
    recurrentParentPayment: RecurrentParent,
    paymentToolDetails: Schema.optional(PaymentToolDetails)
  })
)
/** @since 0.1.0 */
export type Payer = typeof Payer.Type

/** @since 0.1.0 @category schemas */
export const TransactionInfo = Schema.Struct({ rrn: Schema.String, approvalCode: Schema.String })

/**
 * The payment as the interface shows it.
 *
 * @since 0.1.0 @category schemas
 */
export const Payment = Schema.Struct({
  id: Schema.String,
  externalID: Schema.optional(Schema.String),
  invoiceID: Schema.String,
  createdAt: DateTime,
  amount: Schema.Int,
  currency: Schema.String,
  flow: Flow,
  payer: Payer,
  transactionInfo: Schema.optional(TransactionInfo),
  makeRecurrent: Schema.Boolean,
  metadata: Schema.optional(Metadata),
  allocation: Schema.optional(Schema.Array(Allocation.AllocationTransaction)),
  status: PaymentStatus,
  error: Schema.optional(PaymentError),
  /**
   * Kassa's own field: `true` once accepted chargebacks took the whole payment back. `status`
   * keeps a value the specification lists (it has no `charged_back`).
   */
  chargedBack: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "Payment" })
/** @since 0.1.0 */
export type Payment = typeof Payment.Type

/** createPayment's body. @since 0.1.0 @category schemas */
export const PaymentParams = Schema.Struct({
  externalID: Schema.optional(Identifier),
  flow: FlowParams,
  payer: PayerParams,
  processingDeadline: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))),
  makeRecurrent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  metadata: Schema.optional(Metadata)
}).annotations({ identifier: "PaymentParams" })
/** @since 0.1.0 */
export type PaymentParams = typeof PaymentParams.Type

/** capturePayment's body. @since 0.1.0 @category schemas */
export const CaptureParams = Schema.Struct({
  reason: Schema.String.pipe(Schema.maxLength(1000)),
  amount: Schema.optional(Amount),
  currency: Schema.optional(Currency),
  cart: Schema.optional(Cart.CartParam),
  allocation: Schema.optional(Allocation.AllocationParams)
}).annotations({ identifier: "CaptureParams" })
/** @since 0.1.0 */
export type CaptureParams = typeof CaptureParams.Type

/**
 * What the payment is doing: the internal activity behind its public status.
 *
 * - `processing`: authorising with the acquirer (pending)
 * - `interaction`: waiting for the payer's 3-D Secure challenge (pending)
 * - `waiting`: authorised, a hold waits for capture or cancel (processed)
 * - `capturing` / `cancelling`: finishing with the acquirer (processed)
 * - `done`: final
 *
 * @since 0.1.0 @category models
 */
export type Activity = "processing" | "interaction" | "waiting" | "capturing" | "cancelling" | "done"

/** The capture a payment is finishing. @since 0.1.0 @category models */
export interface CaptureIntent {
  readonly amount: number
  readonly reason: string
  readonly cart?: ReadonlyArray<Cart.InvoiceLine> | undefined
  readonly allocation?: ReadonlyArray<Allocation.AllocationTransaction> | undefined
}

/**
 * The payment as stored.
 *
 * @since 0.1.0 @category models
 */
export interface PaymentRecord extends Payment {
  readonly partyID: string
  readonly shopID: string
  /** The amount authorised; `amount` becomes the captured amount. */
  readonly authorizedAmount: number
  readonly activity: Activity
  readonly tool: StoredTool | { readonly type: "Recurrent"; readonly recurrentToken: string; readonly paymentSystem?: string | undefined }
  readonly vaultSession: string | undefined
  readonly processingDeadline: Date | undefined
  readonly capture: CaptureIntent | undefined
  readonly cancelReason: string | undefined
  readonly interactionID: string | undefined
  readonly recurrentToken: string | undefined
  readonly cart: ReadonlyArray<Cart.InvoiceLine> | undefined
  readonly fee: number
  readonly statusChangedAt: Date
  readonly version: number
}

/** The payment as the interface answers a read. @since 0.1.0 */
export const toPayment = (r: PaymentRecord): Payment => ({
  id: r.id,
  ...(r.externalID === undefined ? {} : { externalID: r.externalID }),
  invoiceID: r.invoiceID,
  createdAt: r.createdAt,
  amount: r.amount,
  currency: r.currency,
  flow: r.flow,
  payer: r.payer,
  ...(r.transactionInfo === undefined ? {} : { transactionInfo: r.transactionInfo }),
  makeRecurrent: r.makeRecurrent,
  ...(r.metadata === undefined ? {} : { metadata: r.metadata }),
  ...(r.allocation === undefined ? {} : { allocation: r.allocation }),
  status: r.status,
  ...(r.error === undefined ? {} : { error: r.error }),
  ...(r.chargedBack === true ? { chargedBack: true } : {})
})

/**
 * The payment error the merchant sees: `{code, subError?}` nested, from the interface's tree.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category models */
export interface PaymentError {
  readonly code: string
  readonly subError?: PaymentError | undefined
}

/** @since 0.1.0 @category schemas */
export const PaymentError: Schema.Schema<PaymentError> = Schema.Struct({
  code: Schema.String,
  subError: Schema.optional(Schema.suspend((): Schema.Schema<PaymentError> => PaymentError))
}).annotations({ identifier: "PaymentError" })

/** Builds the nested error from a path of codes: `of("authorization_failed", "insufficient_funds")`. @since 0.1.0 */
export const of = (...codes: ReadonlyArray<string>): PaymentError => {
  const [code, ...rest] = codes
  return rest.length === 0 ? { code: code! } : { code: code!, subError: of(...rest) }
}

/** The path of codes of an error: the inverse of `of`. @since 0.1.0 */
export const path = (e: PaymentError): ReadonlyArray<string> => [e.code, ...(e.subError ? path(e.subError) : [])]

/**
 * Every path of the interface's merchant error tree (each prefix is itself a valid error).
 *
 * @since 0.1.0
 */
export const TREE: ReadonlyArray<ReadonlyArray<string>> = [
  ["timeout"],
  ["rejected_by_inspector"],
  ["preauthorization_failed"],
  ["authorization_failed", "unknown"],
  ["authorization_failed", "merchant_blocked"],
  ["authorization_failed", "operation_blocked"],
  ["authorization_failed", "account_not_found"],
  ["authorization_failed", "account_blocked"],
  ["authorization_failed", "account_stolen"],
  ["authorization_failed", "insufficient_funds"],
  ["authorization_failed", "account_limit_exceeded", "unknown"],
  ["authorization_failed", "account_limit_exceeded", "amount"],
  ["authorization_failed", "account_limit_exceeded", "number"],
  ["authorization_failed", "provider_limit_exceeded", "unknown"],
  ["authorization_failed", "provider_limit_exceeded", "amount"],
  ["authorization_failed", "provider_limit_exceeded", "number"],
  ["authorization_failed", "payment_tool_rejected", "unknown"],
  ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "unknown"],
  ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_number_invalid"],
  ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_expired"],
  ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_holder_invalid"],
  ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "cvv_invalid"],
  ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "issuer_not_found"],
  ["authorization_failed", "security_policy_violated"],
  ["authorization_failed", "temporarily_unavailable"],
  ["authorization_failed", "rejected_by_issuer"],
  ["authorization_failed", "processing_deadline_reached"]
]

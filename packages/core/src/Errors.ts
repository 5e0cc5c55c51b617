/**
 * The business error taxonomy of the interface.
 *
 * Every error carries its wire data (`code`, `message`, …) and its kind of answer; the HTTP
 * package turns the kind into a status in one place. Core knows nothing of HTTP.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The `code` values of the interface's business errors (400 `{code, message}`), plus the codes the
 * specifications add (`inconsistentCaptureCurrency`, `amountExceededCaptureBalance`).
 *
 * @since 0.1.0 @category models
 */
export const BusinessCode = Schema.Literal(
  "operationNotPermitted",
  "invalidPartyStatus",
  "invalidShopStatus",
  "invalidContractStatus",
  "invalidShopID",
  "invalidInvoiceCost",
  "invalidInvoiceCart",
  "invalidInvoiceStatus",
  "invoiceTermsViolated",
  "invoicePaymentPending",
  "invalidPaymentStatus",
  "invalidPaymentResource",
  "invalidPaymentToolToken",
  "invalidProcessingDeadline",
  "invalidPaymentSession",
  "invalidRecurrentParent",
  "insufficentAccountBalance",
  "invoicePaymentAmountExceeded",
  "inconsistentRefundCurrency",
  "inconsistentCaptureCurrency",
  "amountExceededCaptureBalance",
  "changesetConflict",
  "invalidChangeset",
  "invalidClaimStatus",
  "invalidClaimRevision",
  "limitExceeded",
  "invalidDeadline",
  "chargebackInProgress",
  "invalidRequest",
  "invalidPartyID",
  "ambiguousPartyID",
  "invalidAllocation",
  "allocationNotPermitted",
  "refundCartConflict"
)
/** @since 0.1.0 */
export type BusinessCode = typeof BusinessCode.Type

/**
 * A business rule refused the command: answered as 400 `{code, message}`.
 *
 * @since 0.1.0 @category errors
 */
export class BusinessError extends Schema.TaggedError<BusinessError>()("BusinessError", {
  code: BusinessCode,
  message: Schema.String
}) {
  /** @since 0.1.0 */
  static of(code: BusinessCode, message: string): BusinessError {
    return new BusinessError({ code, message })
  }
}

/**
 * The object does not exist or belongs to another party: answered as 404 `{message}`.
 *
 * @since 0.1.0 @category errors
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {
  /** @since 0.1.0 */
  static of(what: string, id: string | number): NotFound {
    return new NotFound({ message: `${what} not found: ${id}` })
  }
}

/**
 * An `externalID` was reused with different parameters: answered as 409 `{externalID, id, message}`.
 *
 * @since 0.1.0 @category errors
 */
export class ExternalIdConflict extends Schema.TaggedError<ExternalIdConflict>()("ExternalIdConflict", {
  externalID: Schema.String,
  id: Schema.String,
  message: Schema.String
}) {}

/**
 * A quota was exceeded (for example, too many webhooks): answered as 429 `{message}`.
 *
 * @since 0.1.0 @category errors
 */
export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  message: Schema.String
}) {}

/**
 * The credentials are missing, invalid, expired, revoked or do not open this operation:
 * answered as 401 with no body.
 *
 * @since 0.1.0 @category errors
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String
}) {}

/**
 * The wallet interface's refusals (422 `{message}`): the message is the wire's, word for word.
 *
 * @since 0.1.0 @category models
 */
export const InvalidOperationMessage = Schema.Literal(
  "Party inaccessible",
  "Party does not exist",
  "No such provider",
  "No such identity class",
  "Identity inaccessible",
  "No such identity",
  "Currency not supported",
  "Invalid expiration: already expired",
  "No such wallet",
  "Wallet inaccessible",
  "No such wallet sender",
  "No such wallet receiver",
  "Currency not allowed",
  "Bad transfer amount",
  "Inconsistent currency",
  "No such challenge type",
  "Proof not found",
  "Insufficient proof",
  "Illegal identification type for current identity level",
  "No such deposit",
  "Invalid deposit status",
  "Insufficient deposit amount",
  "Invalid adjustment status",
  "Invalid cash amount",
  "Sender and receiver are one wallet",
  "Resource type not allowed",
  "No such destination",
  "Destination unauthorized",
  "Destination uses resource no longer allowed",
  "Wallet unauthorized",
  "Forbidden currency",
  "Invalid currency",
  "This wallet and destination cannot be used together",
  "Unknown card issuer",
  "Quote token expired",
  "Withdrawal owner differs from quote`s one",
  "Withdrawal wallet differs from quote`s one",
  "Withdrawal destination differs from quote`s one",
  "Withdrawal body differs from quote`s one"
)
/** @since 0.1.0 */
export type InvalidOperationMessage = typeof InvalidOperationMessage.Type

/**
 * A wallet operation refused its parameters: answered as 422 `{message}`.
 *
 * @since 0.1.0 @category errors
 */
export class InvalidOperation extends Schema.TaggedError<InvalidOperation>()("InvalidOperation", {
  message: InvalidOperationMessage
}) {
  /** @since 0.1.0 */
  static of(message: InvalidOperationMessage): InvalidOperation {
    return new InvalidOperation({ message })
  }
}

/**
 * The command conflicts with work in progress on the object `id` (a second pending identity
 * challenge, a second pending adjustment): answered as 409 `{id, message}`.
 *
 * @since 0.1.0 @category errors
 */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  id: Schema.String,
  message: Schema.String
}) {}

/**
 * Any error of the taxonomy.
 *
 * @since 0.1.0 @category errors
 */
export type DomainError =
  | BusinessError
  | NotFound
  | ExternalIdConflict
  | LimitExceeded
  | Unauthorized
  | InvalidOperation
  | Conflict

/** Shorthand constructors for the most common business errors. @since 0.1.0 */
export const invalidRequest = (message: string) => BusinessError.of("invalidRequest", message)
/** @since 0.1.0 */
export const invalidPartyStatus = (message = "Party is blocked or suspended") => BusinessError.of("invalidPartyStatus", message)
/** @since 0.1.0 */
export const invalidShopStatus = (message = "Shop is blocked or suspended") => BusinessError.of("invalidShopStatus", message)

/**
 * The `errorType` values of the wallet and card-token interfaces' 400 `BadRequest` (the older
 * revision adds `AmbiguousPartyID`).
 *
 * @since 0.1.0 @category models
 */
export const ParameterErrorType = Schema.Literal(
  "SchemaViolated",
  "NotFound",
  "WrongType",
  "NotInRange",
  "WrongSize",
  "WrongLength",
  "WrongArray",
  "NoMatch",
  "InvalidResourceToken",
  "InvalidToken",
  "AmbiguousPartyID"
)
/** @since 0.1.0 */
export type ParameterErrorType = typeof ParameterErrorType.Type

/**
 * A parameter of a wallet or card-token operation was refused: answered as 400
 * `{errorType, name, description}` (`name` the parameter, `description` what is wrong).
 *
 * @since 0.1.0 @category errors
 */
export class InvalidParameter extends Schema.TaggedError<InvalidParameter>()("InvalidParameter", {
  errorType: ParameterErrorType,
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String)
}) {
  /** @since 0.1.0 */
  static of(errorType: ParameterErrorType, name: string, description: string): InvalidParameter {
    return new InvalidParameter({ errorType, name, description })
  }
}

/**
 * Card data the card-token interface cannot keep: answered as 422 `InvalidBankCard {message}`.
 *
 * @since 0.1.0 @category errors
 */
export class InvalidBankCard extends Schema.TaggedError<InvalidBankCard>()("InvalidBankCard", {
  message: Schema.Literal("Card data is invalid", "Unsupported card")
}) {}

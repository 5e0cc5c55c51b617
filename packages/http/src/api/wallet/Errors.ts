/**
 * The wire form of core's errors on the wallet and card-token interfaces, for the contract and
 * its document. The server answers them in one place (`server/wallet/WalletWire`):
 *
 * - `InvalidParameter` → 400 `BadRequest {errorType, name, description}`
 * - `Unauthorized` → 401, `NotFound` → 404, both without a body
 * - `ExternalIdConflict` → 409 `ConflictRequest {externalID, id, message}`, `Conflict` → 409
 *   `{id, message}`
 * - `InvalidOperation` → 422 `{message}`, `InvalidBankCard` → 422 `{message}`
 *
 * @since 0.1.0
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Errors } from "@kassa/core"
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category errors */
export const BadRequest = Schema.transform(
  Schema.Struct({
    errorType: Errors.ParameterErrorType,
    name: Schema.optional(Schema.String),
    description: Schema.optional(Schema.String)
  }),
  Schema.typeSchema(Errors.InvalidParameter),
  { strict: false, decode: (w) => new Errors.InvalidParameter(w), encode: (e) => e }
).annotations(HttpApiSchema.annotations({ status: 400, identifier: "BadRequest" }))

/**
 * 409 `ConflictRequest`: an `externalID` reused with other parameters, or work in progress on the
 * object `id` (a second pending identity challenge).
 *
 * @since 0.1.0 @category errors
 */
export const ConflictRequest = Schema.transform(
  Schema.Struct({
    externalID: Schema.optional(Schema.String),
    id: Schema.optional(Schema.String),
    message: Schema.optional(Schema.String)
  }),
  Schema.Union(Schema.typeSchema(Errors.ExternalIdConflict), Schema.typeSchema(Errors.Conflict)),
  {
    strict: false,
    decode: (w) =>
      w.externalID === undefined
        ? new Errors.Conflict({ id: w.id ?? "", message: w.message ?? "" })
        : new Errors.ExternalIdConflict({ externalID: w.externalID, id: w.id ?? "", message: w.message ?? "" }),
    // a conflict with work in progress involves no externalID
    encode: (e) => (e._tag === "Conflict" || e.externalID === "" ? { id: e.id, message: e.message } : e)
  }
).annotations(HttpApiSchema.annotations({ status: 409, identifier: "ConflictRequest" }))

/** @since 0.1.0 @category errors */
export const InvalidOperationParameters = Schema.transform(
  Schema.Struct({ message: Errors.InvalidOperationMessage }),
  Schema.typeSchema(Errors.InvalidOperation),
  { strict: false, decode: (w) => new Errors.InvalidOperation(w), encode: (e) => e }
).annotations(HttpApiSchema.annotations({ status: 422, identifier: "InvalidOperationParameters" }))

/** The card-token interface's 422. @since 0.1.0 @category errors */
export const InvalidBankCard = Schema.transform(
  Schema.Struct({ message: Schema.Literal("Card data is invalid", "Unsupported card") }),
  Schema.typeSchema(Errors.InvalidBankCard),
  { strict: false, decode: (w) => new Errors.InvalidBankCard(w), encode: (e) => e }
).annotations(HttpApiSchema.annotations({ status: 422, identifier: "InvalidBankCard" }))

/** @since 0.1.0 @category errors */
export const NotFound = Schema.typeSchema(Errors.NotFound).pipe(
  HttpApiSchema.asEmpty({ status: 404, decode: () => new Errors.NotFound({ message: "Not found" }) })
)

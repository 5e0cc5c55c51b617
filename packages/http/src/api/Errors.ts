/**
 * The wire form of core's errors: one place decides each kind's status and body.
 *
 * - `BusinessError` → 400 `{code, message}`
 * - `NotFound` → 404 `{message}`
 * - `ExternalIdConflict` → 409 `{externalID, id, message}`
 * - `LimitExceeded` → 429 `{message}`
 * - `Unauthorized` → 401, no body
 *
 * The bodies carry no `_tag`: each schema decodes the wire struct into the core class and
 * encodes the class back to the struct.
 *
 * @since 0.1.0
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Errors } from "@kassa/core"
import * as Schema from "effect/Schema"

const wire = <Fields extends Schema.Struct.Fields, C extends Schema.Schema.AnyNoContext>(
  identifier: string,
  status: number,
  fields: Fields,
  cls: C,
  make: (wire: Schema.Struct.Type<Fields>) => Schema.Schema.Type<C>
) =>
  Schema.transform(Schema.Struct(fields), Schema.typeSchema(cls), {
    strict: false,
    decode: (w) => make(w as Schema.Struct.Type<Fields>),
    encode: (e) => e
  }).annotations(HttpApiSchema.annotations({ status, identifier }))

/** @since 0.1.0 @category errors */
export const BusinessError = wire(
  "BusinessError",
  400,
  { code: Errors.BusinessCode, message: Schema.String },
  Errors.BusinessError,
  (w) => new Errors.BusinessError(w)
)

/** @since 0.1.0 @category errors */
export const NotFound = wire(
  "GeneralError",
  404,
  { message: Schema.String },
  Errors.NotFound,
  (w) => new Errors.NotFound(w)
)

/** @since 0.1.0 @category errors */
export const ExternalIdConflict = wire(
  "ExternalIDConflictError",
  409,
  { externalID: Schema.String, id: Schema.String, message: Schema.String },
  Errors.ExternalIdConflict,
  (w) => new Errors.ExternalIdConflict(w)
)

/** @since 0.1.0 @category errors */
export const LimitExceeded = wire(
  "LimitExceededError",
  429,
  { message: Schema.String },
  Errors.LimitExceeded,
  (w) => new Errors.LimitExceeded(w)
)

/** @since 0.1.0 @category errors */
export const Unauthorized = Schema.typeSchema(Errors.Unauthorized).pipe(
  HttpApiSchema.asEmpty({ status: 401, decode: () => new Errors.Unauthorized({ message: "Unauthorized" }) })
)

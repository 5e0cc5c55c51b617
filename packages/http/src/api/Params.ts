/**
 * Path and query parameter schemas shared by the groups.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A 1..40 character identifier. @since 0.1.0 */
export const Id = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

/** `partyID` in paths: the specification gives no bounds. @since 0.1.0 */
export const PartyIdParam = Schema.String.pipe(Schema.minLength(1))

/** An int32 path parameter. @since 0.1.0 */
export const Int32FromString = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.between(-2147483648, 2147483647)
)

/** @since 0.1.0 */
export const CountryCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/))

/** @since 0.1.0 */
export const CurrencyCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/))

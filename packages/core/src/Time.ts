/**
 * Date-times as the interface writes them: RFC 3339 with an explicit UTC offset.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/

/**
 * A date-time in, a `Date` inside, an ISO string (UTC) out.
 *
 * @since 0.1.0 @category schemas
 */
export const DateTime = Schema.transform(
  Schema.String.pipe(
    Schema.pattern(rfc3339, { message: () => "Expected an RFC 3339 date-time with an offset" })
  ),
  Schema.ValidDateFromSelf,
  { strict: true, decode: (s) => new Date(s), encode: (d) => d.toISOString() }
).annotations({ identifier: "DateTime", jsonSchema: { type: "string", format: "date-time" } })

/** Free-form JSON object (`metadata`). @since 0.1.0 @category schemas */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })
/** @since 0.1.0 */
export type Metadata = typeof Metadata.Type

/** Adds whole days to a date. @since 0.1.0 */
export const addDays = (d: Date, days: number): Date => new Date(d.getTime() + days * 86_400_000)

/**
 * Date-times as the interface writes them: RFC 3339 with an explicit UTC offset.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as JsonLimits from "./JsonLimits.js"

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
const daysInMonth = (y: number, m: number) => (m === 2 ? (isLeapYear(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31)

/**
 * The moment an RFC 3339 date-time with an offset names, or `undefined` when the text is not
 * one or names none (30 February, 25:00, an offset of +24:00): `Date` would roll those over
 * into another day. A space in place of the `T` is taken only where `space` says so.
 *
 * @since 0.1.0
 */
export const parseDateTime = (text: string, options?: { readonly space?: boolean }): Date | undefined => {
  const m = rfc3339.exec(text)
  if (m === null || (text[10] === " " && options?.space !== true)) return undefined
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((f) =>
    f === undefined ? undefined : Number(f)
  ) as [number, number, number, number, number, number, number?, number?]
  const exists = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) &&
    hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59
  if (!exists) return undefined
  const at = new Date(text)
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** A date-time as text, checked as `parseDateTime` checks it. @since 0.1.0 @category schemas */
export const DateTimeText = Schema.String.pipe(
  Schema.filter((s) => parseDateTime(s) !== undefined, {
    message: () => "Expected an RFC 3339 date-time with an offset, naming a day and time that exist"
  })
).annotations({ jsonSchema: { type: "string", format: "date-time" } })

/**
 * A date-time in, a `Date` inside, an ISO string (UTC) out.
 *
 * @since 0.1.0 @category schemas
 */
export const DateTime = Schema.transform(
  DateTimeText,
  Schema.ValidDateFromSelf,
  { strict: true, decode: (s) => new Date(s), encode: (d) => d.toISOString() }
).annotations({ identifier: "DateTime", jsonSchema: { type: "string", format: "date-time" } })

/**
 * Free-form JSON object (`metadata`), nested at most `JsonLimits.maxDepth` levels and holding no
 * NUL character.
 *
 * @since 0.1.0 @category schemas
 */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((value) => {
    const violation = JsonLimits.check(value)
    if (violation === undefined) return true
    const at = violation.path.length === 0 ? "" : ` (at ${JsonLimits.pathText(violation.path)})`
    return JsonLimits.describe(violation) + at
  })
)
/** @since 0.1.0 */
export type Metadata = typeof Metadata.Type

/** Adds whole days to a date. @since 0.1.0 */
export const addDays = (d: Date, days: number): Date => new Date(d.getTime() + days * 86_400_000)

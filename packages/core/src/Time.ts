/**
 * Date-times as the interface writes them: RFC 3339 with an explicit UTC offset.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as JsonLimits from "./JsonLimits.js"

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
const daysInMonth = (y: number, m: number) => (m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31)

/** The milliseconds of a fraction of a second's digits, truncated as `Date` reads them. */
const millisOf = (digits: string | undefined): number =>
  digits === undefined ? 0 : Number(digits.length >= 3 ? digits.slice(0, 3) : digits.padEnd(3, "0"))

/** `Date.UTC`, except that it reads years 0–99 as 1900–1999. */
const utc = (year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number => {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms)
  const at = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms))
  return at.setUTCFullYear(year, month - 1, day)
}

/**
 * The moment an RFC 3339 date-time with an offset names, or `undefined` when the text is not
 * one or names none (30 February, 25:00, an offset of +24:00): `Date` would roll those over
 * into another day. A space in place of the `T` is taken only where `space` says so.
 *
 * @since 0.1.0
 */
export const parseDateTime = (text: string, options?: { readonly space?: boolean }): Date | undefined => {
  const ms = parseMillis(text, options?.space === true)
  return ms === undefined ? undefined : new Date(ms)
}

/** `parseDateTime`'s moment in milliseconds since the epoch, read from the text's fields. */
const parseMillis = (text: string, space: boolean): number | undefined => {
  const m = rfc3339.exec(text)
  if (m === null || (text[10] === " " && !space)) return undefined
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3])
  const hour = Number(m[4]), minute = Number(m[5]), second = Number(m[6])
  const offsetHours = m[8] === undefined ? 0 : Number(m[9]), offsetMinutes = m[8] === undefined ? 0 : Number(m[10])
  const exists = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) &&
    hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59
  if (!exists) return undefined
  const offset = (m[8] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  return utc(year, month, day, hour, minute, second, millisOf(m[7])) - offset
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
  { strict: true, decode: (s) => parseDateTime(s)!, encode: (d) => d.toISOString() }
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

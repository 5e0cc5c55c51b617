/**
 * Deadlines as the interface writes them (`X-Request-Deadline`, `processingDeadline`): an
 * RFC 3339 date-time with an explicit offset, or a time relative to now in `ms`, `s` or `m`
 * (fractions allowed: `150000ms`, `540s`, `3.5m`).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

const relative = /^(\d+(?:\.\d+)?)(ms|s|m)$/
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/
const unit = { ms: 1, s: 1000, m: 60_000 } as const

/** The largest moment a `Date` holds. */
const MAX_TIME = 8.64e15

/** Whether the fields of an RFC 3339 date-time name a moment that exists. */
const exists = (m: RegExpExecArray): boolean => {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const offsetHours = m[7] === undefined ? 0 : Number(m[7])
  const offsetMinutes = m[8] === undefined ? 0 : Number(m[8])
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate() &&
    hour <= 23 && minute <= 59 && second <= 60 && offsetHours <= 23 && offsetMinutes <= 59
}

/**
 * The moment a deadline names, or `None` when the text is not a deadline.
 *
 * @since 0.1.0
 */
export const parse = (text: string, now: Date): Option.Option<Date> => {
  const r = relative.exec(text)
  if (r !== null) {
    const at = now.getTime() + Math.round(Number(r[1]) * unit[r[2] as keyof typeof unit])
    return Number.isFinite(at) && Math.abs(at) <= MAX_TIME ? Option.some(new Date(at)) : Option.none()
  }
  const m = rfc3339.exec(text)
  if (m === null || !exists(m)) return Option.none()
  const at = new Date(text)
  return Number.isNaN(at.getTime()) ? Option.none() : Option.some(at)
}

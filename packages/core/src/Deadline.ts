/**
 * Deadlines as the interface writes them (`X-Request-Deadline`, `processingDeadline`): an
 * RFC 3339 date-time with an explicit offset, or a time relative to now in `ms`, `s` or `m`
 * (fractions allowed: `150000ms`, `540s`, `3.5m`).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import { parseDateTime } from "./Time.js"

const relative = /^(\d+(?:\.\d+)?)(ms|s|m)$/
const unit = { ms: 1, s: 1000, m: 60_000 } as const

/** The largest moment a `Date` holds. */
const MAX_TIME = 8.64e15

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
  return Option.fromNullable(parseDateTime(text, { space: true }))
}

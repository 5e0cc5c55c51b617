import { assert, describe, it } from "@effect/vitest"
import { MAX_ATTEMPTS, nextAttemptAt, offsetOfAttempt, WINDOW_MS } from "@kassa/core/webhook/RetrySchedule"
import * as Option from "effect/Option"

const S = 1000
const M = 60 * S
const H = 60 * M
const first = new Date(Date.UTC(2030, 0, 1, 0, 0, 0))
const next = (attempts: number) => Option.map(nextAttemptAt(first, attempts), (d) => d.getTime() - first.getTime())

describe("RetrySchedule.nextAttemptAt", () => {
  it("retries after 30 s, 5 min, 15 min, 1 h, then hourly", () => {
    assert.deepStrictEqual(next(1), Option.some(30 * S))
    assert.deepStrictEqual(next(2), Option.some(30 * S + 5 * M))
    assert.deepStrictEqual(next(3), Option.some(30 * S + 20 * M))
    assert.deepStrictEqual(next(4), Option.some(30 * S + 20 * M + H))
    assert.deepStrictEqual(next(5), Option.some(30 * S + 20 * M + 2 * H))
    assert.deepStrictEqual(next(6), Option.some(30 * S + 20 * M + 3 * H))
  })

  it("the exact instants of the whole schedule", () => {
    const instants: Array<string> = []
    for (let n = 1; Option.isSome(nextAttemptAt(first, n)); n++) instants.push(Option.getOrThrow(nextAttemptAt(first, n)).toISOString())
    assert.deepStrictEqual(instants, [
      "2030-01-01T00:00:30.000Z",
      "2030-01-01T00:05:30.000Z",
      "2030-01-01T00:20:30.000Z",
      ...Array.from({ length: 23 }, (_, i) => `2030-01-01T${String(i + 1).padStart(2, "0")}:20:30.000Z`)
    ])
  })

  it("stops within 24 h of the first attempt: 27 attempts in all", () => {
    assert.deepStrictEqual(next(26), Option.some(23 * H + 20 * M + 30 * S))
    assert.isTrue(Option.isNone(nextAttemptAt(first, 27)))
    assert.isTrue(Option.isNone(nextAttemptAt(first, 100)))
    assert.strictEqual(MAX_ATTEMPTS, 27)
    assert.isBelow(offsetOfAttempt(MAX_ATTEMPTS), WINDOW_MS)
    assert.isAtLeast(offsetOfAttempt(MAX_ATTEMPTS + 1), WINDOW_MS)
  })

  it("before any attempt, the first is due at once", () => {
    assert.deepStrictEqual(next(0), Option.some(0))
  })

  it("is a pure function of the first attempt and the count", () => {
    const other = new Date(first.getTime() + 123_456)
    for (let n = 1; n <= 27; n++) {
      assert.deepStrictEqual(
        Option.map(nextAttemptAt(other, n), (d) => d.getTime() - other.getTime()),
        next(n)
      )
    }
  })
})

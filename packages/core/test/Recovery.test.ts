/** The recovery backoff, as a schedule: monotone, capped, and bounded in total. */
import { assert, describe, it } from "@effect/vitest"
import * as Recovery from "@kassa/core/Recovery"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"

const backoff = FastCheck.record({
  recoveryDelayMs: FastCheck.integer({ min: 1, max: 120_000 }),
  recoveryMaxDelayMs: FastCheck.integer({ min: 1, max: 3_600_000 })
})

describe("Recovery", () => {
  it("the defaults wait 10 s, doubling to 10 min", () => {
    const delays = Effect.runSync(Recovery.delays({ recoveryDelayMs: 10_000, recoveryMaxDelayMs: 600_000 }, 9))
    assert.deepStrictEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000, 600_000])
  })

  it("waits double from the first delay, never shrink and never pass the cap", () =>
    FastCheck.assert(FastCheck.property(backoff, FastCheck.integer({ min: 1, max: 80 }), (s, n) => {
      const delays = Effect.runSync(Recovery.delays(s, n))
      const cap = Math.max(s.recoveryDelayMs, s.recoveryMaxDelayMs)
      assert.strictEqual(delays.length, n)
      delays.forEach((d, i) => {
        assert.strictEqual(d, Math.min(cap, s.recoveryDelayMs * 2 ** i))
        if (i > 0) assert.isAtLeast(d, delays[i - 1]!)
      })
    })))

  it("the retries within a window are bounded: the doublings to the cap, then one per cap", () =>
    FastCheck.assert(FastCheck.property(backoff, FastCheck.integer({ min: 0, max: 200 }), FastCheck.double({ min: 0, max: 1, noNaN: true }), (s, caps, rest) => {
      const cap = Math.max(s.recoveryDelayMs, s.recoveryMaxDelayMs)
      const window = Math.max(1, Math.floor((caps + rest) * cap))
      const bound = Math.ceil(Math.log2(cap / s.recoveryDelayMs)) + Math.ceil(window / cap) + 1
      const delays = Effect.runSync(Recovery.delays(s, bound + 1))
      let total = 0
      let retries = 0
      for (const d of delays) {
        if (total + d > window) break
        total += d
        retries++
      }
      assert.isAtMost(total, window)
      assert.isAtMost(retries, bound)
    })))

  it("the next timer counts its attempt and is never due past the work's end", () =>
    FastCheck.assert(FastCheck.property(
      backoff,
      FastCheck.integer({ min: 0, max: 40 }),
      FastCheck.integer({ min: 0, max: 10_000_000 }),
      FastCheck.option(FastCheck.integer({ min: 1, max: 10_000_000 }), { nil: undefined }),
      (s, attempt, now, ahead) => {
        const timer = { kind: "k", subject: "s", dueAt: new Date(now), payload: attempt === 0 ? null : { attempt } }
        const next = Effect.runSync(Recovery.next(s, timer, now, ahead === undefined ? undefined : now + ahead))
        const delay = Effect.runSync(Recovery.delayOf(s, attempt))
        assert.strictEqual(Recovery.attemptOf(next), attempt + 1)
        assert.strictEqual(next.dueAt.getTime(), now + Math.min(delay, ahead ?? Infinity))
      }
    ), { numRuns: 200 }))

  it("a payload that is no attempt count is a fresh timer", () => {
    for (const payload of [null, undefined, "3", { attempt: -1 }, { attempt: 1.5 }, { other: 2 }]) {
      assert.strictEqual(Recovery.attemptOf({ payload }), 0)
    }
    assert.strictEqual(Recovery.attemptOf({ payload: { attempt: 7 } }), 7)
  })
})

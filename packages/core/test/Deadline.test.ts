import { assert, describe, it } from "@effect/vitest"
import { Deadline } from "@kassa/core"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"

const now = new Date(Date.UTC(2025, 5, 15, 12, 0, 0, 0))

const parsedMs = (text: string, at: Date = now): number | undefined =>
  Option.match(Deadline.parse(text, at), { onNone: () => undefined, onSome: (d) => d.getTime() })

describe("Deadline.parse", () => {
  it("reads relative values in ms, s and m as now + milliseconds", () => {
    assert.strictEqual(parsedMs("150000ms"), now.getTime() + 150_000)
    assert.strictEqual(parsedMs("540s"), now.getTime() + 540_000)
    assert.strictEqual(parsedMs("3.5m"), now.getTime() + 210_000)
    assert.strictEqual(parsedMs("0ms"), now.getTime())
    assert.strictEqual(parsedMs("1.5s"), now.getTime() + 1_500)
    assert.strictEqual(parsedMs("1m"), now.getTime() + 60_000)
  })

  it("reads RFC 3339 date-times with Z", () => {
    assert.strictEqual(parsedMs("2024-01-01T10:00:00Z"), Date.UTC(2024, 0, 1, 10, 0, 0))
    assert.strictEqual(parsedMs("2030-12-31T23:59:59Z"), Date.UTC(2030, 11, 31, 23, 59, 59))
  })

  it("reads RFC 3339 date-times with offsets", () => {
    assert.strictEqual(parsedMs("2024-01-01T10:00:00+03:00"), Date.UTC(2024, 0, 1, 7, 0, 0))
    assert.strictEqual(parsedMs("2024-01-01T10:00:00-05:30"), Date.UTC(2024, 0, 1, 15, 30, 0))
    assert.strictEqual(parsedMs("2024-01-01T10:00:00+00:00"), Date.UTC(2024, 0, 1, 10, 0, 0))
  })

  it("reads fractional seconds", () => {
    assert.strictEqual(parsedMs("2024-01-01T10:00:00.123Z"), Date.UTC(2024, 0, 1, 10, 0, 0, 123))
    assert.strictEqual(parsedMs("2024-01-01T10:00:00.5+01:00"), Date.UTC(2024, 0, 1, 9, 0, 0, 500))
  })

  it("a date-time does not depend on now", () => {
    assert.strictEqual(parsedMs("2024-01-01T10:00:00Z", new Date(0)), parsedMs("2024-01-01T10:00:00Z", now))
  })

  it("rejects what is not a deadline", () => {
    for (
      const text of [
        "nope",
        "10h",
        "2024-01-01",
        "2024-01-01T10:00:00",
        "",
        "10",
        "ms",
        "-5s",
        " 30s",
        "30s ",
        "30 s",
        "1e3ms",
        "2024-01-01T10:00Z",
        "2024-01-01T10:00:00+0300"
      ]
    ) {
      assert.isTrue(Option.isNone(Deadline.parse(text, now)), JSON.stringify(text))
    }
  })

  it("rejects date-times that name no moment of the calendar", () => {
    for (const text of ["2024-13-01T10:00:00Z", "2024-02-30T10:00:00Z", "2023-02-29T10:00:00Z", "2024-01-01T24:00:00Z"]) {
      assert.isTrue(Option.isNone(Deadline.parse(text, now)), text)
    }
    // A leap day exists.
    assert.strictEqual(parsedMs("2024-02-29T10:00:00Z"), Date.UTC(2024, 1, 29, 10, 0, 0))
  })

  it("never answers an invalid Date: a relative value past the representable range is rejected", () => {
    for (const text of ["99999999999999999999m", "9999999999999999ms", "1".repeat(38) + "s"]) {
      const parsed = Deadline.parse(text, now)
      if (Option.isSome(parsed)) assert.fail(`${text} parsed to ${parsed.value.getTime()}`)
    }
  })

  it.prop(
    "for any integer n in 0..10^6, `${n}ms` is now + n",
    [FastCheck.integer({ min: 0, max: 1_000_000 }), FastCheck.integer({ min: 0, max: 4_000_000_000_000 })],
    ([n, at]) => {
      assert.strictEqual(parsedMs(`${n}ms`, new Date(at)), at + n)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "for any integer n in 0..10^4, `${n}s` and `${n}m` scale by 1000 and 60000",
    [FastCheck.integer({ min: 0, max: 10_000 })],
    ([n]) => {
      assert.strictEqual(parsedMs(`${n}s`), now.getTime() + n * 1000)
      assert.strictEqual(parsedMs(`${n}m`), now.getTime() + n * 60_000)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "an ISO string of any moment parses back to that moment",
    [FastCheck.integer({ min: 0, max: 253_402_300_799_999 })],
    ([ms]) => {
      assert.strictEqual(parsedMs(new Date(ms).toISOString()), ms)
    },
    { fastCheck: { numRuns: 200 } }
  )
})

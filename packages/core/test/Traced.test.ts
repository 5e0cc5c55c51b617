import { assert, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Traced from "../src/internal/traced.js"

/** The name of the span the body runs in, if any. */
const spanName = Traced.fn("Traced.test")(function*(suffix: string) {
  const span = yield* Effect.option(Effect.currentSpan)
  return Option.map(span, (s) => s.name + suffix)
})

it.effect("Traced.fn opens its span when the fiber traces", () =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* spanName("!"), Option.some("Traced.test!"))
  }))

it.effect("Traced.fn runs untraced, with its arguments, when tracing is off", () =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* spanName("!").pipe(Effect.withTracerEnabled(false)), Option.none())
    // an enclosing span stays the current one
    const inner = yield* spanName("?").pipe(Effect.withTracerEnabled(false), Effect.withSpan("outer"))
    assert.deepStrictEqual(inner, Option.some("outer?"))
  }))

/** The name of the span `Traced.span` runs the effect in, if any. */
const inSpan = Effect.option(Effect.currentSpan).pipe(Effect.map(Option.map((s) => s.name)), Traced.span("Traced.span"))

it.effect("Traced.span opens its span when the fiber traces, and none when tracing is off", () =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* inSpan, Option.some("Traced.span"))
    assert.deepStrictEqual(yield* inSpan.pipe(Effect.withTracerEnabled(false)), Option.none())
    assert.deepStrictEqual(yield* inSpan.pipe(Effect.withTracerEnabled(false), Effect.withSpan("outer")), Option.some("outer"))
  }))

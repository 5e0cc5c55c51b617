import { assert, describe, it } from "@effect/vitest"
import { Standing } from "@kassa/core"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const state = FastCheck.record({ isBlocked: FastCheck.boolean(), isSuspended: FastCheck.boolean() })
const command = FastCheck.constantFrom<Standing.StandingCommand>("suspend", "activate", "block", "unblock")
const commands = FastCheck.array(command, { minLength: 1, maxLength: 30 })
const runs = { fastCheck: { numRuns: 200 } }

/** The table of the interface: which flag each command names and the value it sets. */
const model = (s: Standing.Standing, c: Standing.StandingCommand): Either.Either<Standing.Standing, "blocked"> => {
  switch (c) {
    case "block":
      return Either.right({ isBlocked: true, isSuspended: s.isSuspended })
    case "unblock":
      return Either.right({ isBlocked: false, isSuspended: s.isSuspended })
    case "suspend":
      return s.isBlocked ? Either.left("blocked") : Either.right({ isBlocked: false, isSuspended: true })
    case "activate":
      return s.isBlocked ? Either.left("blocked") : Either.right({ isBlocked: false, isSuspended: false })
  }
}

describe("Standing.decide", () => {
  it("answers the table for every state and command", () => {
    for (const isBlocked of [false, true]) {
      for (const isSuspended of [false, true]) {
        for (const c of ["suspend", "activate", "block", "unblock"] as const) {
          const s = { isBlocked, isSuspended }
          assert.deepStrictEqual(Standing.decide(s, c), model(s, c), `${JSON.stringify(s)} ${c}`)
        }
      }
    }
  })

  it.prop("a blocked state refuses suspend and activate and never changes", [state, commands], ([initial, cs]) => {
    let s: Standing.Standing = { ...initial, isBlocked: true }
    for (const c of cs) {
      const before = { ...s }
      const next = Standing.decide(s, c)
      if (before.isBlocked && (c === "suspend" || c === "activate")) {
        assert.deepStrictEqual(next, Either.left("blocked"))
        assert.deepStrictEqual(s, before, "the refused command left the state as it was")
        continue
      }
      assert.isTrue(Either.isRight(next))
      s = Either.getOrThrow(next)
    }
  }, runs)

  it.prop("block and unblock always succeed and set only isBlocked", [state, FastCheck.constantFrom<Standing.StandingCommand>("block", "unblock")], ([s, c]) => {
    const next = Standing.decide(s, c)
    assert.isTrue(Either.isRight(next))
    assert.deepStrictEqual(Either.getOrThrow(next), { isBlocked: c === "block", isSuspended: s.isSuspended })
  }, runs)

  it.prop("suspend and activate are idempotent", [state, FastCheck.constantFrom<Standing.StandingCommand>("suspend", "activate")], ([s, c]) => {
    const once = Standing.decide(s, c)
    if (Either.isLeft(once)) {
      assert.isTrue(s.isBlocked)
      assert.deepStrictEqual(Standing.decide(s, c), once)
      return
    }
    const twice = Standing.decide(once.right, c)
    assert.deepStrictEqual(twice, once)
  }, runs)

  it.prop("isActive holds iff neither flag is set", [state], ([s]) => {
    assert.strictEqual(Standing.isActive(s), !s.isBlocked && !s.isSuspended)
  }, runs)

  it("the initial state is active", () => {
    assert.deepStrictEqual(Standing.active, { isBlocked: false, isSuspended: false })
    assert.isTrue(Standing.isActive(Standing.active))
  })

  it.prop(
    "random sequences from any state follow only the legal transitions",
    [state, commands],
    ([initial, cs]) => {
      let s: Standing.Standing = initial
      for (const c of cs) {
        const input = { ...s }
        const next = Standing.decide(s, c)
        assert.deepStrictEqual(s, input, "decide does not mutate its input")
        assert.deepStrictEqual(next, model(s, c), `${JSON.stringify(s)} ${c}`)
        if (Either.isRight(next)) {
          const t = next.right
          // Exactly the two fields, both booleans.
          assert.deepStrictEqual(Object.keys(t).sort(), ["isBlocked", "isSuspended"])
          // The merchant's commands never touch isBlocked; the platform's never touch isSuspended.
          if (c === "suspend" || c === "activate") assert.strictEqual(t.isBlocked, s.isBlocked)
          else assert.strictEqual(t.isSuspended, s.isSuspended)
          assert.strictEqual(Standing.isActive(t), !t.isBlocked && !t.isSuspended)
          s = t
        }
      }
    },
    runs
  )
})

import { assert, describe, it } from "@effect/vitest"
import { RequestDeadline } from "@kassa/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

const commit = (deadline: RequestDeadline.RequestDeadline) =>
  Effect.exit(Effect.locally(RequestDeadline.beforeCommit, RequestDeadline.current, deadline))

const diedPastTheDeadline = (exit: Exit.Exit<void>) =>
  Exit.isFailure(exit) && Option.getOrUndefined(Cause.dieOption(exit.cause)) instanceof RequestDeadline.DeadlineExceeded

describe("RequestDeadline", () => {
  it.effect("before the deadline the first commit is the point of no return: the deadline no longer stops the request", () =>
    Effect.gen(function*() {
      const deadline = RequestDeadline.make(1000)
      assert.isTrue(Exit.isSuccess(yield* commit(deadline)))
      assert.strictEqual(deadline.state, "committing")
      assert.isFalse(RequestDeadline.expire(deadline))
      yield* TestClock.adjust("2 seconds")
      assert.isTrue(Exit.isSuccess(yield* commit(deadline)), "later transactions of the request commit too")
    }))

  it.effect("past the deadline a commit dies with DeadlineExceeded (its transaction rolls back)", () =>
    Effect.gen(function*() {
      const deadline = RequestDeadline.make(1000)
      yield* TestClock.adjust("1 second")
      assert.isTrue(diedPastTheDeadline(yield* commit(deadline)))
      assert.strictEqual(deadline.state, "expired")
    }))

  it.effect("once the deadline's timer expired the request, nothing commits", () =>
    Effect.gen(function*() {
      const deadline = RequestDeadline.make(1000)
      assert.isTrue(RequestDeadline.expire(deadline))
      assert.isTrue(diedPastTheDeadline(yield* commit(deadline)))
    }))

  it.effect("without a deadline, or detached from it (background work), commits are free", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour")
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(RequestDeadline.beforeCommit)))
      const deadline = RequestDeadline.make(0)
      const detached = RequestDeadline.detached(RequestDeadline.beforeCommit).pipe(
        Effect.locally(RequestDeadline.current, deadline),
        Effect.exit
      )
      assert.isTrue(Exit.isSuccess(yield* detached))
      assert.strictEqual(deadline.state, "open")
    }))
})

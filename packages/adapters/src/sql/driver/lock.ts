/**
 * @internal
 * A lock that one fiber holds at a time, handed to its waiters in the order they came. Effect's
 * semaphore of one permit takes a free permit in about a dozen run-loop steps (an interruptible
 * async region around it) and gives it back in a few more; here a free lock is taken in one step
 * and given back in one. A release hands the lock to the first waiter, so no taker barges in
 * before those that waited.
 */
import * as Effect from "effect/Effect"

/** @internal */
export interface Lock {
  /** Waits for the lock (interruptibly, where the caller is), and takes it. */
  readonly take: Effect.Effect<void>
  /** Gives the lock back, to the first waiter if there is one. Only its holder releases it. */
  readonly release: Effect.Effect<void>
  /** Whether a fiber holds the lock. */
  readonly held: () => boolean
}

interface Waiter {
  readonly resume: (effect: Effect.Effect<void>) => void
  /** The lock was handed to it (it then holds it, even if it is interrupted before it sees so). */
  handed: boolean
}

/** @internal */
export const make = (): Lock => {
  let held = false
  const waiters: Array<Waiter> = []
  const giveBack = () => {
    const next = waiters.shift()
    if (next === undefined) {
      held = false
      return
    }
    next.handed = true
    next.resume(Effect.void)
  }
  const wait = Effect.async<void>((resume) => {
    const waiter: Waiter = { resume, handed: false }
    waiters.push(waiter)
    return Effect.sync(() => {
      // interrupted: a waiter the lock was handed to passes it on
      if (waiter.handed) return giveBack()
      const i = waiters.indexOf(waiter)
      if (i >= 0) waiters.splice(i, 1)
    })
  })
  return {
    take: Effect.suspend(() => {
      if (held) return wait
      held = true
      return Effect.void
    }),
    release: Effect.sync(giveBack),
    held: () => held
  }
}

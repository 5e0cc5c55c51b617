import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as TestClock from "effect/TestClock"
import * as Contention from "../src/Contention.js"
import { BusinessError } from "../src/Errors.js"
import { command, knownFirst, retryOnConflict, VersionConflict } from "../src/internal/optimistic.js"

/** A store of one versioned value, and a command on it in the shape the services use. */
const setup = (stored: { version: number; value: string }) => {
  let reads = 0
  const read = Effect.sync(() => {
    reads++
    return { ...stored }
  })
  const write = (next: { version: number; value: string }) =>
    Effect.sync(() => {
      if (stored.version !== next.version - 1) return false
      Object.assign(stored, next)
      return true
    })
  /** Appends `suffix` unless the value already ends with it (then: refused). */
  const command = (known: { version: number; value: string } | undefined, suffix: string) =>
    Effect.suspend(() => {
      const current = knownFirst(known, read)
      return retryOnConflict(Effect.gen(function*() {
        const { value: before, stale } = yield* current
        if (before.value.endsWith(suffix)) {
          return yield* stale ? new VersionConflict({ what: "value" }) : Effect.fail("refused" as const)
        }
        const after = { version: before.version + 1, value: before.value + suffix }
        if (!(yield* write(after))) return yield* new VersionConflict({ what: "value" })
        return after
      }))
    })
  return { command, reads: () => reads }
}

describe("knownFirst", () => {
  it.effect("a current copy saves the read", () =>
    Effect.gen(function*() {
      const stored = { version: 1, value: "a" }
      const { command, reads } = setup(stored)
      assert.deepStrictEqual(yield* command({ ...stored }, "b"), { version: 2, value: "ab" })
      assert.strictEqual(reads(), 0)
    }))

  it.effect("a stale copy loses the write and the command runs again on a fresh read", () =>
    Effect.gen(function*() {
      const stored = { version: 3, value: "abc" }
      const { command, reads } = setup(stored)
      assert.deepStrictEqual(yield* command({ version: 1, value: "a" }, "d"), { version: 4, value: "abcd" })
      assert.strictEqual(reads(), 1)
    }))

  it.effect("a refusal decided on a stale copy is decided again: the fresh state may allow it", () =>
    Effect.gen(function*() {
      const stored = { version: 2, value: "ab" }
      const { command, reads } = setup(stored)
      assert.deepStrictEqual(yield* command({ version: 3, value: "abx" }, "x"), { version: 3, value: "abx" })
      assert.strictEqual(reads(), 1)
      // and on a fresh read a refusal stands
      assert.strictEqual(yield* Effect.flip(command(undefined, "x")), "refused")
    }))

  it.effect("without a copy every attempt reads", () =>
    Effect.gen(function*() {
      const stored = { version: 1, value: "a" }
      const { command, reads } = setup(stored)
      yield* command(undefined, "b")
      yield* command(undefined, "c")
      assert.strictEqual(reads(), 2)
      assert.deepStrictEqual(stored, { version: 3, value: "abc" })
    }))
})

describe("retryOnConflict under contention", () => {
  /** A command whose write loses `losses` races; attempts after the first read with the locking read. */
  const contended = (losses: number) => {
    const log: Array<"copy" | "read" | "locked"> = []
    let lost = 0
    const read = knownFirst(
      { version: 1 },
      Effect.flatMap(FiberRef.get(Contention.current), (contended) =>
        Effect.sync(() => (log.push(contended ? "locked" : "read"), { version: 1 })))
    )
    const command = retryOnConflict(Effect.gen(function*() {
      const { stale } = yield* read
      if (stale) log.push("copy")
      if (lost++ < losses) return yield* new VersionConflict({ what: "value" })
      return "written" as const
    }))
    return { command, log }
  }

  it.effect("a queue on one aggregate is waited out, backing off on Effect's clock; retries read with the lock", () =>
    Effect.gen(function*() {
      const { command, log } = contended(40)
      const fiber = yield* Effect.fork(command)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "written")
      assert.deepStrictEqual(log, ["copy", ...Array.from({ length: 40 }, () => "locked" as const)])
    }))

  it.effect("the first retry does not wait (a stale copy is the common case)", () =>
    Effect.gen(function*() {
      const { command, log } = contended(1)
      assert.strictEqual(yield* command, "written")
      assert.deepStrictEqual(log, ["copy", "locked"])
    }))

  it.effect("past the generous bound the conflict is a defect", () =>
    Effect.gen(function*() {
      const { command } = contended(1000)
      const fiber = yield* Effect.fork(Effect.exit(command))
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
    }))
})

describe("command: the read-decide-write runner", () => {
  const setupStore = (stored: { version: number; value: string }) => {
    let transactions = 0
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => (transactions++, effect))
    const update = (next: { version: number; value: string }, expected: number) =>
      Effect.sync(() => {
        if (stored.version !== expected) return false
        Object.assign(stored, next)
        return true
      })
    /** Appends `suffix` unless the value already ends with it: refused, as a business rule. */
    const append = (known: { version: number; value: string } | undefined, suffix: string) =>
      command(withTransaction, { read: Effect.sync(() => ({ ...stored })), known, update, what: "value" }, ({ current, save }) =>
        current.value.endsWith(suffix)
          ? Effect.fail(BusinessError.of("invalidRequest", "already there"))
          : save({ ...current, value: current.value + suffix }))
    return { append, transactions: () => transactions }
  }

  it.effect("writes at the version read, bumping it", () =>
    Effect.gen(function*() {
      const stored = { version: 1, value: "a" }
      const { append } = setupStore(stored)
      assert.deepStrictEqual(yield* append(undefined, "b"), { version: 2, value: "ab" })
      assert.deepStrictEqual(stored, { version: 2, value: "ab" })
    }))

  it.effect("a command that wins its race makes no VersionConflict (an error captures a stack)", () =>
    Effect.gen(function*() {
      let made = 0
      // Data.Error assigns its fields: a setter on the prototype sees every VersionConflict made
      Object.defineProperty(VersionConflict.prototype, "what", {
        configurable: true,
        set(value: string) {
          made++
          Object.defineProperty(this, "what", { value, enumerable: true, writable: true, configurable: true })
        }
      })
      try {
        const stored = { version: 1, value: "a" }
        const { append } = setupStore(stored)
        yield* append({ ...stored }, "b")
        yield* append(undefined, "c")
        assert.strictEqual(made, 0)
        // a lost race still makes one (the setter counts)
        yield* append({ version: 1, value: "a" }, "d")
        assert.strictEqual(made, 1)
      } finally {
        delete (VersionConflict.prototype as { what?: string }).what
      }
    }))

  it.effect("a stale copy loses the write: the command runs again in a new transaction on a fresh read", () =>
    Effect.gen(function*() {
      const stored = { version: 3, value: "abc" }
      const { append, transactions } = setupStore(stored)
      assert.deepStrictEqual(yield* append({ version: 1, value: "a" }, "d"), { version: 4, value: "abcd" })
      assert.strictEqual(transactions(), 2)
    }))

  it.effect("a business refusal decided on a stale copy is decided again; on a fresh read it stands", () =>
    Effect.gen(function*() {
      const stored = { version: 2, value: "ab" }
      const { append } = setupStore(stored)
      assert.deepStrictEqual(yield* append({ version: 1, value: "ax" }, "x"), { version: 3, value: "abx" })
      const refused = yield* Effect.flip(append(undefined, "x"))
      assert.strictEqual(refused.code, "invalidRequest")
    }))

  it.effect("storage may check the version as the writes go: its Conflict (a defect) runs the command again", () =>
    Effect.gen(function*() {
      const stored = { version: 1, value: "a" }
      let transactions = 0
      const seen: Array<boolean> = []
      // a store that answers every update and checks it at the transaction's end, as the
      // PostgreSQL driver does in a transaction marked retried
      const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.gen(function*() {
          transactions++
          seen.push(yield* FiberRef.get(Contention.retried))
          const pending: Array<() => boolean> = []
          const a = yield* Effect.locally(effect, pendingChecks, pending)
          if (!pending.every((check) => check())) return yield* Effect.die(new Contention.Conflict())
          return a
        })
      const pendingChecks = FiberRef.unsafeMake<Array<() => boolean>>([])
      const update = (next: { version: number; value: string }, expected: number) =>
        Effect.map(FiberRef.get(pendingChecks), (pending) => {
          pending.push(() => {
            if (stored.version !== expected) return false
            Object.assign(stored, next)
            return true
          })
          return true
        })
      const append = (known: { version: number; value: string } | undefined, suffix: string) =>
        command(withTransaction, { read: Effect.sync(() => ({ ...stored })), known, update, what: "value" }, ({ current, save }) =>
          save({ ...current, value: current.value + suffix }))
      // a stale copy: the first transaction's check fails, the second runs on a fresh read
      stored.version = 2
      stored.value = "ab"
      assert.deepStrictEqual(yield* append({ version: 1, value: "a" }, "c"), { version: 3, value: "abc" })
      assert.deepStrictEqual(stored, { version: 3, value: "abc" })
      assert.strictEqual(transactions, 2)
      assert.deepStrictEqual(seen, [true, true])
      // outside a command nothing is marked
      assert.isFalse(yield* FiberRef.get(Contention.retried))
    }))
})

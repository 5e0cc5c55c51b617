import { assert, layer } from "@effect/vitest"
import { RandomIds } from "@kassa/adapters"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import { type Timer, Timers } from "@kassa/core/ports/Timers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { backends, ManualScheduler, withManualTimers } from "./backends.js"

for (const backend of backends()) {
  // Timers of their own on the backend's storage, fired only by the test's `runDue`.
  layer(withManualTimers(backend), { timeout: "60 seconds" })(`Storage contract: timers [${backend}]`, (it) => {
    /** A fresh timer kind for one test (no other scheduler has a handler for it). */
    const withKind = <A, E, R>(
      test: (ctx: { timers: Timers["Type"]; scheduler: ManualScheduler["Type"]; kind: string; now: number }) => Effect.Effect<A, E, R>
    ) =>
      Effect.gen(function*() {
        const timers = yield* Timers
        const scheduler = yield* ManualScheduler
        const kind = `t-${RandomIds.make()}`
        const now = yield* Clock.currentTimeMillis
        return yield* test({ timers, scheduler, kind, now })
      })

    it.effect("a timer fires once when due, not before", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const fired: Array<Timer> = []
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t)))
          yield* timers.schedule({ kind, subject: "inv-1", dueAt: new Date(now + 1000), payload: { n: 1, s: "x" } })
          assert.strictEqual(yield* scheduler.runDue, 0)
          yield* TestClock.adjust("999 millis")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(fired.length, 0)
          yield* TestClock.adjust("1 millis")
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.deepStrictEqual(fired, [{ kind, subject: "inv-1", dueAt: new Date(now + 1000), payload: { n: 1, s: "x" } }])
          assert.strictEqual(yield* scheduler.runDue, 0)
          yield* TestClock.adjust("2 seconds")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(fired.length, 1)
        })))

    it.effect("timers of a kind without a handler wait for one", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          yield* timers.schedule({ kind, subject: "a", dueAt: new Date(now + 10), payload: 1 })
          yield* TestClock.adjust("1 second")
          assert.strictEqual(yield* scheduler.runDue, 0)
          const fired: Array<string> = []
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t.subject)))
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.deepStrictEqual(fired, ["a"])
        })))

    it.effect("due timers fire in due order, each once", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const fired: Array<string> = []
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t.subject)))
          yield* timers.schedule({ kind, subject: "c", dueAt: new Date(now + 300), payload: null })
          yield* timers.schedule({ kind, subject: "a", dueAt: new Date(now + 100), payload: null })
          yield* timers.schedule({ kind, subject: "b", dueAt: new Date(now + 200), payload: null })
          yield* TestClock.adjust("250 millis")
          assert.strictEqual(yield* scheduler.runDue, 2)
          assert.deepStrictEqual(fired, ["a", "b"])
          yield* TestClock.adjust("50 millis")
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.deepStrictEqual(fired, ["a", "b", "c"])
        })))

    it.effect("a failing handler leaves the timer for a retry after the lease", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          let attempts = 0
          const fired: Array<Timer> = []
          yield* timers.register(kind, (t) =>
            Effect.suspend(() => {
              attempts++
              return attempts === 1 ? Effect.dieMessage("handler failed") : Effect.sync(() => void fired.push(t))
            }))
          yield* timers.schedule({ kind, subject: "s", dueAt: new Date(now + 100), payload: "p" })
          yield* TestClock.adjust("100 millis")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(attempts, 1)
          // locked for the lease
          assert.strictEqual(yield* scheduler.runDue, 0)
          yield* TestClock.adjust("999 millis")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(attempts, 1)
          yield* TestClock.adjust("1 millis")
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.strictEqual(attempts, 2)
          assert.deepStrictEqual(fired, [{ kind, subject: "s", dueAt: new Date(now + 100), payload: "p" }])
          yield* TestClock.adjust("2 seconds")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(attempts, 2)
        })))

    it.effect("a failing handler's writes roll back", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const idem = yield* Idempotency
          const key = { partyID: "timers", namespace: PARTY_NAMESPACE, operation: kind, externalID: "x" }
          yield* timers.register(kind, () =>
            idem.claim(key, { entityID: "e", fingerprint: "f" }).pipe(Effect.zipRight(Effect.dieMessage("after write"))))
          yield* timers.schedule({ kind, subject: "s", dueAt: new Date(now), payload: null })
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.isTrue(Option.isNone(yield* idem.find(key)))
          yield* timers.cancel(kind, "s")
        })))

    it.effect("rescheduling the same kind and subject moves the timer", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const fired: Array<Timer> = []
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t)))
          // later: one timer, due at the second time only
          yield* timers.schedule({ kind, subject: "s", dueAt: new Date(now + 1000), payload: "first" })
          yield* timers.schedule({ kind, subject: "s", dueAt: new Date(now + 5000), payload: "second" })
          yield* TestClock.adjust("1 second")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(fired.length, 0)
          yield* TestClock.adjust("4 seconds")
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.deepStrictEqual(fired, [{ kind, subject: "s", dueAt: new Date(now + 5000), payload: "second" }])
          // earlier
          const t = now + 5000
          yield* timers.schedule({ kind, subject: "s2", dueAt: new Date(t + 5000), payload: "first" })
          yield* timers.schedule({ kind, subject: "s2", dueAt: new Date(t + 1000), payload: "second" })
          yield* TestClock.adjust("1 second")
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.deepStrictEqual(fired[1], { kind, subject: "s2", dueAt: new Date(t + 1000), payload: "second" })
          yield* TestClock.adjust("2 seconds")
          assert.strictEqual(yield* scheduler.runDue, 0)
          assert.strictEqual(fired.length, 2)
        })))

    it.effect("any payload round-trips, undefined included", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const fired = new Map<string, unknown>()
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.set(t.subject, t.payload)))
          const payloads: ReadonlyArray<readonly [string, unknown]> = [
            ["object", { a: [1, "two", null], b: { c: true } }],
            ["string", "text"],
            ["number", 42],
            ["null", null],
            ["undefined", undefined]
          ]
          for (const [subject, payload] of payloads) {
            const scheduled = yield* Effect.exit(timers.schedule({ kind, subject, dueAt: new Date(now + 10), payload }))
            assert.strictEqual(scheduled._tag, "Success", `schedule with a ${subject} payload`)
          }
          yield* TestClock.adjust("10 millis")
          assert.strictEqual(yield* scheduler.runDue, payloads.length)
          for (const [subject, payload] of payloads) {
            if (subject !== "undefined") assert.deepStrictEqual(fired.get(subject), payload, subject)
          }
          // JSON has no undefined: it may come back as null, but the timer is stored and fires
          assert.isTrue(fired.has("undefined"))
          assert.isTrue(fired.get("undefined") === undefined || fired.get("undefined") === null)
        })))

    it.effect("scheduleAll sets several timers, moves those set already, the later of two for one subject winning", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const fired: Array<string> = []
          const other = `${kind}-other`
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(`${t.subject} ${JSON.stringify(t.payload)}`)))
          yield* timers.register(other, (t) => Effect.sync(() => void fired.push(`other ${t.subject}`)))
          yield* timers.schedule({ kind, subject: "a", dueAt: new Date(now + 100), payload: "first" })
          yield* timers.scheduleAll([])
          yield* timers.scheduleAll([
            { kind, subject: "a", dueAt: new Date(now + 2000), payload: "moved" },
            { kind, subject: "b", dueAt: new Date(now + 100), payload: "early" },
            { kind, subject: "b", dueAt: new Date(now + 3000), payload: "late" },
            { kind: other, subject: "b", dueAt: new Date(now + 100), payload: null }
          ])
          yield* TestClock.adjust("1 second")
          assert.strictEqual(yield* scheduler.runDue, 1)
          assert.deepStrictEqual(fired, ["other b"])
          yield* TestClock.adjust("2 seconds")
          assert.strictEqual(yield* scheduler.runDue, 2)
          assert.deepStrictEqual(fired, ["other b", "a \"moved\"", "b \"late\""])
        })))

    it.effect("cancel removes a timer, cancelAll several", () =>
      withKind(({ kind, now, scheduler, timers }) =>
        Effect.gen(function*() {
          const fired: Array<Timer> = []
          const other = `${kind}-other`
          yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t)))
          yield* timers.register(other, (t) => Effect.sync(() => void fired.push(t)))
          for (const subject of ["a", "b", "c"]) {
            yield* timers.schedule({ kind, subject, dueAt: new Date(now + 100), payload: null })
            yield* timers.schedule({ kind: other, subject, dueAt: new Date(now + 100), payload: null })
          }
          yield* timers.cancel(kind, "a")
          yield* timers.cancelAll([{ kind, subject: "b" }, { kind: other, subject: "b" }, { kind: other, subject: "x" }])
          yield* timers.cancelAll([])
          yield* TestClock.adjust("1 second")
          assert.strictEqual(yield* scheduler.runDue, 3)
          assert.deepStrictEqual(fired.map((t) => `${t.kind === kind ? "kind" : "other"} ${t.subject}`).sort(), [
            "kind c",
            "other a",
            "other c"
          ])
        })))
  })
}

/**
 * An `Acquirer` for tests that answers what the test scripted, one step per call, and records
 * the calls it received.
 *
 * Each method has its own script: a call takes the next step of its method's script. With none
 * left, a repeated operation answers what it answered last (as the port promises) and a new one
 * answers the default: authorised (with a recurrent token when one is asked for), or done. A step
 * may also hang (the call never answers, or answers `DeadlineReached` at the request's deadline), fail (the call
 * dies, as a dropped connection does, and nothing is remembered, so a retry takes the next step)
 * or be lost (done and remembered, but the call dies). `status` answers from what was done.
 *
 * ```ts
 * const acquirer = yield* ScriptedAcquirer
 * yield* acquirer.script.authorize(ScriptedAcquirer.fail(), ScriptedAcquirer.answer(ScriptedAcquirer.authorized))
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as PaymentError from "../payment/PaymentError.js"
import { Acquirer, type AuthorizeAnswer, type AuthorizeResult, type OperationResult, type OperationStatus } from "../ports/Acquirer.js"

/** What one call does. @since 0.1.0 @category models */
export type Step<A> =
  | { readonly _tag: "Answer"; readonly answer: A }
  | { readonly _tag: "Hang" }
  | { readonly _tag: "Fail"; readonly message: string }
  | { readonly _tag: "Lost"; readonly answer: A }

/** The call answers `answer`. @since 0.1.0 @category constructors */
export const answer = <A>(answer: A): Step<A> => ({ _tag: "Answer", answer })

/** The call never answers. @since 0.1.0 @category constructors */
export const hang: Step<never> = { _tag: "Hang" }

/** The call dies with `message` (a transient failure). @since 0.1.0 @category constructors */
export const fail = (message = "acquirer unreachable"): Step<never> => ({ _tag: "Fail", message })

/**
 * The acquirer does it (a later call and `status` see `answer`), but the call dies before its
 * answer comes back, as when Kassa crashes right after the acquirer acted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lost = <A>(answer: A): Step<A> => ({ _tag: "Lost", answer })

/** An authorisation. @since 0.1.0 @category answers */
export const authorized: AuthorizeResult = {
  _tag: "Authorized",
  transaction: { id: "scripted-transaction", rrn: "000000000001", approvalCode: "000001" }
}

/** An authorisation with a recurrent token. @since 0.1.0 @category answers */
export const authorizedRecurrent = (recurrentToken: string): AuthorizeResult => ({ ...authorized, recurrentToken })

/** A decline with the error at `codes` (a path of the merchant error tree). @since 0.1.0 @category answers */
export const declined = (...codes: ReadonlyArray<string>): AuthorizeResult & OperationResult => {
  const path = codes.length === 0 ? ["authorization_failed", "rejected_by_issuer"] : codes
  return { _tag: "Declined", error: PaymentError.of(...path), message: `declined: ${path.join("/")}` }
}

/** A 3-D Secure challenge. @since 0.1.0 @category answers */
export const challenge: AuthorizeResult = { _tag: "InteractionRequired", challenge: "scripted-challenge" }

/** A capture, cancel or refund done. @since 0.1.0 @category answers */
export const done: OperationResult = { _tag: "Done" }

/** A call the acquirer received (no card data: the tool by its type). @since 0.1.0 @category models */
export type Call =
  | {
    readonly method: "authorize"
    readonly operationID: string
    readonly amount: number
    readonly currency: string
    readonly toolType: string
    readonly hold: boolean
    readonly makeRecurrent: boolean
  }
  | { readonly method: "completeInteraction"; readonly operationID: string; readonly passed: boolean }
  | { readonly method: "capture"; readonly operationID: string; readonly amount: number; readonly currency: string }
  | { readonly method: "cancel"; readonly operationID: string }
  | {
    readonly method: "refund"
    readonly operationID: string
    readonly refundID: string
    readonly amount: number
    readonly currency: string
  }

/** @since 0.1.0 @category models */
export type Method = Call["method"]

type Answers = {
  readonly authorize: AuthorizeResult
  readonly completeInteraction: AuthorizeResult
  readonly capture: OperationResult
  readonly cancel: OperationResult
  readonly refund: OperationResult
}

/** @since 0.1.0 @category tags */
export class ScriptedAcquirer extends Context.Tag("kassa/ScriptedAcquirer")<ScriptedAcquirer, {
  /** Appends steps to a method's script. */
  readonly script: { readonly [M in Method]: (...steps: ReadonlyArray<Step<Answers[M]>>) => Effect.Effect<void> }
  /** Every call received, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<Call>>
  /** Until `count` calls of `method` have been received. */
  readonly awaitCalls: (method: Method, count: number) => Effect.Effect<void>
}>() {}

/** What a new operation answers when nothing is scripted: what a willing acquirer would. */
const defaults = (call: Call): Answers[Method] =>
  call.method === "authorize"
    ? (call.makeRecurrent ? authorizedRecurrent(`recurrent.${call.operationID}`) : authorized)
    : call.method === "completeInteraction"
    ? (call.passed ? authorized : declined("preauthorization_failed"))
    : done

/** The operation a call repeats when it names the same one. */
const operationKey = (call: Call) =>
  call.method === "refund" ? `${call.method}:${call.operationID}:${call.refundID}` : `${call.method}:${call.operationID}`

/** `Acquirer` and `ScriptedAcquirer`, with empty scripts. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Acquirer | ScriptedAcquirer> = Layer.effectContext(Effect.gen(function*() {
  const scripts = yield* Ref.make<{ readonly [M in Method]: ReadonlyArray<Step<Answers[M]>> }>({
    authorize: [],
    completeInteraction: [],
    capture: [],
    cancel: [],
    refund: []
  })
  const answered = new Map<string, Answers[Method]>()
  const calls = yield* SubscriptionRef.make<ReadonlyArray<Call>>([])

  /** `hung`: what a hanging step answers (by default, nothing ever). */
  const receive = <M extends Method, H = never>(
    call: Extract<Call, { readonly method: M }>,
    hung: Effect.Effect<H> = Effect.never
  ): Effect.Effect<Answers[M] | H> =>
    Effect.gen(function*() {
      yield* SubscriptionRef.update(calls, (all) => [...all, call])
      const method: M = call.method
      const step = yield* Ref.modify(scripts, (s) => {
        const [next, ...rest] = s[method] as ReadonlyArray<Step<Answers[M]>>
        return [next, next === undefined ? s : { ...s, [method]: rest }] as const
      })
      const key = operationKey(call)
      if (step === undefined) {
        const answer = (answered.get(key) ?? defaults(call)) as Answers[M]
        answered.set(key, answer)
        return answer
      }
      switch (step._tag) {
        case "Answer":
          answered.set(key, step.answer)
          return step.answer
        case "Hang":
          return yield* hung
        case "Fail":
          return yield* Effect.dieMessage(step.message)
        case "Lost":
          answered.set(key, step.answer)
          return yield* Effect.dieMessage("the acquirer's answer was lost")
      }
    })

  const append = <M extends Method>(method: M) => (...steps: ReadonlyArray<Step<Answers[M]>>) =>
    Ref.update(scripts, (s) => ({ ...s, [method]: [...s[method], ...steps] }))

  const deadlineReached: AuthorizeAnswer = { _tag: "DeadlineReached" }
  const untilDeadline = (deadline: Date) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.as(Effect.sleep(Math.max(0, deadline.getTime() - now)), deadlineReached))

  const acquirer: Acquirer["Type"] = {
    authorize: (r) =>
      receive({
        method: "authorize",
        operationID: r.operationID,
        amount: r.amount,
        currency: r.currency,
        toolType: r.tool.type,
        hold: r.hold,
        makeRecurrent: r.makeRecurrent
      }, r.deadline === undefined ? Effect.never : untilDeadline(r.deadline)),
    completeInteraction: (operationID, passed) => receive({ method: "completeInteraction", operationID, passed }),
    capture: (operationID, amount, currency) => receive({ method: "capture", operationID, amount, currency }),
    cancel: (operationID) => receive({ method: "cancel", operationID }),
    status: (operationID) =>
      Effect.sync((): OperationStatus => {
        const authorization = answered.get(`completeInteraction:${operationID}`) ?? answered.get(`authorize:${operationID}`)
        if (authorization === undefined || authorization._tag === "InteractionRequired") return { _tag: "Nothing" }
        if (authorization._tag !== "Authorized") return { _tag: "Declined" }
        const { recurrentToken, transaction } = authorization as Extract<AuthorizeResult, { readonly _tag: "Authorized" }>
        const by = { transaction, ...(recurrentToken === undefined ? {} : { recurrentToken }) }
        if (answered.get(`capture:${operationID}`)?._tag === "Done") return { _tag: "Captured", ...by }
        if (answered.get(`cancel:${operationID}`)?._tag === "Done") return { _tag: "Cancelled" }
        return { _tag: "Authorized", ...by }
      }),
    refund: (operationID, refundID, amount, currency) => receive({ method: "refund", operationID, refundID, amount, currency })
  }

  const scripted: ScriptedAcquirer["Type"] = {
    script: {
      authorize: append("authorize"),
      completeInteraction: append("completeInteraction"),
      capture: append("capture"),
      cancel: append("cancel"),
      refund: append("refund")
    },
    calls: SubscriptionRef.get(calls),
    awaitCalls: (method, count) =>
      calls.changes.pipe(
        Stream.filter((all) => all.filter((c) => c.method === method).length >= count),
        Stream.take(1),
        Stream.runDrain
      )
  }

  return Context.make(Acquirer, acquirer).pipe(Context.add(ScriptedAcquirer, scripted))
}))

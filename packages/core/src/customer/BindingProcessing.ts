/**
 * A binding's verification with the acquirer: a zero-amount authorisation of the card, with
 * 3-D Secure where the card asks for it. Each answer is a command of the binding's machine, applied
 * atomically with its customer, events and timers; the timers, registered here, resume a
 * verification a crash interrupted and fail an abandoned challenge.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Optimistic from "../internal/optimistic.js"
import type { AcquirerTool, AuthorizeResult } from "../ports/Acquirer.js"
import * as PaymentError from "../payment/PaymentError.js"
import * as Recovery from "../Recovery.js"
import * as Ref from "../Ref.js"
import type { Settings } from "../Settings.js"
import type { BindingRecord } from "./Customer.js"
import type { CustomerContext } from "./CustomerContext.js"
import { type BindingCommand, decide, readies } from "./BindingMachine.js"

/** Resumes a binding's verification after a crash. @since 0.1.0 */
export const ADVANCE_TIMER = "binding.advance"
/** Ends an abandoned 3-D Secure challenge of a binding. @since 0.1.0 */
export const INTERACTION_TIMER = "binding.interaction"

/** The acquirer's operation id of a binding. @since 0.1.0 */
export const operationOf = (b: Pick<BindingRecord, "customerID" | "id">) => `binding.${b.customerID}.${b.id}`

/** A binding's verification must end by its creation plus the processing deadline payments take by default. @since 0.1.0 */
export const deadlineOf = (b: Pick<BindingRecord, "createdAt">, settings: Pick<Settings, "defaultProcessingDeadlineMs">) =>
  b.createdAt.getTime() + settings.defaultProcessingDeadlineMs

/** The answer a verification gets when its deadline passes first. @since 0.1.0 */
export const deadlineReached: AuthorizeResult = {
  _tag: "Declined",
  error: PaymentError.of("processing_deadline_reached"),
  message: "The card was not verified by the binding's deadline"
}

/** @since 0.1.0 @category constructors */
export const make = (ctx: CustomerContext) =>
  Effect.gen(function*() {
    const { acquirer, customers, ids, interactionOf, loadBinding, settings, timers, tx, vault } = ctx

    /** Runs one command of the binding's machine, atomically with its customer, events and timers. */
    const transition = (customerID: string, id: string, command: BindingCommand) =>
      Optimistic.command(tx.withTransaction, {
        read: loadBinding(customerID, id),
        update: customers.updateBinding,
        what: `binding ${id}`
      }, ({ current: b, save }) =>
        Effect.gen(function*() {
          const { changes, state } = decide(b, command)
          if (changes.length === 0) return { binding: b, decided: false }
          const updated = yield* save(state)
          const c = yield* customers.findById(b.partyID, customerID).pipe(Effect.flatMap(Effect.orDie))
          const lifecycle: Array<{ readonly changeType: string }> = []
          if (readies(c.status, b, updated)) {
            if (!(yield* customers.update({ ...c, status: "ready", version: c.version + 1 }, c.version))) {
              return yield* new Optimistic.VersionConflict({ what: `customer ${customerID}` })
            }
            lifecycle.push({ changeType: "CustomerReady" })
          }
          yield* ctx.append(c, [...changes, ...lifecycle])
          // The challenge's timeout is scheduled and cancelled with the state, in one transaction. An
          // answered challenge keeps it till the outcome: should the acquirer's answer never be
          // recorded (a crash), the binding fails then instead of staying pending.
          const subject = Ref.Binding.encode({ customerID, bindingID: id })
          if (updated.status !== "pending") {
            yield* timers.cancel(ADVANCE_TIMER, subject)
            yield* timers.cancel(INTERACTION_TIMER, subject)
          } else if (updated.interactionID !== undefined && b.interactionID === undefined) {
            // Waiting on the payer, there is nothing to resume: the challenge's timeout stands in.
            yield* timers.cancel(ADVANCE_TIMER, subject)
            yield* timers.schedule({
              kind: INTERACTION_TIMER,
              subject,
              dueAt: new Date((yield* Clock.currentTimeMillis) + settings.interactionTimeoutMs),
              payload: null
            })
          }
          return { binding: updated, decided: true }
        }))

    /** Records the acquirer's answer; the CVV's session ends with an outcome. */
    const applyResult = (b: BindingRecord, result: AuthorizeResult) =>
      Effect.gen(function*() {
        if (result._tag === "InteractionRequired") {
          const interactionID = `${yield* ids.next}${yield* ids.next}`
          yield* transition(b.customerID, b.id, {
            _tag: "InteractionRequested",
            interactionID,
            userInteraction: interactionOf(interactionID)
          })
          return
        }
        yield* transition(
          b.customerID,
          b.id,
          result._tag === "Authorized"
            ? { _tag: "Authorized", recurrentToken: result.recurrentToken }
            : { _tag: "Declined", error: { code: result.error.code, message: result.message } }
        )
        if (b.vaultSession !== undefined) yield* vault.deleteSession(b.vaultSession)
      })

    const verify = (customerID: string, id: string): Effect.Effect<void, never> =>
      Effect.gen(function*() {
        const b = yield* loadBinding(customerID, id)
        if (b.status !== "pending" || b.interactionID !== undefined) return
        if (b.tool.type !== "BankCard") return
        const stored = yield* vault.getCardAndSession(b.tool.vaultToken, b.vaultSession)
        if (Option.isNone(stored)) return yield* Effect.dieMessage(`vault has no card for binding ${id}`)
        const { card, secret } = stored.value
        const tool: AcquirerTool = {
          type: "BankCard",
          card,
          paymentSystem: b.tool.paymentSystem,
          cvv: Option.getOrUndefined(secret)?.cvv
        }
        const result = yield* acquirer.authorize({
          operationID: operationOf(b),
          amount: 0,
          currency: "XXX",
          tool,
          hold: true,
          makeRecurrent: true
        })
        // no deadline is given: the binding's own is kept by its timer
        if (result._tag === "DeadlineReached") return yield* Effect.dieMessage("the acquirer answered a deadline it was not given")
        yield* applyResult(b, result)
      }).pipe(
        Effect.catchAll((e) => Effect.logWarning("binding step refused", e)),
        Effect.withSpan("CustomerService.verify")
      )

    // Retried with the recovery backoff until the binding's deadline: then it fails, its CVV's
    // session ended as with any other outcome.
    yield* timers.register(ADVANCE_TIMER, (timer) =>
      Effect.gen(function*() {
        const { bindingID, customerID } = Ref.Binding.decode(timer.subject)
        const now = yield* Clock.currentTimeMillis
        const b = yield* loadBinding(customerID, bindingID).pipe(Effect.option)
        const end = Option.getOrUndefined(Option.map(b, (x) => deadlineOf(x, settings)))
        if (Option.isSome(b) && b.value.status === "pending" && end !== undefined && now >= end) {
          yield* applyResult(b.value, deadlineReached).pipe(Effect.catchAll((e) => Effect.logWarning("binding step refused", e)))
          return
        }
        yield* timers.schedule(yield* Recovery.next(settings, timer, now, end))
        yield* tx.background(verify(customerID, bindingID))
      }))
    yield* timers.register(INTERACTION_TIMER, (timer) =>
      Effect.gen(function*() {
        const { bindingID, customerID } = Ref.Binding.decode(timer.subject)
        const b = yield* loadBinding(customerID, bindingID).pipe(Effect.option)
        if (Option.isSome(b)) {
          yield* applyResult(b.value, {
            _tag: "Declined",
            error: { code: "preauthorization_failed" },
            message: "The 3-D Secure challenge was not completed"
          }).pipe(Effect.ignore)
        }
      }))

    return { transition, applyResult, verify } as const
  })

/** @since 0.1.0 @category models */
export type BindingProcessing = Effect.Effect.Success<ReturnType<typeof make>>

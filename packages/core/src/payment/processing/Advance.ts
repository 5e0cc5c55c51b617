/**
 * The process manager: drives a payment with the acquirer as far as it can go now (authorise,
 * with 3-D Secure where the card asks for it, then capture or cancel), recording each answer as a
 * command of the machine.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { PartyID, ShopID } from "../../Ids.js"
import type { AcquirerTool, AuthorizeResult } from "../../ports/Acquirer.js"
import * as Ref from "../../Ref.js"
import type { Apply } from "../ApplyCommand.js"
import type { PaymentRecord } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"
import * as AdvanceTimer from "./AdvanceTimer.js"

/** The acquirer's operation id of a payment. @since 0.1.0 */
export const operationOf = (p: { readonly invoiceID: string; readonly id: string }) => `${p.invoiceID}.${p.id}`

/** Starts `advance` in the background, detached from the caller's transaction. @since 0.1.0 @category models */
export type Kick = (invoiceID: string, id: string, known?: PaymentRecord) => Effect.Effect<void>

/** @since 0.1.0 @category constructors */
export const make = (ctx: PaymentContext, apply: Apply) => {
  const { acquirer, ids, interactionOf, load, shops, timers, tx, vault } = ctx

  /** The tool the acquirer receives; card data comes from the vault only now. */
  const acquirerTool = (p: PaymentRecord) =>
    Effect.gen(function*() {
      const t = p.tool
      switch (t.type) {
        case "BankCard": {
          const stored = yield* vault.getCardAndSession(t.vaultToken, p.vaultSession)
          if (Option.isNone(stored)) return yield* Effect.dieMessage(`vault has no card for payment ${p.invoiceID}/${p.id}`)
          const { card, secret } = stored.value
          return { type: "BankCard", card, paymentSystem: t.paymentSystem, cvv: Option.getOrUndefined(secret)?.cvv } satisfies AcquirerTool
        }
        case "Recurrent":
          return { type: "Recurrent", recurrentToken: t.recurrentToken } satisfies AcquirerTool
        default:
          return t
      }
    })

  /** Records the acquirer's answer; answers the payment as it now stands. */
  const applyAuthorization = (p: PaymentRecord, result: AuthorizeResult) =>
    Effect.gen(function*() {
      switch (result._tag) {
        case "Authorized": {
          // the fee terms the machine books the authorised flow with
          const { institution } = yield* shops.withTerms(PartyID.make(p.partyID), ShopID.make(p.shopID)).pipe(Effect.orDie)
          return yield* apply(p.invoiceID, p.id, {
            _tag: "Authorized",
            transactionInfo: result.transaction,
            recurrentToken: result.recurrentToken,
            fees: institution.terms.fees
          }, p)
        }
        case "Declined":
          return yield* apply(p.invoiceID, p.id, { _tag: "Declined", error: result.error }, p)
        case "InteractionRequired": {
          const interactionID = `${yield* ids.next}${yield* ids.next}`
          return yield* apply(
            p.invoiceID,
            p.id,
            { _tag: "InteractionRequested", interactionID, userInteraction: interactionOf(interactionID) },
            p
          )
        }
      }
    })

  /** The acquirer finished a capture or a cancel, unless it declined (the recovery timer retries it). */
  const finish = (p: PaymentRecord, result: { readonly _tag: string }, what: string) =>
    result._tag === "Declined"
      ? Effect.logWarning(`${what} declined by the acquirer; it will be retried`).pipe(
        Effect.annotateLogs({ invoiceID: p.invoiceID, paymentID: p.id })
      )
      : Effect.asVoid(apply(p.invoiceID, p.id, { _tag: "Finished" }, p))

  /**
   * Safe to run twice at once (the acquirer answers a repeated operation with its first answer,
   * and the transitions are optimistic).
   */
  const advance = (invoiceID: string, id: string, known?: PaymentRecord): Effect.Effect<void, never> =>
    Effect.gen(function*() {
      const p = known ?? (yield* load(invoiceID, id).pipe(Effect.orDie))
      switch (p.activity) {
        case "processing": {
          const at = yield* Clock.currentTimeMillis
          const deadline = p.processingDeadline?.getTime()
          if (deadline !== undefined && at >= deadline) {
            yield* apply(invoiceID, id, { _tag: "DeadlineReached" }, p)
            return
          }
          const authorize = acquirer.authorize({
            operationID: operationOf(p),
            amount: p.amount,
            currency: p.currency,
            tool: yield* acquirerTool(p),
            hold: p.flow.type === "PaymentFlowHold",
            makeRecurrent: p.makeRecurrent
          })
          const result = deadline === undefined
            ? Option.some(yield* authorize)
            : yield* Effect.timeoutOption(authorize, Math.max(0, deadline - at))
          if (Option.isNone(result)) {
            yield* apply(invoiceID, id, { _tag: "DeadlineReached" }, p)
            return
          }
          // the payment as the authorisation left it: an instant one goes on to its capture
          const next = yield* applyAuthorization(p, result.value)
          if (next.activity === "capturing" || next.activity === "cancelling") yield* advance(invoiceID, id, next)
          return
        }
        case "capturing":
          // A capture is never turned into a failed payment: the durable timer retries it.
          return yield* finish(p, yield* acquirer.capture(operationOf(p), p.capture?.amount ?? p.amount, p.currency), "capture")
        case "cancelling":
          return yield* finish(p, yield* acquirer.cancel(operationOf(p)), "cancel")
        case "waiting":
        case "interaction":
        case "done":
          yield* timers.cancel(AdvanceTimer.KIND, Ref.Payment.encode({ invoiceID, paymentID: id }))
          return
      }
    }).pipe(
      Effect.catchAll((e) =>
        Effect.logWarning("payment step refused", e).pipe(Effect.annotateLogs({ invoiceID, paymentID: id }))
      ),
      Effect.withSpan("PaymentService.advance")
    )

  const kick: Kick = (invoiceID, id, known) => tx.background(advance(invoiceID, id, known))

  return { advance, kick, applyAuthorization } as const
}

/** @since 0.1.0 @category models */
export type Processing = ReturnType<typeof make>

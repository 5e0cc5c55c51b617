/**
 * The process manager: drives a payment with the acquirer as far as it can go now (authorise,
 * with 3-D Secure where the card asks for it, then capture or cancel), recording each answer as a
 * command of the machine. An instant payment authorised at once is captured before anything is
 * recorded, and both answers commit together; a payment whose deadline has passed is given up
 * only once the acquirer says it authorised nothing, since a crash may have come between its
 * answer and the commit.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { PartyID, ShopID } from "../../Ids.js"
import type { InvoiceRecord } from "../../invoice/Invoice.js"
import type { AcquirerTool, AuthorizeResult, Transaction } from "../../ports/Acquirer.js"
import * as Traced from "../../internal/traced.js"
import * as Ref from "../../Ref.js"
import type { Apply } from "../ApplyCommand.js"
import type { PaymentRecord } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"
import type { PaymentCommand } from "../PaymentMachine.js"
import * as AdvanceTimer from "./AdvanceTimer.js"

/** The acquirer's operation id of a payment. @since 0.1.0 */
export const operationOf = (p: { readonly invoiceID: string; readonly id: string }) => `${p.invoiceID}.${p.id}`

/**
 * Starts `advance` in the background, detached from the caller's transaction; `invoice`, the
 * payment's invoice as the caller wrote or read it, serves the first transition that settles it.
 *
 * @since 0.1.0 @category models
 */
export type Kick = (invoiceID: string, id: string, known?: PaymentRecord, invoice?: InvoiceRecord) => Effect.Effect<void>

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

  /** The machine's command of an authorisation, with the fee terms it books the flow with. */
  const authorized = (p: PaymentRecord, result: { readonly transaction: Transaction; readonly recurrentToken?: string | undefined }) =>
    Effect.map(
      shops.withTerms(PartyID.make(p.partyID), ShopID.make(p.shopID)).pipe(Effect.orDie),
      ({ institution }): PaymentCommand => ({
        _tag: "Authorized",
        transactionInfo: result.transaction,
        recurrentToken: result.recurrentToken,
        fees: institution.terms.fees
      })
    )

  /** Records the acquirer's answer; answers the payment as it now stands. */
  const applyAuthorization = (p: PaymentRecord, result: AuthorizeResult, invoice?: InvoiceRecord) =>
    Effect.gen(function*() {
      switch (result._tag) {
        case "Authorized":
          return yield* apply(p.invoiceID, p.id, yield* authorized(p, result), p, invoice)
        case "Declined":
          return yield* apply(p.invoiceID, p.id, { _tag: "Declined", error: result.error }, p, invoice)
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
  const finish = (p: PaymentRecord, result: { readonly _tag: string }, what: string, invoice?: InvoiceRecord) =>
    result._tag === "Declined"
      ? Effect.logWarning(`${what} declined by the acquirer; it will be retried`).pipe(
        Effect.annotateLogs({ invoiceID: p.invoiceID, paymentID: p.id })
      )
      : Effect.asVoid(apply(p.invoiceID, p.id, { _tag: "Finished" }, p, invoice))

  /**
   * An instant payment the acquirer authorised: captured with the acquirer, then both answers
   * recorded in one transaction. A declined capture records the authorisation alone, and the
   * recovery timer retries the capture.
   */
  const authorizeAndCapture = (
    p: PaymentRecord,
    result: Extract<AuthorizeResult, { readonly _tag: "Authorized" }>,
    invoice: InvoiceRecord | undefined
  ) =>
    Effect.gen(function*() {
      const command = yield* authorized(p, result)
      const captured = yield* acquirer.capture(operationOf(p), p.amount, p.currency)
      if (captured._tag === "Declined") return yield* finish(yield* apply(p.invoiceID, p.id, command, p, invoice), captured, "capture")
      yield* apply(p.invoiceID, p.id, [command, { _tag: "Finished" }], p, invoice)
    })

  /**
   * Past its deadline, a payment still being authorised fails unless the acquirer says it went
   * further: a crash may have come between its answer and the commit.
   */
  const pastDeadline = (p: PaymentRecord) =>
    Effect.gen(function*() {
      const status = yield* acquirer.status(operationOf(p))
      switch (status._tag) {
        case "Captured":
          return yield* Effect.asVoid(apply(p.invoiceID, p.id, [yield* authorized(p, status), { _tag: "Finished" }], p))
        case "Authorized": {
          const next = yield* apply(p.invoiceID, p.id, yield* authorized(p, status), p)
          if (next.activity === "capturing") yield* advance(p.invoiceID, p.id, next)
          return
        }
        default:
          return yield* Effect.asVoid(apply(p.invoiceID, p.id, { _tag: "DeadlineReached" }, p))
      }
    })

  /**
   * Safe to run twice at once (the acquirer answers a repeated operation with its first answer,
   * and the transitions are optimistic).
   */
  const advance = (invoiceID: string, id: string, known?: PaymentRecord, invoice?: InvoiceRecord): Effect.Effect<void, never> =>
    Effect.gen(function*() {
      const p = known ?? (yield* load(invoiceID, id).pipe(Effect.orDie))
      switch (p.activity) {
        case "processing": {
          const at = yield* Clock.currentTimeMillis
          const deadline = p.processingDeadline?.getTime()
          if (deadline !== undefined && at >= deadline) return yield* pastDeadline(p)
          // the acquirer keeps the deadline itself: one that answers at once needs no timer
          const result = yield* acquirer.authorize({
            operationID: operationOf(p),
            amount: p.amount,
            currency: p.currency,
            tool: yield* acquirerTool(p),
            hold: p.flow.type === "PaymentFlowHold",
            makeRecurrent: p.makeRecurrent,
            deadline: p.processingDeadline
          })
          if (result._tag === "DeadlineReached") return yield* pastDeadline(p)
          if (result._tag === "Authorized" && p.flow.type === "PaymentFlowInstant") {
            return yield* authorizeAndCapture(p, result, invoice)
          }
          const next = yield* applyAuthorization(p, result, invoice)
          if (next.activity === "capturing" || next.activity === "cancelling") yield* advance(invoiceID, id, next)
          return
        }
        case "capturing":
          // A capture is never turned into a failed payment: the durable timer retries it.
          return yield* finish(p, yield* acquirer.capture(operationOf(p), p.capture?.amount ?? p.amount, p.currency), "capture", invoice)
        case "cancelling":
          return yield* finish(p, yield* acquirer.cancel(operationOf(p)), "cancel", invoice)
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
      Traced.span("PaymentService.advance")
    )

  const kick: Kick = (invoiceID, id, known, invoice) => tx.background(advance(invoiceID, id, known, invoice))

  return { advance, kick, applyAuthorization } as const
}

/** @since 0.1.0 @category models */
export type Processing = ReturnType<typeof make>

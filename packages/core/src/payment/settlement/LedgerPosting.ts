/**
 * The ledger's part of a payment's transition, inside its transaction: the authorisation holds
 * the payment's flow, a capture of another amount or allocation books its flow instead, the
 * capture commits it, a failure or a cancel rolls it back. An authorisation captured in the same
 * unit (an instant payment) posts the flow at once: held and committed in one ledger operation.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "../../Ref.js"
import type { PaymentRecord } from "../Payment.js"
import * as CashFlow from "../PaymentCashFlow.js"
import type { PaymentContext } from "../PaymentContext.js"

/** The ledger plan of a payment. @since 0.1.0 */
export const planOf = (p: Pick<PaymentRecord, "invoiceID" | "id">) =>
  `payment/${Ref.Payment.encode({ invoiceID: p.invoiceID, paymentID: p.id })}`

/** @since 0.1.0 @category constructors */
export const make = ({ ledger }: PaymentContext) => {
  /** The settlement accounts of a payment's flow. */
  const flowAccounts = (p: PaymentRecord, allocation: PaymentRecord["allocation"]) =>
    Effect.gen(function*() {
      const targets = new Map<string, number>()
      for (const t of allocation ?? []) {
        targets.set(
          t.target.shopID,
          yield* ledger.account({ kind: "settlement", partyID: p.partyID, shopID: t.target.shopID, currency: p.currency })
        )
      }
      return {
        provider: yield* ledger.account({ kind: "provider", currency: p.currency }),
        shop: yield* ledger.account({ kind: "settlement", partyID: p.partyID, shopID: p.shopID, currency: p.currency }),
        system: yield* ledger.account({ kind: "system", currency: p.currency }),
        targets
      } satisfies CashFlow.FlowAccounts
    })

  const authorises = (before: PaymentRecord, after: PaymentRecord) => before.status === "pending" && after.status === "processed"
  const captures = (before: PaymentRecord, after: PaymentRecord) => after.status === "captured" && before.status !== "captured"
  /** A capture of another amount or allocation than the authorisation's: its flow booked anew. */
  const rebooks = (before: PaymentRecord, after: PaymentRecord) =>
    before.activity === "waiting" && after.activity === "capturing" && after.capture !== undefined &&
    (after.capture.amount !== before.authorizedAmount || after.capture.allocation !== undefined)

  /** The authorisation's flow. */
  const authorisedFlow = (after: PaymentRecord) =>
    Effect.map(flowAccounts(after, after.allocation), (accounts) => ({
      id: 1,
      postings: CashFlow.postings(accounts, after.currency, after.amount, after.fee, after.allocation)
    }))

  const transition = (before: PaymentRecord, after: PaymentRecord) =>
    Effect.gen(function*() {
      const plan = planOf(after)
      if (authorises(before, after)) {
        yield* ledger.hold(plan, yield* authorisedFlow(after))
      }
      if (rebooks(before, after)) {
        const c = after.capture!
        const held = yield* ledger.plan(plan)
        const first = Option.getOrUndefined(held)?.batches[0]
        if (first !== undefined) yield* ledger.hold(plan, CashFlow.reverse(2, first))
        const allocation = c.allocation ?? after.allocation
        const accounts = yield* flowAccounts(after, allocation)
        // the machine set the fee of the captured amount with the capture
        yield* ledger.hold(plan, { id: 3, postings: CashFlow.postings(accounts, after.currency, c.amount, after.fee, allocation) })
      }
      if (captures(before, after)) yield* ledger.commit(plan)
      if ((after.status === "failed" || after.status === "cancelled") && before.status !== after.status) {
        if (Option.isSome(yield* ledger.plan(plan))) yield* ledger.rollback(plan)
      }
    })

  /**
   * The ledger's part of the unit's transitions, one after the other (`steps`: the payment before,
   * then after each). An authorisation whose flow the next transition captures as it is posts it
   * at once.
   */
  return (steps: ReadonlyArray<PaymentRecord>) =>
    Effect.gen(function*() {
      for (let i = 1; i < steps.length; i++) {
        const before = steps[i - 1]!
        const after = steps[i]!
        const next = steps[i + 1]
        if (next !== undefined && authorises(before, after) && captures(after, next) && !rebooks(after, next)) {
          yield* ledger.post(planOf(after), yield* authorisedFlow(after))
          i++
          continue
        }
        yield* transition(before, after)
      }
    })
}

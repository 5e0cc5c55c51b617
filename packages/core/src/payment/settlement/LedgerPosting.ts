/**
 * The ledger's part of a payment's transition, inside its transaction: the authorisation holds
 * the payment's flow, a capture of another amount or allocation books its flow instead, the
 * capture commits it, a failure or a cancel rolls it back.
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

  return (before: PaymentRecord, after: PaymentRecord) =>
    Effect.gen(function*() {
      const plan = planOf(after)
      if (before.status === "pending" && after.status === "processed") {
        const accounts = yield* flowAccounts(after, after.allocation)
        yield* ledger.hold(plan, {
          id: 1,
          postings: CashFlow.postings(accounts, after.currency, after.amount, after.fee, after.allocation)
        })
      }
      if (before.activity === "waiting" && after.activity === "capturing" && after.capture !== undefined) {
        const c = after.capture
        if (c.amount !== before.authorizedAmount || c.allocation !== undefined) {
          const held = yield* ledger.plan(plan)
          const first = Option.getOrUndefined(held)?.batches[0]
          if (first !== undefined) yield* ledger.hold(plan, CashFlow.reverse(2, first))
          const allocation = c.allocation ?? after.allocation
          const accounts = yield* flowAccounts(after, allocation)
          // the machine set the fee of the captured amount with the capture
          yield* ledger.hold(plan, { id: 3, postings: CashFlow.postings(accounts, after.currency, c.amount, after.fee, allocation) })
        }
      }
      if (after.status === "captured" && before.status !== "captured") yield* ledger.commit(plan)
      if ((after.status === "failed" || after.status === "cancelled") && before.status !== after.status) {
        if (Option.isSome(yield* ledger.plan(plan))) yield* ledger.rollback(plan)
      }
    })
}

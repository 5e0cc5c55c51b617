/**
 * The cash flow of a payment, as ledger postings: the provider pays the shop the amount, the
 * shop pays the platform its fee, and an allocation moves each transaction's amount from the
 * invoice's shop to its target shop.
 *
 * @since 0.1.0
 */
import type * as Allocation from "../allocation/Allocation.js"
import type { Batch, Posting } from "../ports/Ledger.js"

/** The accounts a payment's flow touches. @since 0.1.0 @category models */
export interface FlowAccounts {
  readonly provider: number
  readonly shop: number
  readonly system: number
  /** Settlement accounts of the allocation's target shops, by shop id. */
  readonly targets: ReadonlyMap<string, number>
}

/** @since 0.1.0 */
export const postings = (
  accounts: FlowAccounts,
  currency: string,
  amount: number,
  fee: number,
  allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
): ReadonlyArray<Posting> => {
  const out: Array<Posting> = [
    { from: accounts.provider, to: accounts.shop, amount, currency, description: "payment" }
  ]
  if (fee > 0) out.push({ from: accounts.shop, to: accounts.system, amount: fee, currency, description: "payment fee" })
  for (const t of allocation ?? []) {
    const to = accounts.targets.get(t.target.shopID)
    if (to !== undefined && to !== accounts.shop && t.amount > 0) {
      out.push({ from: accounts.shop, to, amount: t.amount, currency, description: "allocation" })
    }
  }
  return out
}

/** A batch undoing another. @since 0.1.0 */
export const reverse = (id: number, batch: Batch): Batch => ({
  id,
  postings: batch.postings.map((p) => ({ ...p, from: p.to, to: p.from, description: `reverse ${p.description}` }))
})

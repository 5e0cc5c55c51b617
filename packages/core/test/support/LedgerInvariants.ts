/**
 * The ledger's invariants over everything the memory store holds: every plan sums to zero per
 * currency, each balance is the sum of its committed postings, the accounts sum to zero, no
 * wallet's `own` or `available` is below zero and, once `settled`, no hold is left.
 */
import { assert } from "@effect/vitest"
import type * as LedgerModel from "@kassa/core/ledger/LedgerModel"
import { netOf } from "@kassa/core/ledger/LedgerModel"
import { MemoryStore } from "@kassa/core/memory/MemoryStore"
import type { AccountKey } from "@kassa/core/ports/Ledger"
import * as Effect from "effect/Effect"

interface StoredAccount {
  readonly key: AccountKey
  readonly state: LedgerModel.AccountState
}

/** Checks the ledger's invariants over everything the memory store holds. */
export const checkLedger = (settled: boolean) =>
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const accounts = yield* store.table<StoredAccount>("ledger_accounts").values
    const plans = yield* store.table<LedgerModel.PlanRecord>("ledger_plans").values
    const currencyOf = new Map(accounts.map((a) => [a.state.id, a.state.currency] as const))
    const committed = new Map<number, number>()
    for (const plan of plans) {
      const perCurrency = new Map<string, number>()
      for (const batch of plan.batches) {
        // what the batch does to each account, summed per the accounts' currency
        for (const [account, net] of netOf(batch)) {
          const currency = currencyOf.get(account)!
          perCurrency.set(currency, (perCurrency.get(currency) ?? 0) + net)
        }
        for (const p of batch.postings) {
          assert.isAtLeast(p.amount, 0)
          assert.strictEqual(p.currency, currencyOf.get(p.from))
          assert.strictEqual(p.currency, currencyOf.get(p.to))
          if (plan.state === "commit") {
            committed.set(p.from, (committed.get(p.from) ?? 0) - p.amount)
            committed.set(p.to, (committed.get(p.to) ?? 0) + p.amount)
          }
        }
      }
      for (const total of perCurrency.values()) assert.strictEqual(total, 0, `plan ${plan.id} sums to zero`)
      if (settled) assert.notStrictEqual(plan.state, "hold", `plan ${plan.id} is settled`)
    }
    let total = 0
    for (const { key, state } of accounts) {
      assert.strictEqual(state.own, committed.get(state.id) ?? 0, `account ${state.id}: balance = postings`)
      total += state.own
      if (key.kind === "wallet") {
        assert.isAtLeast(state.own, 0, "a wallet's own is never below zero")
        assert.isAtLeast(state.own + state.minDiff, 0, "a wallet's available is never below zero")
      }
      if (settled) assert.deepInclude(state, { minDiff: 0, maxDiff: 0 }, `account ${state.id} holds nothing`)
    }
    assert.strictEqual(total, 0, "double entry: the accounts sum to zero")
  })


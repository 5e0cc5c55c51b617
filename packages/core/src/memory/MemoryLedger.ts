/**
 * `Ledger` in memory: the pure `LedgerModel` decides, the store keeps accounts and plans, inside
 * the caller's transaction as the SQL ledger does. Misuse is a defect with the model's reason.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Model from "../ledger/LedgerModel.js"
import { type AccountKey, type Batch, Ledger } from "../ports/Ledger.js"
import { key, MemoryStore } from "./MemoryStore.js"

interface StoredAccount {
  readonly key: AccountKey
  readonly state: Model.AccountState
}

/** The key as the SQL ledger gives it back: no party or shop when it has none. */
const normalKey = (k: AccountKey): AccountKey => ({
  kind: k.kind,
  ...(k.partyID === undefined || k.partyID === "" ? {} : { partyID: k.partyID }),
  ...(k.shopID === undefined || k.shopID === "" ? {} : { shopID: k.shopID }),
  ...(k.walletID === undefined || k.walletID === "" ? {} : { walletID: k.walletID }),
  currency: k.currency
})

/** Only the posting's own fields are stored. */
const stored = (batch: Batch): Batch => ({
  id: batch.id,
  postings: batch.postings.map((p) => ({ from: p.from, to: p.to, amount: p.amount, currency: p.currency, description: p.description }))
})

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Ledger, never, MemoryStore> = Layer.effect(
  Ledger,
  Effect.map(MemoryStore, (store) => {
    const accounts = store.table<StoredAccount>("ledger_accounts")
    const accountIds = store.table<number>("ledger_account_keys")
    const plans = store.table<Model.PlanRecord>("ledger_plans")

    /** The model's state of the plan and the accounts its batches and `batch` touch. */
    const stateOf = (planID: string, batch?: Batch) =>
      Effect.gen(function*() {
        const plan = yield* plans.get(planID)
        const ids = Model.accountsOf([...Option.match(plan, { onNone: () => [], onSome: (p) => p.batches }), ...(batch ? [batch] : [])])
        const touched = new Map<number, Model.AccountState>()
        for (const id of ids) {
          const account = yield* accounts.get(String(id))
          if (Option.isSome(account)) touched.set(id, account.value.state)
        }
        const state: Model.LedgerState = { accounts: touched, plans: Option.match(plan, { onNone: () => new Map(), onSome: (p) => new Map([[planID, p]]) }) }
        return { plan, state }
      })

    /** Writes what the model decided: the plan and the accounts that changed. */
    const save = (planID: string, before: Model.LedgerState, after: Model.LedgerState) =>
      Effect.gen(function*() {
        for (const [id, state] of after.accounts) {
          if (before.accounts.get(id) === state) continue
          const account = yield* accounts.get(String(id))
          if (Option.isSome(account)) yield* accounts.set(String(id), { ...account.value, state })
        }
        const plan = after.plans.get(planID)
        if (plan !== undefined && plan !== before.plans.get(planID)) yield* plans.set(planID, plan)
      })

    const decide = (
      op: "hold" | "post" | "commit" | "rollback",
      planID: string,
      decision: (state: Model.LedgerState) => Either.Either<Model.LedgerState, Model.LedgerError>,
      batch?: Batch
    ) =>
      store.transaction(Effect.gen(function*() {
        const { plan, state } = yield* stateOf(planID, batch)
        if (op === "commit" || op === "rollback") {
          if (Option.isNone(plan)) return yield* Effect.dieMessage(`Ledger.${op}: plan ${planID} is not held`)
          if (plan.value.state === op) return
        }
        const decided = decision(state)
        if (Either.isLeft(decided)) return yield* Effect.dieMessage(`Ledger.${op}: ${decided.left.reason}`)
        yield* save(planID, state, decided.right)
      }))

    return {
      account: (k) =>
        store.transaction(Effect.gen(function*() {
          const normal = normalKey(k)
          const name = key(normal.kind, normal.partyID ?? "", normal.shopID ?? normal.walletID ?? "", normal.currency)
          const known = yield* accountIds.get(name)
          if (Option.isSome(known)) return known.value
          const id = store.next("ledger_accounts")
          yield* accounts.insert(String(id), { key: normal, state: Model.makeAccount(id, normal.currency) })
          yield* accountIds.insert(name, id)
          return id
        })),
      balance: (id) =>
        Effect.map(
          Number.isSafeInteger(id) ? accounts.get(String(id)) : Effect.succeedNone,
          Option.map(({ key, state }) => ({ id: state.id, currency: state.currency, ...Model.balanceOf(state), key }))
        ),
      hold: (planID, batch) => decide("hold", planID, (state) => Model.hold(state, planID, stored(batch)), stored(batch)),
      post: (planID, batch) => decide("post", planID, (state) => Model.post(state, planID, stored(batch)), stored(batch)),
      commit: (planID) => decide("commit", planID, (state) => Model.commit(state, planID)),
      rollback: (planID) => decide("rollback", planID, (state) => Model.rollback(state, planID)),
      plan: (planID) => plans.get(planID)
    }
  })
)

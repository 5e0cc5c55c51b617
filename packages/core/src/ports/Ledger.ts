/**
 * The double-entry ledger: accounts, and posting plans that are held, then committed or rolled
 * back, as the reference ledger does. Each account keeps `own` (committed) and the pending
 * debits and credits of held plans: `minAvailable = own + pending debits`,
 * `maxAvailable = own + pending credits`.
 *
 * Runs inside the caller's transaction: a command's ledger work commits with its state change.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export type AccountKind = "settlement" | "guarantee" | "provider" | "system" | "wallet" | "source"

/**
 * Names an account: a shop's (settlement, guarantee), a wallet's (one per wallet, in its
 * currency) or the platform's (provider, system, and `source`, where deposits come from).
 *
 * @since 0.1.0
 */
export interface AccountKey {
  readonly kind: AccountKind
  readonly partyID?: string | undefined
  readonly shopID?: string | undefined
  readonly walletID?: string | undefined
  readonly currency: string
}

/** @since 0.1.0 @category models */
export interface Balance {
  readonly id: number
  readonly currency: string
  readonly own: number
  readonly minAvailable: number
  readonly maxAvailable: number
}

/** @since 0.1.0 @category models */
export interface Posting {
  readonly from: number
  readonly to: number
  readonly amount: number
  readonly currency: string
  readonly description: string
}

/** @since 0.1.0 @category models */
export interface Batch {
  readonly id: number
  readonly postings: ReadonlyArray<Posting>
}

/** @since 0.1.0 @category models */
export type PlanState = "hold" | "commit" | "rollback"

/** @since 0.1.0 @category models */
export interface Plan {
  readonly id: string
  readonly state: PlanState
  readonly batches: ReadonlyArray<Batch>
}

/** @since 0.1.0 @category tags */
export class Ledger extends Context.Tag("kassa/Ledger")<Ledger, {
  /** The account's id, opening it on first use. */
  readonly account: (key: AccountKey) => Effect.Effect<number>
  /** The account's key and balance (for `getAccountByID`), scoped to a party when given. */
  readonly balance: (id: number) => Effect.Effect<Option.Option<Balance & { readonly key: AccountKey }>>
  /**
   * Adds a batch to a plan (creating it), holding its amounts. Batch ids grow within a plan;
   * re-sending a held batch with the same postings is a no-op. Defects on misuse (a changed
   * batch, a final plan, a currency mismatch): those are bugs, not user errors.
   */
  readonly hold: (planID: string, batch: Batch) => Effect.Effect<void>
  /** Moves every held batch into `own`. Repeating a commit is a no-op. */
  readonly commit: (planID: string) => Effect.Effect<void>
  /**
   * Holds a batch on a new plan and commits it at once (one operation for a unit that would hold
   * then commit). Repeating a post is a no-op; a plan held with other batches is misuse (a defect).
   */
  readonly post: (planID: string, batch: Batch) => Effect.Effect<void>
  /** Releases every held batch. Repeating a rollback is a no-op. */
  readonly rollback: (planID: string) => Effect.Effect<void>
  readonly plan: (planID: string) => Effect.Effect<Option.Option<Plan>>
}>() {}

/**
 * The ledger as pure functions: accounts, posting plans held in batches, then committed or
 * rolled back, as the reference ledger (shumway) does. The SQL adapter takes its rules and
 * arithmetic from here, and the property tests check it against its invariants.
 *
 * An account keeps `own` (committed) and two pending accumulators: `minDiff` (≤ 0), the sum of
 * the negative per-account nets of held batches, and `maxDiff` (≥ 0), the sum of the positive
 * ones. `minAvailable = own + minDiff`, `maxAvailable = own + maxDiff`.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type { Batch, PlanState, Posting } from "../ports/Ledger.js"

/** @since 0.1.0 @category models */
export interface AccountState {
  readonly id: number
  readonly currency: string
  /** Committed amount. */
  readonly own: number
  /** Pending debits of held batches, ≤ 0. */
  readonly minDiff: number
  /** Pending credits of held batches, ≥ 0. */
  readonly maxDiff: number
}

/** @since 0.1.0 @category models */
export interface PlanRecord {
  readonly id: string
  readonly state: PlanState
  readonly batches: ReadonlyArray<Batch>
}

/** @since 0.1.0 @category models */
export interface LedgerState {
  readonly accounts: ReadonlyMap<number, AccountState>
  readonly plans: ReadonlyMap<string, PlanRecord>
}

/** A refused operation; `reason` names plan, batch and account ids only. @since 0.1.0 @category errors */
export class LedgerError extends Data.TaggedError("LedgerError")<{ readonly reason: string }> {}

/** @since 0.1.0 @category models */
export interface AccountBalance {
  readonly own: number
  readonly minAvailable: number
  readonly maxAvailable: number
}

/** The per-account effect of batches: the net, and its negative and positive pending parts. @since 0.1.0 @category models */
export interface AccountDiff {
  readonly net: number
  /** Sum of the negative batch nets, ≤ 0. */
  readonly minDiff: number
  /** Sum of the positive batch nets, ≥ 0. */
  readonly maxDiff: number
}

/** A ledger with no accounts and no plans. @since 0.1.0 @category constructors */
export const empty: LedgerState = { accounts: new Map(), plans: new Map() }

/** A fresh account: nothing committed, nothing pending. @since 0.1.0 @category constructors */
export const makeAccount = (id: number, currency: string): AccountState => ({ id, currency, own: 0, minDiff: 0, maxDiff: 0 })

/** Adds (or replaces) an account. @since 0.1.0 @category constructors */
export const withAccount = (state: LedgerState, account: AccountState): LedgerState => ({
  accounts: new Map(state.accounts).set(account.id, account),
  plans: state.plans
})

/** @since 0.1.0 */
export const balanceOf = (account: AccountState): AccountBalance => ({
  own: account.own,
  minAvailable: account.own + account.minDiff,
  maxAvailable: account.own + account.maxDiff
})

/**
 * Credits minus debits per account of one batch; every account a posting touches has an entry
 * (possibly 0), in order of first appearance.
 *
 * @since 0.1.0
 */
export const netOf = (batch: Batch): Map<number, number> => {
  const net = new Map<number, number>()
  for (const p of batch.postings) {
    net.set(p.from, (net.get(p.from) ?? 0) - p.amount)
    net.set(p.to, (net.get(p.to) ?? 0) + p.amount)
  }
  return net
}

/**
 * The summed effect of batches per account: each batch's net goes to `minDiff` when negative,
 * to `maxDiff` when positive; `net` is their sum.
 *
 * @since 0.1.0
 */
export const diffsOf = (batches: ReadonlyArray<Batch>): Map<number, AccountDiff> => {
  const diffs = new Map<number, AccountDiff>()
  for (const batch of batches) {
    for (const [id, net] of netOf(batch)) {
      const d = diffs.get(id) ?? { net: 0, minDiff: 0, maxDiff: 0 }
      diffs.set(id, {
        net: d.net + net,
        minDiff: d.minDiff + Math.min(net, 0),
        maxDiff: d.maxDiff + Math.max(net, 0)
      })
    }
  }
  return diffs
}

/** The accounts a batch touches, ascending (the order to lock them in). @since 0.1.0 */
export const accountsOf = (batches: ReadonlyArray<Batch>): ReadonlyArray<number> => {
  const ids = new Set<number>()
  for (const batch of batches) {
    for (const p of batch.postings) {
      ids.add(p.from)
      ids.add(p.to)
    }
  }
  return [...ids].sort((a, b) => a - b)
}

const samePosting = (a: Posting, b: Posting): boolean =>
  a.from === b.from && a.to === b.to && a.amount === b.amount && a.currency === b.currency &&
  a.description === b.description

/** Same id and the same postings in the same order. @since 0.1.0 */
export const sameBatch = (a: Batch, b: Batch): boolean =>
  a.id === b.id && a.postings.length === b.postings.length && a.postings.every((p, i) => samePosting(p, b.postings[i]!))

/**
 * Checks a batch against the accounts it names: a safe-integer id, at least one posting, and per
 * posting known accounts, `from ≠ to`, a safe non-negative integer amount, and a currency equal
 * to both accounts'. Per-account nets must stay safe integers.
 *
 * @since 0.1.0
 */
export const validateBatch = (
  batch: Batch,
  accounts: ReadonlyMap<number, AccountState>
): Either.Either<void, string> => {
  if (!Number.isSafeInteger(batch.id)) return Either.left(`batch id ${String(batch.id)} is not a safe integer`)
  if (batch.postings.length === 0) return Either.left(`batch ${batch.id} has no postings`)
  for (const [i, p] of batch.postings.entries()) {
    const at = `posting ${i} of batch ${batch.id}`
    if (p.from === p.to) return Either.left(`${at} moves money from account ${p.from} to itself`)
    if (!Number.isSafeInteger(p.amount) || p.amount < 0) return Either.left(`${at} has an invalid amount`)
    const from = accounts.get(p.from)
    if (from === undefined) return Either.left(`${at} names unknown account ${p.from}`)
    const to = accounts.get(p.to)
    if (to === undefined) return Either.left(`${at} names unknown account ${p.to}`)
    if (p.currency !== from.currency || p.currency !== to.currency) {
      return Either.left(`${at} is in ${p.currency}, account ${p.from} in ${from.currency}, account ${p.to} in ${to.currency}`)
    }
  }
  for (const [id, net] of netOf(batch)) {
    if (!Number.isSafeInteger(net)) return Either.left(`batch ${batch.id} overflows on account ${id}`)
  }
  return Either.void
}

const refuse = (reason: string) => Either.left(new LedgerError({ reason }))

const finalName = (state: PlanState) => (state === "commit" ? "committed" : "rolled back")

/**
 * Applies `diffs` to the accounts with `f`; refuses when an account is missing or a number
 * would leave the safe-integer range.
 */
const applyDiffs = (
  accounts: ReadonlyMap<number, AccountState>,
  diffs: ReadonlyMap<number, AccountDiff>,
  f: (account: AccountState, diff: AccountDiff) => AccountState
): Either.Either<Map<number, AccountState>, LedgerError> => {
  const next = new Map(accounts)
  for (const [id, diff] of diffs) {
    const account = accounts.get(id)
    if (account === undefined) return refuse(`account ${id} is unknown`)
    const updated = f(account, diff)
    const b = balanceOf(updated)
    if (![updated.own, updated.minDiff, updated.maxDiff, b.minAvailable, b.maxAvailable].every(Number.isSafeInteger)) {
      return refuse(`account ${id} would leave the safe integer range`)
    }
    next.set(id, updated)
  }
  return Either.right(next)
}

/**
 * Adds a batch to a plan, creating the plan, and holds the batch's nets: negative ones into
 * `minDiff`, positive ones into `maxDiff`. Re-sending a held batch with the same postings is a
 * no-op (the same state); a batch id not above every held one, a changed batch, an invalid
 * batch or a final plan are refused.
 *
 * @since 0.1.0
 */
export const hold = (state: LedgerState, planID: string, batch: Batch): Either.Either<LedgerState, LedgerError> => {
  const plan = state.plans.get(planID)
  if (plan !== undefined) {
    if (plan.state !== "hold") return refuse(`Unable to change plan state: plan ${planID} is ${finalName(plan.state)}`)
    const saved = plan.batches.find((b) => b.id === batch.id)
    if (saved !== undefined) {
      return sameBatch(saved, batch)
        ? Either.right(state)
        : refuse(`batch ${batch.id} of plan ${planID} was held with other postings`)
    }
    const last = plan.batches.reduce((max, b) => Math.max(max, b.id), -Infinity)
    if (batch.id <= last) return refuse(`batch ${batch.id} of plan ${planID} must be greater than held batch ${last}`)
  }
  const valid = validateBatch(batch, state.accounts)
  if (Either.isLeft(valid)) return refuse(`plan ${planID}: ${valid.left}`)
  return Either.map(
    applyDiffs(state.accounts, diffsOf([batch]), (a, d) => ({
      ...a,
      minDiff: a.minDiff + d.minDiff,
      maxDiff: a.maxDiff + d.maxDiff
    })),
    (accounts): LedgerState => ({
      accounts,
      plans: new Map(state.plans).set(planID, {
        id: planID,
        state: "hold",
        batches: [...(plan?.batches ?? []), batch]
      })
    })
  )
}

const finish = (
  state: LedgerState,
  planID: string,
  to: "commit" | "rollback",
  f: (account: AccountState, diff: AccountDiff) => AccountState
): Either.Either<LedgerState, LedgerError> => {
  const plan = state.plans.get(planID)
  if (plan === undefined) return refuse(`plan ${planID} is not held`)
  if (plan.state === to) return Either.right(state)
  if (plan.state !== "hold") return refuse(`Unable to change plan state: plan ${planID} is ${finalName(plan.state)}`)
  return Either.map(applyDiffs(state.accounts, diffsOf(plan.batches), f), (accounts): LedgerState => ({
    accounts,
    plans: new Map(state.plans).set(planID, { ...plan, state: to })
  }))
}

/**
 * Moves every held batch of a plan into `own` and releases its pending parts. Repeating a
 * commit is a no-op (the same state); an unknown or rolled-back plan is refused.
 *
 * @since 0.1.0
 */
export const commit = (state: LedgerState, planID: string): Either.Either<LedgerState, LedgerError> =>
  finish(state, planID, "commit", (a, d) => ({
    ...a,
    own: a.own + d.net,
    minDiff: a.minDiff - d.minDiff,
    maxDiff: a.maxDiff - d.maxDiff
  }))

/**
 * Releases every held batch of a plan; `own` is unchanged. Repeating a rollback is a no-op (the
 * same state); an unknown or committed plan is refused.
 *
 * @since 0.1.0
 */
export const rollback = (state: LedgerState, planID: string): Either.Either<LedgerState, LedgerError> =>
  finish(state, planID, "rollback", (a, d) => ({
    ...a,
    minDiff: a.minDiff - d.minDiff,
    maxDiff: a.maxDiff - d.maxDiff
  }))

/**
 * Holds a batch on a new plan and commits it at once: the checks of a hold then a commit, and
 * the accounts' `own` moved by the batch's nets (nothing pending in between). Repeating a post
 * (the plan holding exactly this batch, committed) is a no-op; a plan held with exactly this
 * batch is committed; any other plan (other batches, rolled back) is refused.
 *
 * @since 0.1.0
 */
export const post = (state: LedgerState, planID: string, batch: Batch): Either.Either<LedgerState, LedgerError> => {
  const plan = state.plans.get(planID)
  if (plan !== undefined && !(plan.batches.length === 1 && sameBatch(plan.batches[0]!, batch))) {
    return refuse(`plan ${planID} to post was held with other batches`)
  }
  if (plan?.state === "commit") return Either.right(state)
  return Either.flatMap(plan === undefined ? hold(state, planID, batch) : Either.right(state), (held) => commit(held, planID))
}

/**
 * The violated invariants of a ledger whose accounts opened at zero (empty when it is sound):
 * every batch's postings sum to zero per currency; each account's `own` is the sum of its
 * committed nets, `minDiff` / `maxDiff` the sums of the negative / positive nets of its held
 * batches; `minAvailable ≤ own ≤ maxAvailable`.
 *
 * @since 0.1.0
 */
export const invariants = (state: LedgerState): ReadonlyArray<string> => {
  const violations: Array<string> = []
  const expected = new Map<number, { own: number; minDiff: number; maxDiff: number }>()
  const entry = (id: number) => {
    const e = expected.get(id) ?? { own: 0, minDiff: 0, maxDiff: 0 }
    expected.set(id, e)
    return e
  }
  for (const plan of state.plans.values()) {
    for (const batch of plan.batches) {
      const perCurrency = new Map<string, number>()
      for (const [id, net] of netOf(batch)) {
        const account = state.accounts.get(id)
        if (account === undefined) {
          violations.push(`plan ${plan.id} batch ${batch.id} names unknown account ${id}`)
          continue
        }
        perCurrency.set(account.currency, (perCurrency.get(account.currency) ?? 0) + net)
      }
      for (const [currency, sum] of perCurrency) {
        if (sum !== 0) violations.push(`plan ${plan.id} batch ${batch.id} sums to ${sum} in ${currency}`)
      }
    }
    for (const [id, d] of diffsOf(plan.batches)) {
      const e = entry(id)
      if (plan.state === "commit") e.own += d.net
      if (plan.state === "hold") {
        e.minDiff += d.minDiff
        e.maxDiff += d.maxDiff
      }
    }
  }
  for (const account of state.accounts.values()) {
    const e = expected.get(account.id) ?? { own: 0, minDiff: 0, maxDiff: 0 }
    const b = balanceOf(account)
    if (account.own !== e.own) violations.push(`account ${account.id}: own ${account.own}, committed ${e.own}`)
    if (account.minDiff !== e.minDiff) violations.push(`account ${account.id}: minDiff ${account.minDiff}, pending ${e.minDiff}`)
    if (account.maxDiff !== e.maxDiff) violations.push(`account ${account.id}: maxDiff ${account.maxDiff}, pending ${e.maxDiff}`)
    if (!(b.minAvailable <= b.own && b.own <= b.maxAvailable)) {
      violations.push(`account ${account.id}: minAvailable ${b.minAvailable}, own ${b.own}, maxAvailable ${b.maxAvailable}`)
    }
  }
  return violations
}

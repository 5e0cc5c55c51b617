/**
 * Checks of the ledger tables a test can run at its end: the money is conserved and nothing is
 * left pending that should not be.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Model from "@kassa/core/ledger/LedgerModel"
import { type Batch, Ledger, type PlanState, type Posting } from "@kassa/core/ports/Ledger"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** An account row of `ledger_accounts`. @since 0.1.0 @category models */
export interface AccountRow {
  readonly id: number
  readonly kind: string
  readonly partyID: string
  readonly shopID: string
  readonly currency: string
  readonly own: number
  readonly minDiff: number
  readonly maxDiff: number
}

/** A plan of `ledger_plans` with its batches of `ledger_batches`. @since 0.1.0 @category models */
export interface PlanRow {
  readonly id: string
  readonly state: PlanState
  readonly batches: ReadonlyArray<Batch>
}

/** The ledger tables as read in one consistent snapshot. @since 0.1.0 @category models */
export interface Snapshot {
  readonly accounts: ReadonlyArray<AccountRow>
  readonly plans: ReadonlyArray<PlanRow>
}

// Rows come back camelCase through the client's name transform; read snake_case too, so that a
// client without the transform reads the same.
const field = (row: any, camel: string, snake: string): unknown => row[camel] ?? row[snake]
const num = (v: unknown): number => (typeof v === "number" ? v : Number(v))
const str = (v: unknown): string => (v === null || v === undefined ? "" : String(v))

/**
 * Reads the three ledger tables in one transaction (REPEATABLE READ on PostgreSQL), so that
 * work still running elsewhere cannot tear the picture.
 *
 * @since 0.1.0
 */
export const snapshot: Effect.Effect<Snapshot, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const read = Effect.gen(function*() {
    yield* sql.onDialectOrElse({
      pg: () => sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"),
      orElse: () => Effect.void
    })
    const accounts = yield* sql.unsafe<any>(
      "SELECT id, kind, party_id, shop_id, currency, own, min_diff, max_diff FROM ledger_accounts ORDER BY id"
    )
    const plans = yield* sql.unsafe<any>("SELECT id, state FROM ledger_plans ORDER BY id")
    const batches = yield* sql.unsafe<any>("SELECT plan_id, batch_id, postings FROM ledger_batches ORDER BY plan_id, batch_id")
    return { accounts, plans, batches }
  })
  const rows = yield* sql.withTransaction(read)
  const byPlan = new Map<string, Array<Batch>>()
  for (const b of rows.batches) {
    const planID = str(field(b, "planId", "plan_id"))
    const raw = field(b, "postings", "postings")
    const postings = (typeof raw === "string" ? JSON.parse(raw) : raw) as ReadonlyArray<Posting>
    const list = byPlan.get(planID) ?? []
    list.push({ id: num(field(b, "batchId", "batch_id")), postings })
    byPlan.set(planID, list)
  }
  return {
    accounts: rows.accounts.map((r: any): AccountRow => ({
      id: num(r.id),
      kind: str(r.kind),
      partyID: str(field(r, "partyId", "party_id")),
      shopID: str(field(r, "shopId", "shop_id")),
      currency: str(r.currency),
      own: num(r.own),
      minDiff: num(field(r, "minDiff", "min_diff")),
      maxDiff: num(field(r, "maxDiff", "max_diff"))
    })),
    plans: rows.plans.map((p: any): PlanRow => ({
      id: str(p.id),
      state: str(p.state) as PlanState,
      batches: byPlan.get(str(p.id)) ?? []
    }))
  }
}).pipe(Effect.orDie)

/**
 * The violated invariants of a ledger snapshot (empty when it is sound):
 *
 * - per currency, the `own` of all accounts sums to 0 (money is moved, never made);
 * - every account has `min_diff ≤ 0 ≤ max_diff`;
 * - every batch of every plan names known accounts, from ≠ to, non-negative integer amounts in
 *   the currency of both accounts, and sums to zero per currency;
 * - every batch belongs to a plan; a plan is `hold`, `commit` or `rollback`;
 * - the accounts agree with the plans (`LedgerModel.invariants`): `own` is the sum of the
 *   committed nets, `min_diff` / `max_diff` the sums of the held ones, so a committed or rolled
 *   back plan leaves no pending contribution;
 * - when no plan is held, every account has `min_diff = max_diff = 0`.
 *
 * @since 0.1.0
 */
export const violationsOf = (s: Snapshot): ReadonlyArray<string> => {
  const out: Array<string> = []
  const accounts = new Map(s.accounts.map((a) => [a.id, a] as const))
  const own = new Map<string, number>()
  for (const a of s.accounts) {
    own.set(a.currency, (own.get(a.currency) ?? 0) + a.own)
    if (!(a.minDiff <= 0 && 0 <= a.maxDiff)) {
      out.push(`account ${a.id} (${a.kind} ${a.currency}): min_diff ${a.minDiff}, max_diff ${a.maxDiff}`)
    }
    for (const v of [a.own, a.minDiff, a.maxDiff]) {
      if (!Number.isSafeInteger(v)) out.push(`account ${a.id}: ${v} is not a safe integer`)
    }
  }
  for (const [currency, sum] of own) {
    if (sum !== 0) out.push(`own of all ${currency} accounts sums to ${sum}, not 0`)
  }
  for (const plan of s.plans) {
    if (!["hold", "commit", "rollback"].includes(plan.state)) out.push(`plan ${plan.id} is in state ${plan.state}`)
    for (const batch of plan.batches) {
      const at = `plan ${plan.id} batch ${batch.id}`
      const perCurrency = new Map<string, number>()
      for (const p of batch.postings) {
        const from = accounts.get(p.from)
        const to = accounts.get(p.to)
        if (from === undefined || to === undefined) {
          out.push(`${at}: a posting names unknown account ${from === undefined ? p.from : p.to}`)
          continue
        }
        if (p.from === p.to) out.push(`${at}: a posting moves money from account ${p.from} to itself`)
        if (!Number.isSafeInteger(p.amount) || p.amount < 0) out.push(`${at}: a posting has amount ${p.amount}`)
        if (p.currency !== from.currency || p.currency !== to.currency) {
          out.push(`${at}: a posting in ${p.currency} between a ${from.currency} and a ${to.currency} account`)
        }
        perCurrency.set(from.currency, (perCurrency.get(from.currency) ?? 0) - p.amount)
        perCurrency.set(to.currency, (perCurrency.get(to.currency) ?? 0) + p.amount)
      }
      for (const [currency, sum] of perCurrency) {
        if (sum !== 0) out.push(`${at} sums to ${sum} in ${currency}`)
      }
    }
  }
  const planIDs = new Set(s.plans.map((p) => p.id))
  if (planIDs.size !== s.plans.length) out.push("two plans share an id")
  const model: Model.LedgerState = {
    accounts: new Map(
      s.accounts.map((a) => [a.id, { id: a.id, currency: a.currency, own: a.own, minDiff: a.minDiff, maxDiff: a.maxDiff }] as const)
    ),
    plans: new Map(s.plans.map((p) => [p.id, { id: p.id, state: p.state, batches: p.batches }] as const))
  }
  out.push(...Model.invariants(model))
  if (!s.plans.some((p) => p.state === "hold")) {
    for (const a of s.accounts) {
      if (a.minDiff !== 0 || a.maxDiff !== 0) {
        out.push(`no plan is held, yet account ${a.id} has min_diff ${a.minDiff}, max_diff ${a.maxDiff}`)
      }
    }
  }
  return out
}

/** The violated invariants of the ledger tables now. @since 0.1.0 */
export const violations: Effect.Effect<ReadonlyArray<string>, never, SqlClient.SqlClient> = Effect.map(snapshot, violationsOf)

/**
 * Dies, naming every violation, unless the ledger tables keep the invariants of `violationsOf`.
 * Run it at the end of every test that moves money, once its payments reached their final
 * states.
 *
 * @since 0.1.0
 */
export const invariants: Effect.Effect<void, never, SqlClient.SqlClient> = Effect.flatMap(violations, (found) =>
  found.length === 0
    ? Effect.void
    : Effect.dieMessage(`ledger invariants violated:\n${found.map((v) => `  - ${v}`).join("\n")}`))

/**
 * The row of an account, by its key (`partyID` / `shopID` are '' for the platform's accounts).
 *
 * @since 0.1.0
 */
export const account = (key: { readonly kind: string; readonly partyID?: string; readonly shopID?: string; readonly currency: string }) =>
  Effect.map(snapshot, (s) =>
    s.accounts.find((a) =>
      a.kind === key.kind && a.partyID === (key.partyID ?? "") && a.shopID === (key.shopID ?? "") &&
      a.currency === key.currency
    ))

/**
 * A shop's settlement account through the `Ledger` port: its id, what it holds and its held
 * differences. The account must have been opened (by the shop's first posting).
 *
 * @since 0.1.0
 */
export const settlementAccount = (partyID: string, shopID: string, currency = "RUB") =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const id = yield* ledger.account({ kind: "settlement", partyID, shopID, currency })
    const balance = yield* ledger.balance(id)
    if (Option.isNone(balance)) return yield* Effect.dieMessage(`no settlement account of ${shopID} in ${currency}`)
    const { own, minAvailable, maxAvailable } = balance.value
    return { id, own, minDiff: minAvailable - own, maxDiff: maxAvailable - own }
  })

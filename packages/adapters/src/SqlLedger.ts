/**
 * `Ledger` on `SqlClient`, one implementation for PostgreSQL and SQLite. It runs inside the
 * caller's transaction and opens none: a command's postings commit with its state change.
 *
 * The rules (what may be held, committed, rolled back) and the arithmetic come from the pure
 * `LedgerModel`; the writes are relative (`min_diff = min_diff + ?`). On PostgreSQL an operation
 * locks its plan row first, then the touched account rows in id order, so concurrent plans on
 * shared accounts serialise without deadlocks; SQLite serialises writers by itself. Misuse (a
 * changed batch, a final plan, a currency mismatch…) is a defect with the model's reason.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Model from "@kassa/core/ledger/LedgerModel"
import { type AccountKey, type Batch, Ledger, type Plan, type PlanState, type Posting } from "@kassa/core/ports/Ledger"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { int, json, opt, toJson } from "./internal/rows.js"

const accountFromRow = (r: any): Model.AccountState => ({
  id: int(r.id),
  currency: r.currency,
  own: int(r.own),
  minDiff: int(r.minDiff),
  maxDiff: int(r.maxDiff)
})

const keyFromRow = (r: any): AccountKey => ({
  kind: r.kind,
  ...opt("partyID", r.partyId === "" ? undefined : (r.partyId as string)),
  ...opt("shopID", r.shopId === "" ? undefined : (r.shopId as string)),
  currency: r.currency
})

/** Only the posting's own fields are stored, in a fixed order. */
const postingToJson = (p: Posting): Posting => ({
  from: p.from,
  to: p.to,
  amount: p.amount,
  currency: p.currency,
  description: p.description
})

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Ledger,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const forUpdate = sql.onDialectOrElse({
      pg: () => sql.literal("FOR UPDATE"),
      orElse: () => sql.literal("")
    })

    const lockPlan = (planID: string) =>
      sql<{ state: PlanState }>`SELECT state FROM ledger_plans WHERE id = ${planID} ${forUpdate}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map((r) => r.state)))
      )

    const loadBatches = (planID: string) =>
      sql`SELECT batch_id, postings FROM ledger_batches WHERE plan_id = ${planID} ORDER BY batch_id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Batch => ({ id: int(r.batchId), postings: json<ReadonlyArray<Posting>>(r.postings) }))
        )
      )

    /** Reads (on PostgreSQL: locks) the accounts, in id order. */
    const lockAccounts = (ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, Model.AccountState>())
        : sql`SELECT id, currency, own, min_diff, max_diff FROM ledger_accounts
              WHERE id IN ${sql.in(ids)} ORDER BY id ${forUpdate}`.pipe(
          Effect.map((rows) => new Map(rows.map((r) => [int(r.id), accountFromRow(r)] as const)))
        )

    const planState = (planID: string, state: PlanState, batches: ReadonlyArray<Batch>, accounts: ReadonlyMap<number, Model.AccountState>): Model.LedgerState => ({
      accounts,
      plans: new Map([[planID, { id: planID, state, batches }]])
    })

    const refuse = (op: string) => (e: Model.LedgerError) => Effect.dieMessage(`Ledger.${op}: ${e.reason}`)

    const finish = (op: "commit" | "rollback", planID: string) =>
      Effect.gen(function*() {
        const state = yield* lockPlan(planID)
        if (Option.isNone(state)) return yield* Effect.dieMessage(`Ledger.${op}: plan ${planID} is not held`)
        if (state.value === op) return
        const batches = yield* loadBatches(planID)
        const accounts = yield* lockAccounts(Model.accountsOf(batches))
        const decided = (op === "commit" ? Model.commit : Model.rollback)(planState(planID, state.value, batches, accounts), planID)
        if (Either.isLeft(decided)) return yield* refuse(op)(decided.left)
        for (const [id, d] of Model.diffsOf(batches)) {
          const net = op === "commit" ? d.net : 0
          if (net === 0 && d.minDiff === 0 && d.maxDiff === 0) continue
          yield* sql`UPDATE ledger_accounts SET own = own + ${net}, min_diff = min_diff - ${d.minDiff},
                     max_diff = max_diff - ${d.maxDiff} WHERE id = ${id}`
        }
        yield* sql`UPDATE ledger_plans SET state = ${op} WHERE id = ${planID}`
      }).pipe(Effect.orDie)

    return {
      account: (key) =>
        Effect.gen(function*() {
          const row = {
            kind: key.kind,
            partyId: key.partyID ?? "",
            shopId: key.shopID ?? "",
            currency: key.currency
          }
          const find = sql`SELECT id FROM ledger_accounts WHERE kind = ${row.kind}
            AND party_id = ${row.partyId} AND shop_id = ${row.shopId} AND currency = ${row.currency}`
          // Accounts are opened once and read ever after: read first, open only when missing.
          let rows = yield* find
          if (rows.length === 0) {
            yield* sql`INSERT INTO ledger_accounts ${sql.insert({ ...row, own: 0, minDiff: 0, maxDiff: 0 })}
                     ON CONFLICT DO NOTHING`
            rows = yield* find
          }
          if (rows.length === 0) return yield* Effect.dieMessage(`Ledger.account: the ${key.kind} account was not opened`)
          return int(rows[0]!.id)
        }).pipe(Effect.orDie),

      balance: (id) =>
        Number.isSafeInteger(id)
          ? sql`SELECT * FROM ledger_accounts WHERE id = ${id}`.pipe(
            Effect.map((rows) =>
              Option.fromNullable(rows[0]).pipe(Option.map((r) => {
                const account = accountFromRow(r)
                return { id: account.id, currency: account.currency, ...Model.balanceOf(account), key: keyFromRow(r) }
              }))
            ),
            Effect.orDie
          )
          : Effect.succeed(Option.none()),

      hold: (planID, batch) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO ledger_plans ${sql.insert({ id: planID, state: "hold" })} ON CONFLICT DO NOTHING`
          const state = yield* lockPlan(planID)
          if (Option.isNone(state)) return yield* Effect.dieMessage(`Ledger.hold: plan ${planID} was not created`)
          const batches = yield* loadBatches(planID)
          const accounts = yield* lockAccounts(Model.accountsOf([batch]).filter(Number.isSafeInteger))
          const decided = Model.hold(planState(planID, state.value, batches, accounts), planID, batch)
          if (Either.isLeft(decided)) return yield* refuse("hold")(decided.left)
          if (batches.some((b) => b.id === batch.id)) return
          yield* sql`INSERT INTO ledger_batches ${
            sql.insert({ planId: planID, batchId: batch.id, postings: toJson(batch.postings.map(postingToJson)) })
          }`
          for (const [id, d] of Model.diffsOf([batch])) {
            if (d.minDiff === 0 && d.maxDiff === 0) continue
            yield* sql`UPDATE ledger_accounts SET min_diff = min_diff + ${d.minDiff},
                       max_diff = max_diff + ${d.maxDiff} WHERE id = ${id}`
          }
        }).pipe(Effect.orDie),

      commit: (planID) => finish("commit", planID),

      rollback: (planID) => finish("rollback", planID),

      plan: (planID) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ state: PlanState }>`SELECT state FROM ledger_plans WHERE id = ${planID}`
          if (rows.length === 0) return Option.none<Plan>()
          return Option.some<Plan>({ id: planID, state: rows[0]!.state, batches: yield* loadBatches(planID) })
        }).pipe(Effect.orDie)
    }
  })
)

/**
 * `Ledger` on `SqlClient`, one implementation for PostgreSQL and SQLite. It runs inside the
 * caller's transaction and opens none: a command's postings commit with its state change.
 *
 * The rules (what may be held, committed, rolled back) and the arithmetic come from the pure
 * `LedgerModel`; the writes are relative (`min_diff = min_diff + ?`). On PostgreSQL an operation
 * locks its plan row first, then the touched account rows in id order, so concurrent plans on
 * shared accounts serialise without deadlocks; SQLite serialises writers by itself, and there a
 * hold or a post on a plan just opened, or a commit or rollback, writes first and checks the rows
 * its writes answer (`RETURNING`): a refusal's defect rolls the unit back. Misuse (a changed batch, a final
 * plan, a currency mismatch…) is a defect with the model's reason.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Model from "@kassa/core/ledger/LedgerModel"
import { type AccountKey, type Balance, type Batch, Ledger, type Plan, type PlanState, type Posting } from "@kassa/core/ports/Ledger"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { rowLock } from "./internal/locks.js"
import { BoolColumn, IntColumn, JsonColumn, opt, reader, toJson } from "./internal/rows.js"
import { heldSignals } from "./sql/driver/Signals.js"
import {
  changing,
  inserting,
  lockingRows,
  touchingOnly,
  transactionMemo,
  withHeldWrites,
  type Write,
  writeAll
} from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

/** A `ledger_accounts` row, as the ledger's reads name its columns. */
const AccountRow = Schema.Struct({
  id: IntColumn,
  currency: Schema.String,
  own: IntColumn,
  minDiff: IntColumn,
  maxDiff: IntColumn
})

const accounts = reader(AccountRow, (r): Model.AccountState => r)

const accountsById = (rows: ReadonlyArray<unknown>) => new Map(accounts.all(rows).map((a) => [a.id, a] as const))

/**
 * An account with its key: `party_id` and `shop_id` are "" for the platform's accounts; a
 * wallet's account keeps its wallet's id in `shop_id` (the owner inside the party).
 */
const balances = reader(
  Schema.Struct({
    ...AccountRow.fields,
    kind: Schema.Literal("settlement", "guarantee", "provider", "system", "wallet", "source"),
    partyId: Schema.String,
    shopId: Schema.String
  }),
  ({ kind, partyId, shopId, ...account }): Balance & { readonly key: AccountKey } => ({
    id: account.id,
    currency: account.currency,
    ...Model.balanceOf(account),
    key: {
      kind,
      ...opt("partyID", partyId === "" ? undefined : partyId),
      ...opt(kind === "wallet" ? "walletID" : "shopID", shopId === "" ? undefined : shopId),
      currency: account.currency
    }
  })
)

const Postings = Schema.Array(Schema.Struct({
  from: Schema.Number,
  to: Schema.Number,
  amount: Schema.Number,
  currency: Schema.String,
  description: Schema.String
}))

/** A plan with one of its batches (none: the batch columns are NULL). */
const planRows = reader(
  Schema.Struct({
    state: Schema.Literal("hold", "commit", "rollback"),
    batchId: Schema.NullOr(IntColumn),
    postings: Schema.NullOr(JsonColumn(Postings))
  }),
  (r) => r
)

/** The plan its rows (one a batch, or one with none) tell of. */
const planFrom = (found: ReadonlyArray<unknown>): Option.Option<HeldPlan> => {
  const rows = planRows.all(found)
  return rows.length === 0 ? Option.none() : Option.some({
    state: rows[0]!.state,
    batches: rows.flatMap((r): Array<Batch> => r.batchId === null ? [] : [{ id: r.batchId, postings: r.postings ?? [] }])
      .sort((a, b) => a.id - b.id)
  })
}

/** A plan's batches, as one JSON array (SQLite's `json_group_array`). */
const batchesJson = reader(
  Schema.Struct({ batches: JsonColumn(Schema.Array(Schema.Struct({ id: Schema.Number, postings: Postings }))) }),
  (r): ReadonlyArray<Batch> => [...r.batches].sort((a, b) => a.id - b.id)
)

/** The account a `ledger.account` lookup found, and whether its row is committed. */
const foundAccounts = reader(Schema.Struct({ id: IntColumn, committed: BoolColumn }), (r) => r)

/** Only the posting's own fields are stored, in a fixed order. */
const postingToJson = (p: Posting): Posting => ({
  from: p.from,
  to: p.to,
  amount: p.amount,
  currency: p.currency,
  description: p.description
})

type HeldPlan = { readonly state: PlanState; readonly batches: ReadonlyArray<Batch> }

/**
 * The plans and accounts a PostgreSQL transaction keeps (read `FOR UPDATE`), or a SQLite unit
 * (which holds the one connection alone) read, as its own writes left them: a second operation on
 * them in the transaction (a capture's commit after its hold, a balance after a hold) reads
 * nothing.
 */
interface Kept {
  readonly plans: Map<string, HeldPlan>
  readonly accounts: Map<number, Model.AccountState>
  /**
   * The account moves of the transaction's held write of `ledger_accounts` while it is not sent
   * yet: a later hold, commit or rollback adds to them, and the rows move once (a capture's hold
   * and commit in one statement; one row cannot be updated twice in one statement).
   */
  moves: Moves | undefined
}

/** Additions to accounts' columns (own, min_diff, max_diff) by account id. */
type Moves = Map<number, readonly [own: number, minDiff: number, maxDiff: number]>

const kept: Effect.Effect<Kept | undefined> = Effect.map(transactionMemo, (memo) => {
  if (memo === undefined) return undefined
  let found = memo.get("ledger") as Kept | undefined
  if (found === undefined) memo.set("ledger", found = { plans: new Map(), accounts: new Map(), moves: undefined })
  return found
})

/** Adds `deltas` to `moves`. */
const addMoves = (moves: Moves, deltas: ReadonlyArray<readonly [id: number, own: number, minDiff: number, maxDiff: number]>) => {
  for (const [id, own, min, max] of deltas) {
    const [o, mi, ma] = moves.get(id) ?? [0, 0, 0]
    moves.set(id, [o + own, mi + min, ma + max])
  }
}

/** Keeps what a decision of the model left of the plan and its accounts. */
const keep = (into: Kept | undefined, planID: string, state: Model.LedgerState) => {
  if (into === undefined) return
  const plan = state.plans.get(planID)
  if (plan !== undefined) into.plans.set(planID, { state: plan.state, batches: plan.batches })
  for (const [id, account] of state.accounts) into.accounts.set(id, account)
}

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  Ledger,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const forUpdate = rowLock(sql, "FOR UPDATE")

    // Account ids never change: they are kept once read. Only a committed row is kept: one opened
    // by the caller's own transaction (or a savepoint in it), which may still roll back, never is.
    // A row the read sees is committed or the transaction's own. PostgreSQL: `age(xmin) > 0` tells
    // the two apart: `age` counts from the transaction's own id (or the next id when it had none
    // yet, read once per transaction), and every id of the transaction and its savepoints is that
    // one or newer. (Not "older than every transaction still running": on a shared server any open
    // transaction, in any database, held that back and the ids went unkept, a read each time.)
    // SQLite: another connection's uncommitted rows are never seen, and only `account` opens
    // accounts, so a row is this process's own uncommitted one only while its key is `opening`.
    const knownIds = new Map<string, number>()
    // SQLite: the keys this process tried to open in a transaction not committed yet. A key leaves
    // once that transaction commits (with its signals, after the outermost COMMIT); the next read
    // then tells whether the row is there (a savepoint in it may have rolled it back). A key whose
    // transaction rolled back stays: it is read each time, never kept wrong.
    const opening = new Set<string>()
    const sqlite = sql.onDialectOrElse({ pg: () => false, orElse: () => true })
    // Their keys by id, as `account` answered them (a balance of an account a transaction keeps
    // needs no read then).
    const knownKeys = new Map<number, AccountKey>()
    const committed = sql.onDialectOrElse({
      pg: () => sql.literal("age(xmin) > 0"),
      orElse: () => sql.literal("0")
    })

    const forUpdateOfPlan = rowLock(sql, "FOR UPDATE OF p")

    // The ledger's statements touch its own tables only: a transaction's held writes to others
    // (an invoice, an event) may wait past them.
    const ledgerTables = ["ledger_plans", "ledger_batches", "ledger_accounts"]
    const ledgerOnly = touchingOnly(...ledgerTables)
    const ledgerLocking = <S extends Statement.Statement<object>>(statement: S): S => lockingRows(ledgerOnly(statement))

    /** The plan's state and batches, one read; on PostgreSQL the plan row is locked (and kept). */
    const readPlan = (planID: string, lock: boolean): Effect.Effect<Option.Option<HeldPlan>, SqlError> =>
      lock
        ? Effect.flatMap(kept, (into) => {
          const known = into?.plans.get(planID)
          if (known !== undefined) return Effect.succeed(Option.some(known))
          return Effect.tap(readPlanRow(planID, lock), (plan) => {
            if (into !== undefined && Option.isSome(plan)) into.plans.set(planID, plan.value)
          })
        })
        : readPlanRow(planID, lock)

    const readPlanRow = (planID: string, lock: boolean) =>
      (lock ? ledgerLocking : ledgerOnly)(sql`SELECT p.state, b.batch_id, b.postings FROM ledger_plans p
          LEFT JOIN ledger_batches b ON b.plan_id = p.id
          WHERE p.id = ${planID} ORDER BY b.batch_id ${lock ? forUpdateOfPlan : sql.literal("")}`).pipe(Effect.map(planFrom))

    /**
     * Adds to the accounts' columns, one statement for all of them (none when nothing moves). In a
     * PostgreSQL transaction whose held write of the accounts is not sent yet, the moves join it
     * (`Kept.moves`): the write is built when it is sent.
     */
    const addToAccounts = (
      into: Kept | undefined,
      deltas: ReadonlyArray<readonly [id: number, own: number, minDiff: number, maxDiff: number]>
    ): Array<Write> => {
      const changed = deltas.filter(([, own, min, max]) => own !== 0 || min !== 0 || max !== 0)
      if (changed.length === 0) return []
      if (into?.moves !== undefined) {
        addMoves(into.moves, changed)
        return []
      }
      const moves: Moves = new Map()
      addMoves(moves, changed)
      if (into !== undefined) into.moves = moves
      const build = () => {
        // sent now: later moves go in a write of their own (built again, a batch's retry, it is the same)
        if (into !== undefined && into.moves === moves) into.moves = undefined
        const rows = [...moves].filter(([, [own, min, max]]) => own !== 0 || min !== 0 || max !== 0)
        // moves that cancel out leave the rows as they were (locked already: no new lock)
        return moveAccounts(rows.length === 0 ? [...moves] : rows, sql``)
      }
      return [{ kind: "change", tables: ["ledger_accounts"], build: () => ({ ctes: [], main: build() }) }]
    }

    /** The statement that adds `moves` to their accounts' columns (a row each), then `returning`. */
    const moveAccounts = (moves: ReadonlyArray<readonly [number, readonly [number, number, number]]>, returning: Statement.Fragment) => {
      const values = moves.map(([id, [own, min, max]]) =>
        sql`SELECT CAST(${id} AS BIGINT) AS id, CAST(${own} AS BIGINT) AS own_d, CAST(${min} AS BIGINT) AS min_d, CAST(${max} AS BIGINT) AS max_d`
      )
      return sql`UPDATE ledger_accounts SET own = own + v.own_d, min_diff = min_diff + v.min_d, max_diff = max_diff + v.max_d
        FROM (${sql.join(" UNION ALL ", false)(values)}) AS v WHERE ledger_accounts.id = v.id${returning}`
    }

    /**
     * SQLite, a batch held (or posted: into `own`) on a plan its unit just opened: the batch's
     * row, then its moves on every account it names (none moved: a row as it was) in one statement
     * that answers the rows as moved. The model checks the batch against the accounts as they were
     * before (the moves taken back off) and refuses with a defect, which rolls the unit back with
     * what was written: no read of the accounts first. Undefined when it does not apply
     * (PostgreSQL, outside a unit, or accounts the unit keeps already, which it reads from memory
     * anyway).
     */
    const holdWritingFirst = (op: "hold" | "post", into: Kept | undefined, planID: string, batch: Batch, ids: ReadonlyArray<number>) =>
      !sqlite || into === undefined || ids.length === 0 || ids.every((id) => into.accounts.has(id))
        ? undefined
        : Effect.gen(function*() {
          const diffs = Model.diffsOf([batch])
          yield* writeAll(sql, [insertBatch(planID, batch)])
          const moves = ids.map((id) => [id, movesOf(op, diffs.get(id))] as const)
          const moved = accountsById(yield* ledgerLocking(moveAccounts(moves, sql` RETURNING id, currency, own, min_diff, max_diff`)))
          const before = new Map(moves.flatMap(([id, [own, min, max]]) => {
            const a = moved.get(id)
            return a === undefined ? [] : [[id, { ...a, own: a.own - own, minDiff: a.minDiff - min, maxDiff: a.maxDiff - max }] as const]
          }))
          const decided = op === "hold"
            ? Model.hold(planState(planID, "hold", [], before), planID, batch)
            : Model.post({ accounts: before, plans: new Map() }, planID, batch)
          if (Either.isLeft(decided)) return yield* refuse(op)(decided.left)
          keep(into, planID, decided.right)
        })

    /** What a hold (pending parts) or a post (`own`) adds to an account's columns. */
    const movesOf = (op: "hold" | "post", d: Model.AccountDiff | undefined): readonly [number, number, number] =>
      op === "hold" ? [0, d?.minDiff ?? 0, d?.maxDiff ?? 0] : [d?.net ?? 0, 0, 0]

    const insertBatch = (planID: string, batch: Batch) =>
      inserting(
        "ledger_batches",
        sql`INSERT INTO ledger_batches ${
          sql.insert({ planId: planID, batchId: batch.id, postings: toJson(batch.postings.map(postingToJson)) })
        }`
      )

    /** Reads (on PostgreSQL: locks, and keeps) the accounts, in id order. */
    const lockAccounts = (ids: ReadonlyArray<number>): Effect.Effect<ReadonlyMap<number, Model.AccountState>, SqlError> =>
      ids.length === 0
        ? Effect.succeed(new Map<number, Model.AccountState>())
        : Effect.flatMap(kept, (into) => {
          if (into !== undefined && ids.every((id) => into.accounts.has(id))) {
            return Effect.succeed(new Map(ids.map((id) => [id, into.accounts.get(id)!] as const)))
          }
          return ledgerLocking(sql`SELECT id, currency, own, min_diff, max_diff FROM ledger_accounts
              WHERE id IN ${sql.in(ids)} ORDER BY id ${forUpdate}`).pipe(
            Effect.map(accountsById),
            Effect.tap((read) => {
              if (into !== undefined) for (const [id, account] of read) into.accounts.set(id, account)
            })
          )
        })

    /**
     * PostgreSQL: opens a plan and locks its accounts in one statement. None when nothing came
     * back (the plan was there already, or no account was): `hold` then takes the long way, which
     * locks the plan before its accounts, as commit and rollback do.
     */
    const openLocking = (planID: string, ids: ReadonlyArray<number>, state: "hold" | "commit") =>
      sql.onDialectOrElse({
        pg: () =>
          ids.length === 0 ? Effect.succeedNone : withHeldWrites(sql, ledgerTables, (along) => {
            const opened = sql`opened AS (
              INSERT INTO ledger_plans ${sql.insert({ id: planID, state })} ON CONFLICT DO NOTHING RETURNING id)`
            const exists = sql`EXISTS (SELECT 1 FROM opened)`
            const locking = (ctes: Statement.Fragment, condition: Statement.Fragment) =>
              sql`WITH ${ctes}
            SELECT id, currency, own, min_diff, max_diff FROM ledger_accounts
            WHERE id IN ${sql.in(ids)} AND ${condition} ORDER BY id FOR UPDATE`
            // the guard first (CASE decides the order): the checked writes lock their rows before the plan's
            return along === undefined
              ? ledgerLocking(locking(opened, exists))
              : locking(sql`${along.ctes}, ${opened}`, sql`CASE WHEN ${along.guard} THEN ${exists} END`)
          }).pipe(
            Effect.map((rows) => rows.length === 0 ? Option.none<ReadonlyMap<number, Model.AccountState>>() : Option.some(accountsById(rows)))
          ),
        orElse: () => Effect.succeedNone
      })

    const balanceRow = (id: number) =>
      ledgerOnly(sql`SELECT id, currency, own, min_diff, max_diff, kind, party_id, shop_id FROM ledger_accounts WHERE id = ${id}`).pipe(
        Effect.map(balances.first),
        Effect.orDie
      )

    const planState = (planID: string, state: PlanState, batches: ReadonlyArray<Batch>, accounts: ReadonlyMap<number, Model.AccountState>): Model.LedgerState => ({
      accounts,
      plans: new Map([[planID, { id: planID, state, batches }]])
    })

    const refuse = (op: string) => (e: Model.LedgerError) => Effect.dieMessage(`Ledger.${op}: ${e.reason}`)

    // The accounts a plan's batches post to, from their stored postings (`batches`).
    const postedAccounts = sql.onDialectOrElse({
      pg: () =>
        sql`SELECT CAST(e.value->>'from' AS BIGINT) AS id FROM batches, jsonb_array_elements(CAST(batches.postings AS jsonb)) e
                UNION SELECT CAST(e.value->>'to' AS BIGINT) FROM batches, jsonb_array_elements(CAST(batches.postings AS jsonb)) e`,
      orElse: () =>
        sql`SELECT json_extract(e.value, '$.from') AS id FROM batches, json_each(batches.postings) e
                UNION SELECT json_extract(e.value, '$.to') FROM batches, json_each(batches.postings) e`
    })

    /**
     * Reads the plan and its batches' accounts in one statement, in a transaction that keeps them
     * (a plan it keeps is known: none then); on PostgreSQL it locks the plan, then the accounts in
     * id order. None when there is no such plan. The transaction's checked writes come along (a
     * settling refund's and its payment's, PostgreSQL): their guard runs on the plan's row before
     * its lock (CASE decides the order), so their rows are locked first, as separate statements
     * would have locked them. (With no plan row the guard does not run; the caller dies then
     * anyway: it finishes only a plan it held.)
     */
    const lockPlanAndAccounts = (planID: string) =>
      Effect.flatMap(kept, (into) =>
        into === undefined || into.plans.has(planID)
          ? Effect.succeed(undefined)
          : withHeldWrites(sql, ledgerTables, (along) => {
            const plan = sql`plan AS (SELECT id, state FROM ledger_plans WHERE id = ${planID}${
              along === undefined ? sql`` : sql` AND CASE WHEN ${along.guard} THEN true END`
            } ${forUpdate})`
            const statement = sql`WITH ${along === undefined ? plan : sql`${along.ctes}, ${plan}`},
              batches AS (SELECT batch_id, postings FROM ledger_batches WHERE plan_id IN (SELECT id FROM plan)),
              ids AS (${postedAccounts}),
              accounts AS (SELECT id, currency, own, min_diff, max_diff FROM ledger_accounts
                WHERE id IN (SELECT id FROM ids) ORDER BY id ${forUpdate})
            SELECT plan.state, b.batch_id, b.postings, NULL AS id, NULL AS currency, NULL AS own, NULL AS min_diff, NULL AS max_diff
              FROM plan LEFT JOIN batches b ON true
            UNION ALL
            SELECT NULL, NULL, NULL, id, currency, own, min_diff, max_diff FROM accounts`
            return along === undefined ? ledgerLocking(statement) : statement
          }).pipe(
            Effect.map((rows) => {
              const planPart = rows.filter((r) => (r as { readonly id: unknown }).id === null)
              const plan = planFrom(planPart)
              const accounts = accountsById(rows.filter((r) => (r as { readonly id: unknown }).id !== null))
              if (Option.isSome(plan)) into.plans.set(planID, plan.value)
              for (const [id, account] of accounts) into.accounts.set(id, account)
              return plan
            })
          ))

    /**
     * SQLite, a plan its unit does not keep: the plan's state changes from `hold` in a statement
     * that answers its batches, then its accounts move in one that answers them as moved; the
     * model checks them as they were before and refuses with a defect, which rolls the unit back:
     * no read first. False when the plan was not held (final already, or none): the caller reads it.
     */
    const finishWritingFirst = (op: "commit" | "rollback", planID: string) =>
      Effect.flatMap(kept, (into) =>
        !sqlite || into === undefined || into.plans.has(planID)
          ? Effect.succeed(false)
          : Effect.gen(function*() {
            const changed = yield* ledgerLocking(sql`UPDATE ledger_plans SET state = ${op} WHERE id = ${planID} AND state = 'hold'
              RETURNING (SELECT json_group_array(json_object('id', batch_id, 'postings', json(postings)))
                FROM ledger_batches WHERE plan_id = ${planID}) AS batches`)
            if (changed.length === 0) return false
            const batches = batchesJson.all(changed)[0]!
            const diffs = Model.diffsOf(batches)
            const moves = Model.accountsOf(batches).map((id) => {
              const d = diffs.get(id)
              return [id, [op === "commit" ? d?.net ?? 0 : 0, -(d?.minDiff ?? 0), -(d?.maxDiff ?? 0)]] as const
            })
            const moved = moves.length === 0
              ? new Map<number, Model.AccountState>()
              : accountsById(yield* ledgerLocking(moveAccounts(moves, sql` RETURNING id, currency, own, min_diff, max_diff`)))
            const before = new Map(moves.flatMap(([id, [own, min, max]]) => {
              const a = moved.get(id)
              return a === undefined ? [] : [[id, { ...a, own: a.own - own, minDiff: a.minDiff - min, maxDiff: a.maxDiff - max }] as const]
            }))
            const decided = (op === "commit" ? Model.commit : Model.rollback)(planState(planID, "hold", batches, before), planID)
            if (Either.isLeft(decided)) return yield* refuse(op)(decided.left)
            keep(into, planID, decided.right)
            return true
          }))

    const finish = (op: "commit" | "rollback", planID: string) =>
      Effect.gen(function*() {
        if (yield* finishWritingFirst(op, planID)) return
        const plan = (yield* lockPlanAndAccounts(planID)) ?? (yield* readPlan(planID, true))
        if (Option.isNone(plan)) return yield* Effect.dieMessage(`Ledger.${op}: plan ${planID} is not held`)
        const { batches, state } = plan.value
        if (state === op) return
        const accounts = yield* lockAccounts(Model.accountsOf(batches))
        const decided = (op === "commit" ? Model.commit : Model.rollback)(planState(planID, state, batches, accounts), planID)
        if (Either.isLeft(decided)) return yield* refuse(op)(decided.left)
        const into = yield* kept
        keep(into, planID, decided.right)
        yield* writeAll(sql, [
          ...addToAccounts(
            into,
            [...Model.diffsOf(batches)].map(([id, d]) => [id, op === "commit" ? d.net : 0, -d.minDiff, -d.maxDiff] as const)
          ),
          changing("ledger_plans", sql`UPDATE ledger_plans SET state = ${op} WHERE id = ${planID}`)
        ])
      }).pipe(Effect.orDie)

    return {
      account: (key) =>
        Effect.gen(function*() {
          const row = {
            kind: key.kind,
            partyId: key.partyID ?? "",
            shopId: key.shopID ?? key.walletID ?? "",
            currency: key.currency
          }
          const cacheKey = `${row.kind}\u0000${row.partyId}\u0000${row.shopId}\u0000${row.currency}`
          const known = knownIds.get(cacheKey)
          if (known !== undefined) return known
          const find = ledgerOnly(sql`SELECT id, ${committed} AS committed FROM ledger_accounts WHERE kind = ${row.kind}
            AND party_id = ${row.partyId} AND shop_id = ${row.shopId} AND currency = ${row.currency}`).pipe(
              Effect.map(foundAccounts.all)
            )
          // Accounts are opened once and read ever after: read first, open only when missing.
          let rows = yield* find
          if (rows.length === 0) {
            // (outside a transaction the insert commits as it runs; in one that sends no signals,
            // the key stays `opening`)
            if (sqlite && Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
              opening.add(cacheKey)
              const signals = yield* FiberRef.get(heldSignals)
              signals?.push(() => opening.delete(cacheKey))
            }
            yield* ledgerLocking(sql`INSERT INTO ledger_accounts ${sql.insert({ ...row, own: 0, minDiff: 0, maxDiff: 0 })}
                     ON CONFLICT DO NOTHING`)
            rows = yield* find
          }
          if (rows.length === 0) return yield* Effect.dieMessage(`Ledger.account: the ${key.kind} account was not opened`)
          const { committed: committedRow, id } = rows[0]!
          // an id is never handed out again, even when its row rolls back: its key is its own
          if (knownKeys.size >= 100_000) knownKeys.clear()
          knownKeys.set(id, { ...key })
          // An id is kept once its row is committed: a transaction that opened it may roll back.
          if (sqlite ? !opening.has(cacheKey) : committedRow) {
            if (knownIds.size >= 100_000) knownIds.clear()
            knownIds.set(cacheKey, id)
          }
          return id
        }).pipe(Effect.orDie),

      balance: (id) =>
        Number.isSafeInteger(id)
          ? Effect.flatMap(kept, (into) => {
            // an account this transaction keeps, whose key is known: as its writes left it
            const account = into?.accounts.get(id)
            const key = knownKeys.get(id)
            if (account !== undefined && key !== undefined) {
              return Effect.succeed(Option.some({ id, currency: account.currency, ...Model.balanceOf(account), key }))
            }
            return balanceRow(id)
          })
          : Effect.succeed(Option.none()),

      hold: (planID, batch) =>
        Effect.gen(function*() {
          const ids = Model.accountsOf([batch]).filter(Number.isSafeInteger)
          // A plan this transaction just opened holds nothing yet (and its row is ours): no read.
          const fresh = { state: "hold" as PlanState, batches: [] as ReadonlyArray<Batch> }
          let plan: Option.Option<{ readonly state: PlanState; readonly batches: ReadonlyArray<Batch> }>
          let accounts: ReadonlyMap<number, Model.AccountState>
          const into = yield* kept
          const known = into?.plans.get(planID)
          const openedLocking = known === undefined ? yield* openLocking(planID, ids, "hold") : Option.none()
          if (Option.isSome(openedLocking)) {
            plan = Option.some(fresh)
            accounts = openedLocking.value
          } else if (known !== undefined) {
            plan = Option.some(known)
            accounts = yield* lockAccounts(ids)
          } else {
            const opened = yield* ledgerLocking(sql`INSERT INTO ledger_plans ${sql.insert({ id: planID, state: "hold" })}
              ON CONFLICT DO NOTHING RETURNING id`)
            const written = opened.length > 0 ? holdWritingFirst("hold", into, planID, batch, ids) : undefined
            if (written !== undefined) return yield* written
            plan = opened.length > 0 ? Option.some(fresh) : yield* readPlan(planID, true)
            accounts = yield* lockAccounts(ids)
          }
          if (Option.isNone(plan)) return yield* Effect.dieMessage(`Ledger.hold: plan ${planID} was not created`)
          const { batches, state } = plan.value
          const decided = Model.hold(planState(planID, state, batches, accounts), planID, batch)
          if (Either.isLeft(decided)) return yield* refuse("hold")(decided.left)
          if (batches.some((b) => b.id === batch.id)) return
          keep(into, planID, decided.right)
          yield* writeAll(sql, [
            insertBatch(planID, batch),
            ...addToAccounts(into, [...Model.diffsOf([batch])].map(([id, d]) => [id, 0, d.minDiff, d.maxDiff] as const))
          ])
        }).pipe(Effect.orDie),

      post: (planID, batch) =>
        Effect.gen(function*() {
          const ids = Model.accountsOf([batch]).filter(Number.isSafeInteger)
          const into = yield* kept
          const known = into?.plans.get(planID)
          // a plan opened here, as committed: its batch's row and `own` moved, nothing pending
          const posting = (accounts: ReadonlyMap<number, Model.AccountState>) =>
            Effect.gen(function*() {
              const decided = Model.post({ accounts, plans: new Map() }, planID, batch)
              if (Either.isLeft(decided)) return yield* refuse("post")(decided.left)
              keep(into, planID, decided.right)
              yield* writeAll(sql, [
                insertBatch(planID, batch),
                ...addToAccounts(into, [...Model.diffsOf([batch])].map(([id, d]) => [id, d.net, 0, 0] as const))
              ])
            })
          if (known === undefined) {
            const openedLocking = yield* openLocking(planID, ids, "commit")
            if (Option.isSome(openedLocking)) return yield* posting(openedLocking.value)
            const opened = yield* ledgerLocking(sql`INSERT INTO ledger_plans ${sql.insert({ id: planID, state: "commit" })}
              ON CONFLICT DO NOTHING RETURNING id`)
            if (opened.length > 0) {
              const written = holdWritingFirst("post", into, planID, batch, ids)
              return yield* (written ?? Effect.flatMap(lockAccounts(ids), posting))
            }
          }
          // a plan there already: a repeated post, or one held with this batch alone (committed then)
          const plan = yield* readPlan(planID, true)
          if (Option.isNone(plan)) return yield* Effect.dieMessage(`Ledger.post: plan ${planID} was not created`)
          const { batches, state } = plan.value
          const decided = Model.post(planState(planID, state, batches, yield* lockAccounts(ids)), planID, batch)
          if (Either.isLeft(decided)) return yield* refuse("post")(decided.left)
          if (state === "hold") return yield* finish("commit", planID)
        }).pipe(Effect.orDie),

      commit: (planID) => finish("commit", planID),

      rollback: (planID) => finish("rollback", planID),

      plan: (planID) =>
        readPlan(planID, false).pipe(
          Effect.map(Option.map((p): Plan => ({ id: planID, state: p.state, batches: p.batches }))),
          Effect.orDie
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

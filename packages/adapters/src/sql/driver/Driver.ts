/**
 * The SQL driver: what makes storage fast, built once per database where the database layer is
 * (`Database.layer`), and taken by the stores. On PostgreSQL a transaction's pure writes are held
 * back and sent together, and transactions that only write are batched into one statement; on
 * SQLite transactions that arrive together share one COMMIT. The governance cache (shops,
 * parties, contracts) lives here too, so that every store of one database shares it, and so do
 * the signals that wake the background loops (`Signals`).
 *
 * An embedder that builds its own `SqlClient` provides `layer` on it.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Governance from "./governance.js"
import * as GroupCommit from "./groupCommit.js"
import * as Signals from "./Signals.js"
import { transaction, unitBatcher } from "./writes.js"

/** Transactions SQLite groups under one COMMIT at most. */
const MAX_GROUP = 64

/** @since 0.1.0 @category tags */
export class SqlDriver extends Context.Tag("kassa/adapters/SqlDriver")<SqlDriver, {
  /** The dialect's transaction; a `SqlError` inside it is a defect. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, SqlError>, R>
  /** Wake-ups of the background loops, sent once the writes they tell of have committed. */
  readonly signals: Signals.Signals
  /** @internal The governance cache of the database. */
  readonly governance: Governance.Governance
}>() {}

// `Exclude<E, Extract<E, SqlError>>` is `Exclude<E, SqlError>`, which TypeScript cannot see for a generic `E`.
const sqlErrorsDie = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, (e): e is Extract<E, SqlError> => e instanceof SqlError, Effect.die) as Effect.Effect<A, Exclude<E, SqlError>, R>

/**
 * The driver on the current `SqlClient`. Its batcher's writers run while the layer lives: close it
 * after the stores that use it.
 *
 * @since 0.1.0 @category layers
 */
export const layer: Layer.Layer<SqlDriver, never, SqlClient.SqlClient> = Layer.scoped(
  SqlDriver,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const dialectTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R> = yield* sql
      .onDialectOrElse({
        pg: () => Effect.map(unitBatcher(sql), (sendUnit) => transaction(sql, sendUnit)),
        orElse: () => GroupCommit.make(sql, { maxUnits: MAX_GROUP })
      })
    return {
      // (the dialect's transaction holds its signals until it commits: `Signals.holding`)
      transaction: (effect) => sqlErrorsDie(dialectTransaction(effect)),
      signals: yield* Signals.make,
      governance: Governance.make()
    }
  })
)

import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { reader } from "../rows.js"

const triggers = reader(Schema.Struct({ name: Schema.String, sql: Schema.String }), (r) => r)

/**
 * @internal
 * SQLite: `search_deltas` loses AUTOINCREMENT (0010), which made every delta's insert (a trigger
 * of every invoice, payment and refund write) read and rewrite its `sqlite_sequence` row, most of
 * the delta's cost. Its `seq` only orders the deltas the table holds (the compactor folds and
 * deletes the oldest in one transaction, nothing keeps a `seq`): without it a new delta still
 * numbers after the newest there. SQLite cannot drop it in place: the table is built anew, the
 * triggers that write it dropped first (a rename checks every trigger's table) and made again from
 * their own text. PostgreSQL's BIGSERIAL has no such cost: nothing changes there.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => Effect.void,
    orElse: () =>
      Effect.gen(function*() {
        const writers = triggers.all(
          yield* sql`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%search_deltas%' ORDER BY name`
        )
        for (const { name } of writers) yield* sql.unsafe(`DROP TRIGGER ${name}`)
        yield* sql.unsafe(`CREATE TABLE search_deltas_next (
          seq INTEGER PRIMARY KEY,
          kind TEXT NOT NULL,
          party_id TEXT NOT NULL,
          shop_id TEXT NOT NULL,
          q BIGINT NOT NULL,
          k1 TEXT NOT NULL,
          k2 TEXT NOT NULL,
          n BIGINT NOT NULL,
          amount BIGINT NOT NULL,
          fee BIGINT NOT NULL
        )`)
        yield* sql.unsafe(`INSERT INTO search_deltas_next (seq, kind, party_id, shop_id, q, k1, k2, n, amount, fee)
          SELECT seq, kind, party_id, shop_id, q, k1, k2, n, amount, fee FROM search_deltas`)
        yield* sql.unsafe(`DROP TABLE search_deltas`)
        yield* sql.unsafe(`ALTER TABLE search_deltas_next RENAME TO search_deltas`)
        yield* sql.unsafe(`CREATE INDEX search_deltas_scope ON search_deltas (party_id, shop_id, kind, q)`)
        for (const { sql: definition } of writers) yield* sql.unsafe(definition)
      })
  })
})

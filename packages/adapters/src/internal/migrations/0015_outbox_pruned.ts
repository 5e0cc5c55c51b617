import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The outbox holds only what is still to be dispatched: the fan-out deletes the rows it
 * dispatched (the events keep the history). Rows an earlier version marked dispatched go now;
 * they would only grow the table and the index its every pass reads.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM outbox WHERE dispatched_at IS NOT NULL`
})

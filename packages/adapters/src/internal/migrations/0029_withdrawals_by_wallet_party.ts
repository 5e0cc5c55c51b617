import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * A wallet owner's list of withdrawals takes those out of its wallets too (made by another party
 * with a grant), in creation order, as `withdrawals_party_created` serves the maker's.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX withdrawals_wallet_party_created ON withdrawals (wallet_party_id, created_at, id)`)
})

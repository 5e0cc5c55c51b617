import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The party owning a withdrawal's wallet (whose webhooks are told of it): the maker's own, or
 * another's when it was made with a wallet grant.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE withdrawals ADD COLUMN wallet_party_id TEXT NOT NULL DEFAULT ''`)
  yield* sql.unsafe(`UPDATE withdrawals SET wallet_party_id =
    COALESCE((SELECT party_id FROM wallets WHERE wallets.id = withdrawals.wallet_id), party_id)`)
})

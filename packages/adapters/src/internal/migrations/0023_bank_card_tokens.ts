import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Card tokens of the card-token interface (`storeBankCard`): what a token stands for (the vault's
 * token of the card and what may be shown of it), its party and its end of life.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE bank_card_tokens (
    token TEXT PRIMARY KEY,
    party_id TEXT NOT NULL,
    vault_token TEXT NOT NULL,
    bin TEXT NOT NULL,
    last_digits TEXT NOT NULL,
    payment_system TEXT NOT NULL,
    auth_data TEXT,
    created_at BIGINT NOT NULL,
    valid_until BIGINT NOT NULL
  )`
})

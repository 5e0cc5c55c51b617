import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @internal The payment systems the operator forbade a wallet provider to pay out to. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE provider_forbidden_payment_systems (
    provider_id TEXT NOT NULL,
    payment_system TEXT NOT NULL,
    PRIMARY KEY (provider_id, payment_system)
  )`)
})

import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The shop-and-time indexes of invoices, payments and refunds (0003, 0007, 0009) lead with the
 * same columns as their search indexes (0010), which serve every query they served, scanned either
 * way: each insert kept an index nothing needed.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const index of ["invoices_shop_created", "payments_shop_created", "refunds_shop_created"]) {
    yield* sql.unsafe(`DROP INDEX IF EXISTS ${index}`)
  }
})

/**
 * A plain route beside the contract: `/health` (a storage ping).
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* router.get(
      "/health",
      sql`SELECT 1 AS ok`.pipe(
        Effect.as(HttpServerResponse.unsafeJson({ status: "ok" }, { contentType: "application/json; charset=utf-8" })),
        Effect.catchAll(() =>
          Effect.succeed(
            HttpServerResponse.unsafeJson({ status: "unavailable", message: "storage does not answer" }, {
              status: 503,
              contentType: "application/json; charset=utf-8"
            })
          )
        )
      )
    )
  })
)

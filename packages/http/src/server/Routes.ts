/**
 * A plain route beside the contract: `/health` (a storage ping).
 *
 * @since 0.1.0
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Adds its routes to the API's router (`Http.app` adds every plain route in one layer). @since 0.1.0 @category routes */
export const routes = (router: HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>) =>
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

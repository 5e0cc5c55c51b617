/**
 * Plain routes beside the contract: `/health` (a storage ping) and `/metrics` (with the SQL
 * statements by work when they are counted).
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Statements } from "@kassa/adapters"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Metrics } from "./Metrics.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
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
    const statements = yield* Effect.serviceOption(Statements.StatementCounts)
    yield* router.get(
      "/metrics",
      Effect.sync(() =>
        HttpServerResponse.text(
          metrics.render() + Option.match(statements, { onNone: () => "", onSome: (c) => Statements.render(c.snapshot()) }),
          { contentType: "text/plain; version=0.0.4" }
        )
      )
    )
  })
)

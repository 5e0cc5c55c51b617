/**
 * Probes for an orchestrator, without auth or `X-Request-ID`:
 *
 * - `/health/live`: the process answers;
 * - `/health/ready`: storage answers within 1 s, its migrations are current, the background
 *   loops run and the server is not draining; else 503 naming the failing checks.
 *
 * @since 0.1.0
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Migrations, Workers } from "@kassa/adapters"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Draining } from "./Drain.js"

const JSON_TYPE = "application/json; charset=utf-8"

/** What a check found: "ok", or why not. */
type Finding = string

/** Adds its routes to the API's router (`Http.app` adds every plain route in one layer). @since 0.1.0 @category routes */
export const routes = (router: HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workers = yield* Effect.serviceOption(Workers.Workers)
    const draining = yield* Effect.serviceOption(Draining)

    const storage: Effect.Effect<Finding> = sql`SELECT 1 AS ok`.pipe(
      Effect.timeout("1 second"),
      Effect.as("ok"),
      Effect.catchAll((e) => Effect.succeed(e._tag === "TimeoutException" ? "no answer within 1 s" : "does not answer"))
    )
    const migrations: Effect.Effect<Finding> = Migrations.applied.pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.timeout("1 second"),
      Effect.map((applied) => applied >= Migrations.latest ? "ok" : `at ${applied} of ${Migrations.latest}`),
      Effect.catchAll(() => Effect.succeed("unknown: storage does not answer"))
    )
    const loops = Effect.sync((): Finding => {
      const stopped = Option.match(workers, { onNone: () => [], onSome: (w) => w.stopped() })
      return stopped.length === 0 ? "ok" : `stopped: ${stopped.join(", ")}`
    })
    const drain = Effect.sync((): Finding => Option.isSome(draining) && draining.value.isDraining() ? "shutting down" : "ok")

    yield* router.get(
      "/health/live",
      Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" }, { contentType: JSON_TYPE }))
    )
    yield* router.get(
      "/health/ready",
      Effect.all({ storage, migrations, workers: loops, draining: drain }, { concurrency: "unbounded" }).pipe(
        Effect.map((checks) => {
          const failing = Object.entries(checks).filter(([, finding]) => finding !== "ok").map(([name]) => name)
          return failing.length === 0
            ? HttpServerResponse.unsafeJson({ status: "ok", checks }, { contentType: JSON_TYPE })
            : HttpServerResponse.unsafeJson(
              { status: "unavailable", message: `not ready: ${failing.join(", ")}`, failing, checks },
              { status: 503, contentType: JSON_TYPE }
            )
        })
      )
    )
  })

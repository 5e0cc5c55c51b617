/**
 * A plain route beside the contract: `GET /downloads/:token`, where `downloadFile`'s signed
 * link leads. It needs no API key, only the link: it answers the report's CSV (`text/csv`)
 * until the link expires; an expired, forged or foreign token is 403, a valid link to a file
 * that is gone 404.
 *
 * @since 0.1.0
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ReportService } from "@kassa/core"
import * as Effect from "effect/Effect"

/** Adds its routes to the API's router (`Http.app` adds every plain route in one layer). @since 0.1.0 @category routes */
export const routes = (router: HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>) =>
  Effect.gen(function*() {
    const reports = yield* ReportService.ReportService
    yield* router.get(
      "/downloads/:token",
      Effect.flatMap(HttpRouter.params, (p) => reports.open(p.token ?? "")).pipe(
        Effect.map((file) =>
          HttpServerResponse.text(file.content, {
            contentType: "text/csv; charset=utf-8",
            headers: { "content-disposition": `attachment; filename="${file.id}.csv"`, "cache-control": "no-store" }
          })
        ),
        Effect.catchTags({
          Unauthorized: () => Effect.succeed(HttpServerResponse.empty({ status: 403 })),
          NotFound: () => Effect.succeed(HttpServerResponse.empty({ status: 404 }))
        })
      )
    )
  })

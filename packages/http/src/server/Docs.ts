/**
 * The API's description: `/openapi.json`, and the interactive docs at `/docs` (Swagger UI,
 * from `swagger-ui-dist`, over that document).
 *
 * Both are made on their first request, not at start: deriving the document takes about 25 ms,
 * and Swagger UI's script and style (1.9 MB) are read from `swagger-ui-dist` when first asked
 * for. `@effect/platform`'s `HttpApiSwagger` embeds them in the bundle, which every cold start
 * then parses, and builds its page and the document at start.
 *
 * @since 0.1.0
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { KassaApi } from "../api/KassaApi.js"

const JSON_TYPE = "application/json; charset=utf-8"

// Relative links: the page and its document stay together under any mount path.
const page = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Kassa API</title>
  <link rel="stylesheet" href="docs/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script>
    window.onload = () => { window.ui = SwaggerUIBundle({ url: "openapi.json", dom_id: "#swagger-ui" }) }
  </script>
</body>
</html>`

const assets = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8"
} as const

const pageResponse = HttpServerResponse.text(page, { contentType: "text/html; charset=utf-8" })

/**
 * The router ignores a trailing slash, but a browser resolves the page's relative links against
 * `/docs/` as the folder `/docs/`: such a request is sent back, by a relative `Location` that
 * keeps any mount path, to `/docs`.
 */
const docsPage = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const { pathname, search } = new URL(request.url, "http://localhost")
  const slashes = pathname.length - pathname.replace(/\/+$/, "").length
  return slashes === 0
    ? pageResponse
    : HttpServerResponse.redirect(`${"../".repeat(slashes)}docs${search}`, { status: 301 })
})

const resolveFrom = createRequire(import.meta.url)

const asset = (file: keyof typeof assets) =>
  Effect.tryPromise(() => readFile(resolveFrom.resolve(`swagger-ui-dist/${file}`))).pipe(
    Effect.map((bytes) =>
      HttpServerResponse.uint8Array(bytes, {
        contentType: assets[file],
        headers: { "cache-control": "public, max-age=86400" }
      })
    ),
    Effect.catchAll(() =>
      Effect.succeed(
        HttpServerResponse.unsafeJson(
          { message: `Interactive docs unavailable: swagger-ui-dist/${file} is not installed; /openapi.json is` },
          { status: 404, contentType: JSON_TYPE }
        )
      )
    )
  )

/** Adds its routes to the API's router (`Http.app` adds every plain route in one layer). @since 0.1.0 @category routes */
export const routes = (router: HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>) =>
  Effect.gen(function*() {
    const document = yield* Effect.cached(
      Effect.sync(() => HttpServerResponse.unsafeJson(OpenApi.fromApi(KassaApi), { contentType: JSON_TYPE }))
    )
    yield* router.get("/openapi.json", document)
    yield* router.get("/docs", docsPage)
    for (const file of Object.keys(assets) as Array<keyof typeof assets>) {
      yield* router.get(`/docs/${file}`, yield* Effect.cached(asset(file)))
    }
  })

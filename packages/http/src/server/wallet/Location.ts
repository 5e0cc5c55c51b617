/**
 * `Location` on the wallet interfaces' creations (201) and accepted operations (202): the path
 * of what was made.
 *
 * @since 0.1.0
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"

/**
 * `effect`, answered with `Location: <base>/<id>` where `id` is what it made (`base` the
 * collection's path, such as `/wallet/v0/identities`).
 *
 * @since 0.1.0
 */
export const located = (base: string) =>
<A, E, R>(effect: Effect.Effect<A, E, R>, id: (a: A) => string): Effect.Effect<A, E, R> =>
  Effect.tap(effect, (a) => {
    const location = `${base}/${encodeURIComponent(id(a))}`
    return HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "location", location))
    )
  })

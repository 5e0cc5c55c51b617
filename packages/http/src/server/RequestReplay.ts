/**
 * `X-Request-ID` replay for the mutating requests (POST, PUT, DELETE) of the merchant and
 * operator APIs: the same caller (its `Authorization`, so one API key, access token or operator
 * token), method, path and body with the same `X-Request-ID` within 24 hours is answered the
 * first answer's status and body, without running again. Anything else differing makes another
 * request, never a conflict: real clients reuse one id per page load. Answers are stored sealed
 * under keys derived from the request (`ReplayKeys`). The store, what it costs and its crash
 * story: `SqlRequestReplays`.
 *
 * @since 0.1.0
 */
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlRequestReplays } from "@kassa/adapters"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as ReplayKeys from "./ReplayKeys.js"

const mutating = new Set(["POST", "PUT", "DELETE"])

const JSON_TYPE = "application/json; charset=utf-8"

const decoder = new TextDecoder()

/** What can be replayed of a response: a JSON body (sealed) or none. */
const answerOf = (keys: ReplayKeys.ReplayKeys, response: HttpServerResponse.HttpServerResponse): Option.Option<SqlRequestReplays.Answer> => {
  const body = response.body
  if (body._tag === "Empty") return Option.some({ status: response.status, body: null })
  if (body._tag === "Uint8Array" && body.contentType.startsWith("application/json")) {
    return Option.some({ status: response.status, body: ReplayKeys.seal(keys, decoder.decode(body.body)) })
  }
  return Option.none()
}

const responseOf = (keys: ReplayKeys.ReplayKeys, answer: SqlRequestReplays.Answer): HttpServerResponse.HttpServerResponse =>
  answer.body === null
    ? HttpServerResponse.empty({ status: answer.status })
    : HttpServerResponse.text(ReplayKeys.open(keys, answer.body), { status: answer.status, contentType: JSON_TYPE })

const lost = HttpServerResponse.unsafeJson({
  message: "A request with this X-Request-ID was carried out, but its answer was lost; read what it made to learn its outcome"
}, { status: 500, contentType: JSON_TYPE })

type Handled<E, R> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

/**
 * A request's handling with replay. `request` is the one the handler reads (its body is read
 * once), `url` the one the client sent.
 */
const replaying = (store: Context.Tag.Service<typeof SqlRequestReplays.RequestReplays>) =>
<E, R>(request: HttpServerRequest.HttpServerRequest, url: string, handled: Handled<E, R>): Handled<E, R> => {
  const requestId = request.headers["x-request-id"]
  // Without an id (the operator API does not ask for one) every request is a new one.
  if (!mutating.has(request.method) || requestId === undefined) return handled

  /**
   * Runs the request. A claim that finds its key taken replays the stored answer. A request that
   * wrote nothing (a refusal, say: what the first one did may have made it one) replays the
   * stored answer if there is one, or answers its own: only then is the store read first.
   */
  const run = (keys: ReplayKeys.ReplayKeys, claim: SqlRequestReplays.Claim, again: boolean): Handled<E, R> =>
    handled.pipe(
      SqlRequestReplays.claimed(claim),
      Effect.exit,
      Effect.flatMap((exit) => {
        if (Exit.isFailure(exit) && SqlRequestReplays.isDuplicate(exit.cause)) {
          return Effect.flatMap(store.stored(claim, "wait"), (stored) =>
            stored._tag === "Replay"
              ? Effect.succeed(responseOf(keys, stored.answer))
              : stored._tag === "Expired" && !again
              ? run(keys, claim, true)
              : Effect.succeed(lost))
        }
        if (claim.taken || (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause))) return exit
        return Effect.flatMap(store.stored(claim, "now"), (stored) =>
          stored._tag === "Replay" ? Effect.succeed(responseOf(keys, stored.answer)) : exit)
      })
    )

  return Effect.gen(function*() {
    // An unreadable body is the handler's to refuse.
    const body = yield* Effect.either(request.text)
    if (Either.isLeft(body)) return yield* handled
    const keys = ReplayKeys.derive({
      requestId,
      authorization: request.headers.authorization ?? "",
      method: request.method,
      url,
      body: body.right
    })
    const started = yield* store.start(keys.id)
    if (started._tag === "Replay") return responseOf(keys, started.answer)
    const claim = started.claim
    // The answer as it goes out, errors encoded: what a retry gets.
    yield* HttpApp.appendPreResponseHandler((_request, response) => Effect.as(store.finish(claim, answerOf(keys, response)), response))
    return yield* run(keys, claim, false).pipe(Effect.onInterrupt(() => store.finish(claim, Option.none())))
  })
}

/**
 * Wraps a request's handling (see `replaying`) with replay, when the storage replays answers.
 *
 * @since 0.1.0
 */
export const make = Effect.map(
  Effect.serviceOption(SqlRequestReplays.RequestReplays),
  Option.match({
    onNone: () => <E, R>(_request: HttpServerRequest.HttpServerRequest, _url: string, handled: Handled<E, R>) => handled,
    onSome: replaying
  })
)

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
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlRequestReplays } from "@kassa/adapters"
import { Now } from "@kassa/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as ReplayKeys from "./ReplayKeys.js"

const mutating = new Set(["POST", "PUT", "DELETE"])

const JSON_TYPE = "application/json; charset=utf-8"

const encoder = new TextEncoder()

/** What can be replayed of a response: a JSON body (sealed; as bytes or as text) or none. */
const answerOf = (keys: ReplayKeys.ReplayKeys, response: HttpServerResponse.HttpServerResponse): Option.Option<SqlRequestReplays.Answer> => {
  const body = response.body
  if (body._tag === "Empty") return Option.some({ status: response.status, body: null })
  if (body._tag === "Uint8Array" && body.contentType.startsWith("application/json")) {
    return Option.some({ status: response.status, body: ReplayKeys.seal(keys, body.body) })
  }
  if (body._tag === "Raw" && typeof body.body === "string" && body.contentType?.startsWith("application/json") === true) {
    return Option.some({ status: response.status, body: ReplayKeys.seal(keys, encoder.encode(body.body)) })
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

/** A handled request: the response it answers. @since 0.1.0 @category models */
export type Handled<E, R> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

/**
 * A request's exchange with replay: replay sets `answered` when the request's answer is to be
 * stored, and whoever sees the answer go out (the wire contract's one pre-response handler)
 * calls it with the answer, errors encoded: what a retry gets.
 *
 * @since 0.1.0 @category models
 */
export interface Exchange {
  answered: ((response: HttpServerResponse.HttpServerResponse) => void) | undefined
}

/**
 * A request's handling with replay: `request` is the one the handler reads, `url` the one the
 * client sent, `body` the body's text.
 *
 * @since 0.1.0 @category models
 */
export type Replaying = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  url: string,
  body: string,
  handled: Handled<E, R>,
  exchange: Exchange
) => Handled<E, R>

/**
 * Every request with an id goes through here, so it is written for few Effect steps: the store's
 * `start` and `finish` are synchronous, the claim is set on the request's own fiber in the step
 * that reads the clock (it ends with the request; `Effect.locally` would cost a scope of its own,
 * `SqlRequestReplays.claim` three steps), the outcome is matched once, and the answer is taken by
 * the caller's pre-response handler (`Exchange`), not one of its own.
 */
const replaying = (store: Context.Tag.Service<typeof SqlRequestReplays.RequestReplays>): Replaying =>
<E, R>(
  request: HttpServerRequest.HttpServerRequest,
  url: string,
  body: string,
  handled: Handled<E, R>,
  exchange: Exchange
): Handled<E, R> => {
  const requestId = request.headers["x-request-id"]
  // Without an id (the operator API does not ask for one) every request is a new one.
  if (!mutating.has(request.method) || requestId === undefined) return handled

  /**
   * Runs the request. A claim that finds its key taken replays the stored answer. A request that
   * wrote nothing (a refusal, say: what the first one did may have made it one) replays the
   * stored answer if there is one, or answers its own: only then is the store read first.
   */
  const run = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    keys: ReplayKeys.ReplayKeys,
    claim: SqlRequestReplays.Claim,
    again: boolean
  ): Handled<E, R> => {
    SqlRequestReplays.claimOn(fiber, claim)
    return Effect.matchCauseEffect(handled, {
      onFailure: (cause) => {
        if (SqlRequestReplays.isDuplicate(cause)) {
          return Effect.flatMap(store.stored(claim, "wait"), (stored) =>
            stored._tag === "Replay"
              ? Effect.succeed(responseOf(keys, stored.answer))
              : stored._tag === "Expired" && !again
              ? run(fiber, keys, claim, true)
              : Effect.succeed(lost))
        }
        if (Cause.isInterruptedOnly(cause)) {
          // Nothing to store (this runs before the pre-response handler, which then finds no entry).
          store.finish(claim, Option.none())
          return Effect.failCause(cause)
        }
        return claim.taken ? Effect.failCause(cause) : orStored(keys, claim, Effect.failCause(cause))
      },
      onSuccess: (response) => claim.taken ? Effect.succeed(response) : orStored(keys, claim, Effect.succeed(response))
    })
  }

  const orStored = (keys: ReplayKeys.ReplayKeys, claim: SqlRequestReplays.Claim, own: Handled<E, R>): Handled<E, R> =>
    Effect.flatMap(store.stored(claim, "now"), (stored) => stored._tag === "Replay" ? Effect.succeed(responseOf(keys, stored.answer)) : own)

  // (`fiber` is the request's, running each continuation here)
  const started = (fiber: Fiber.RuntimeFiber<unknown, unknown>, keys: ReplayKeys.ReplayKeys, start: SqlRequestReplays.Start): Handled<E, R> => {
    if (start._tag === "Replay") return Effect.succeed(responseOf(keys, start.answer))
    if (start._tag === "Wait") return Effect.flatMap(start.wait, (next) => started(fiber, keys, next))
    const claim = start.claim
    exchange.answered = (response) => store.finish(claim, answerOf(keys, response))
    return run(fiber, keys, claim, false)
  }

  return Effect.withFiberRuntime((fiber) => {
    const keys = ReplayKeys.derive({ requestId, authorization: request.headers.authorization ?? "", method: request.method, url, body })
    return started(fiber, keys, store.start(keys.id, Now.unsafeOf(fiber)))
  })
}

const passThrough: Replaying = (_request, _url, _body, handled) => handled

/**
 * Wraps a request's handling (see `replaying`) with replay, when the storage replays answers.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<Replaying> = Effect.map(
  Effect.serviceOption(SqlRequestReplays.RequestReplays),
  Option.match({ onNone: () => passThrough, onSome: replaying })
)

/**
 * Bearer authentication middleware for merchants and for the operator.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Authenticator, Errors, Principal } from "@kassa/core"
import * as Fibers from "@kassa/core/Fibers"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { Authentication, OperatorAuthentication } from "../api/Security.js"
import * as AccessLog from "./AccessLog.js"

const bearerScheme = /^Bearer [^\s]+$/

const noBearer = () => new Errors.Unauthorized({ message: "Expected Authorization: Bearer <token>" })
const operatorOnly = () => new Errors.Unauthorized({ message: "Operator tokens open the operator API only" })

/**
 * The principal `request`'s Bearer token (`token`, the header's value past the scheme) names:
 * the `Bearer` scheme word checked here, the framework's decoder slices it off unseen.
 *
 * @since 0.1.0
 */
export const authenticateRequest = (
  authenticator: Authenticator.Authenticator,
  request: HttpServerRequest.HttpServerRequest,
  token: string
) => {
  if (!bearerScheme.test(request.headers.authorization ?? "")) return Effect.fail(noBearer())
  return Effect.tap(authenticator.authenticate(token), (principal) => AccessLog.noteCaller(request, principal))
}

/**
 * The principal a Bearer token names, of the request being served.
 *
 * @since 0.1.0
 */
export const authenticate = (authenticator: Authenticator.Authenticator, token: Redacted.Redacted<string>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => authenticateRequest(authenticator, request, Redacted.value(token)))

const notOperator = (p: Principal.Principal) => p._tag !== "Operator"

/**
 * A merchant's principal (an API key or an access token) or 401.
 *
 * @since 0.1.0
 */
export const merchant = <E, R>(principal: Effect.Effect<Principal.Principal, E, R>) =>
  Effect.filterOrFail(principal, notOperator, operatorOnly)

// A fiber's context holds every service of the server: adding the principal to it copies them
// all. The context with a principal is kept, by the context it was added to and the principal,
// so a caller's next request finds it made (a context no longer used takes its own with it).
const maxContexts = 256
const contexts = new WeakMap<Context.Context<never>, Map<string, Context.Context<never>>>()

const keyOf = (p: Principal.Principal): string =>
  p._tag === "ApiKey"
    ? `k ${p.partyID} ${p.keyID}`
    : p._tag === "AccessToken"
    ? `t ${p.partyID} ${p.resource} ${p.resourceID}`
    : `o ${p.keyID}`

/**
 * Whether two principals hold the same fields: their `Equal.equals`, whose fields are strings,
 * without hashing both (a principal is made anew for every request).
 */
const sameFields = (a: Principal.Principal, b: Principal.Principal): boolean => {
  if (a === b) return true
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  for (const key of keys) {
    if ((a as unknown as Record<string, unknown>)[key] !== (b as unknown as Record<string, unknown>)[key]) return false
  }
  return true
}

const withPrincipal = (base: Context.Context<never>, principal: Principal.Principal): Context.Context<never> => {
  let kept = contexts.get(base)
  if (kept === undefined) {
    kept = new Map()
    contexts.set(base, kept)
  }
  const key = keyOf(principal)
  let context = kept.get(key)
  // (the key names every field today; the check keeps a principal given more from another's context)
  if (context === undefined || !sameFields(Context.get(context as Context.Context<Principal.CurrentPrincipal>, Principal.CurrentPrincipal), principal)) {
    if (kept.size >= maxContexts) kept.clear()
    context = Context.add(base, Principal.CurrentPrincipal, principal) as Context.Context<never>
    kept.set(key, context)
  }
  return context
}

/**
 * Makes `principal` the current fiber's `CurrentPrincipal`, for the rest of the fiber: for a
 * fiber that ends with its request (providing it around the request would cost a scope).
 *
 * @since 0.1.0
 */
export const setPrincipal = (principal: Principal.Principal): Effect.Effect<void> =>
  FiberRef.update(FiberRef.currentContext, (base) => withPrincipal(base, principal))

// Each fiber ref set copies all the fiber's refs: the principal and the annotation, one copy.
const principalAnnotated = (fiberId: FiberId.Single, refs: FiberRefs.FiberRefs, principal: Principal.Principal, requestId: string) =>
  FiberRefs.updateManyAs(refs, {
    entries: [
      [FiberRef.currentContext, [[fiberId, withPrincipal(FiberRefs.getOrDefault(refs, FiberRef.currentContext), principal)]]],
      [FiberRef.currentLogAnnotations, [[fiberId, HashMap.set(FiberRefs.getOrDefault(refs, FiberRef.currentLogAnnotations), "requestId", requestId as unknown)]]]
    ]
  })

/**
 * `serve()` with the principal and the annotation set on the fiber that runs it, in one step:
 * `Effect.updateFiberRefs` then `serve()` would cost two more. (The fiber, not the request's:
 * under a deadline the request runs in a race's fiber.)
 */
const servingAnnotated = <A, E, R>(principal: Principal.Principal, requestId: string, serve: () => Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    Fibers.unsafeSetRefs(fiber, principalAnnotated(fiber.id(), fiber.getFiberRefs(), principal, requestId))
    return serve()
  })

/**
 * `serve` as the merchant `request`'s Bearer token (`token`) names, its principal set on the
 * fiber (`setPrincipal`): `merchant(authenticateRequest(…))` then `setPrincipal`, in one step
 * after the authenticator's, for a fiber that ends with its request. Given `requestId`, the
 * fiber's `requestId` log annotation is set in the same update (for an edge that left it to
 * this: `Edge.handle` with `annotate` false).
 *
 * @since 0.1.0
 */
export const servingMerchant = <A, E, R>(
  authenticator: Authenticator.Authenticator,
  request: HttpServerRequest.HttpServerRequest,
  token: string,
  serve: () => Effect.Effect<A, E, R>,
  requestId?: string
): Effect.Effect<A, E | Errors.Unauthorized, Exclude<R, Principal.CurrentPrincipal>> => {
  if (!bearerScheme.test(request.headers.authorization ?? "")) return Effect.fail(noBearer())
  return Effect.flatMap(authenticator.authenticate(token), (principal): Effect.Effect<A, E | Errors.Unauthorized, R> => {
    AccessLog.noteCaller(request, principal)
    if (!notOperator(principal)) return Effect.fail(operatorOnly())
    return requestId === undefined ? Effect.zipRight(setPrincipal(principal), serve()) : servingAnnotated(principal, requestId, serve)
  }) as Effect.Effect<A, E | Errors.Unauthorized, Exclude<R, Principal.CurrentPrincipal>>
}

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Authentication,
  Effect.map(Authenticator.Authenticator, (authenticator) => ({
    bearer: (token: Redacted.Redacted<string>) => merchant(authenticate(authenticator, token))
  }))
)

/** @since 0.1.0 @category layers */
export const operatorLayer = Layer.effect(
  OperatorAuthentication,
  Effect.map(Authenticator.Authenticator, (authenticator) => ({
    operatorBearer: (token: Redacted.Redacted<string>) =>
      authenticate(authenticator, token).pipe(
        Effect.filterOrFail(
          (p): p is Principal.Principal => p._tag === "Operator",
          () => new Errors.Unauthorized({ message: "This API needs an operator token" })
        )
      )
  }))
)

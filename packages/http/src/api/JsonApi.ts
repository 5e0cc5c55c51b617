/**
 * The contract with request bodies as JSON: `KassaApi` whose operations take their body as the
 * wire carries it (dates as strings) and send it unchecked, so the server's schemas decode and
 * validate it and bad input is the wire's 400 `invalidRequest` naming the field. Paths, query
 * parameters and answers are typed as in `KassaApi`.
 *
 * @since 0.1.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpMethod from "@effect/platform/HttpMethod"
import type * as Brand from "effect/Brand"
import * as Schema from "effect/Schema"
import { KassaApi } from "./KassaApi.js"

/**
 * A decoded type as JSON carries it: a date is its ISO 8601 string, a branded id or amount its
 * plain string or number, and objects and arrays hold their members as JSON.
 *
 * @since 0.1.0 @category models
 */
export type Json<A> = A extends Date ? string
  : A extends { readonly [Brand.BrandTypeId]: unknown } ? A extends string ? string : A extends number ? number : A
  : A extends ReadonlyArray<infer I> ? ReadonlyArray<Json<I>>
  : A extends object ? { readonly [K in keyof A]: Json<A[K]> }
  : A

/** An endpoint with its request body as `Json`. @since 0.1.0 @category models */
export type JsonEndpoint<E> = E extends HttpApiEndpoint.HttpApiEndpoint<
  infer Name,
  infer Method,
  infer Path,
  infer UrlParams,
  infer Payload,
  infer Headers,
  infer Success,
  infer Error,
  infer R,
  infer RE
> ? HttpApiEndpoint.HttpApiEndpoint<
    Name,
    Method,
    Path,
    UrlParams,
    Method extends HttpMethod.HttpMethod.WithBody ? Json<Payload> : Payload,
    Headers,
    Success,
    Error,
    R,
    RE
  >
  : never

/** A group with its endpoints' request bodies as `Json`. @since 0.1.0 @category models */
export type JsonGroup<G> = G extends HttpApiGroup.HttpApiGroup<infer Id, infer Endpoints, infer Error, infer R, infer TopLevel>
  ? HttpApiGroup.HttpApiGroup<Id, JsonEndpoint<Endpoints>, Error, R, TopLevel>
  : never

/** An API with its endpoints' request bodies as `Json`. @since 0.1.0 @category models */
export type JsonOf<A> = A extends HttpApi.HttpApi<infer Id, infer Groups, infer E, infer R> ? HttpApi.HttpApi<Id, JsonGroup<Groups>, E, R>
  : never

const jsonBody = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) =>
  endpoint.payloadSchema._tag === "Some" && HttpMethod.hasBody(endpoint.method)
    ? endpoint.setPayload(Schema.Unknown)
    : endpoint

/**
 * `KassaApi` with JSON request bodies (`add` replaces a group's endpoint, and the API's group,
 * of the same name, keeping errors, middleware and annotations).
 *
 * @since 0.1.0 @category api
 */
export const JsonApi: JsonOf<typeof KassaApi> = (() => {
  // Rebuilt untyped, endpoint by endpoint; `JsonOf` states the result's type.
  const contract = KassaApi as unknown as HttpApi.HttpApi.AnyWithProps
  const json = Object.values(contract.groups).reduce(
    (api, group) => api.add(Object.values(group.endpoints).reduce((g, e) => g.add(jsonBody(e)), group)),
    contract
  )
  return json as unknown as JsonOf<typeof KassaApi>
})()

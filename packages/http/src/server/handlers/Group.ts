/**
 * A group's handlers written once, as a record by operation name (what the lean router serves
 * from), and the group's `HttpApiBuilder.group` layer built from that record.
 *
 * @since 0.1.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

type EndpointsOf<Groups, Name extends string> = HttpApiGroup.HttpApiGroup.Endpoints<HttpApiGroup.HttpApiGroup.WithName<Groups, Name>>

/**
 * The handlers of group `Name`, one per operation, needing `R` when they run.
 *
 * @since 0.1.0 @category models
 */
export type Handlers<Groups extends HttpApiGroup.HttpApiGroup.Any, ApiError, Name extends string, R> = {
  readonly [K in HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<Groups, Name>>]: HttpApiEndpoint.HttpApiEndpoint.HandlerWithName<
    EndpointsOf<Groups, Name>,
    K,
    ApiError,
    R
  >
}

/** What the router and the group's middleware give a handler. */
type Provided<Groups extends HttpApiGroup.HttpApiGroup.Any, ApiR, Name extends string> =
  | HttpRouter.HttpRouter.DefaultServices
  | HttpRouter.HttpRouter.Provided
  | HttpApiMiddleware.HttpApiMiddleware.ExtractProvides<
    ApiR | HttpApiGroup.HttpApiGroup.MiddlewareWithName<Groups, Name> | HttpApiEndpoint.HttpApiEndpoint.Context<EndpointsOf<Groups, Name>>
  >

/**
 * The handlers of `api`'s group `name`, typed by the contract (`handlers` written in the record
 * are checked as `HttpApiBuilder`'s `handle` checks them).
 *
 * @since 0.1.0 @category constructors
 */
export const handlers = <ApiId extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, ApiError, ApiR, const Name extends HttpApiGroup.HttpApiGroup.Name<Groups>>(
  _api: HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>,
  _name: Name
) =>
<R>(record: Handlers<Groups, ApiError, Name, R>): Handlers<Groups, ApiError, Name, R> => record

/**
 * The group's layer: every handler of the record `make` yields added to HttpApi's router.
 *
 * @since 0.1.0 @category layers
 */
export const layer = <
  ApiId extends string,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  ApiError,
  ApiR,
  const Name extends HttpApiGroup.HttpApiGroup.Name<Groups>,
  R,
  E,
  RB
>(
  api: HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>,
  name: Name,
  make: Effect.Effect<Handlers<Groups, ApiError, Name, R>, E, RB>
): Layer.Layer<
  HttpApiGroup.ApiGroup<ApiId, Name>,
  E,
  Exclude<RB | Exclude<R, Provided<Groups, ApiR, Name>> | HttpApiGroup.HttpApiGroup.MiddlewareWithName<Groups, Name>, Scope.Scope>
> =>
  HttpApiBuilder.group(api, name, (builder) =>
    Effect.map(make, (record) => {
      let handlers: any = builder
      for (const operation of Object.keys(record)) handlers = handlers.handle(operation, (record as any)[operation])
      return handlers
    }) as any) as any

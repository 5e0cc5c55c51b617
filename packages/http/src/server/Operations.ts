/**
 * Names the operation a request is for, from the contract's own routes (for metrics and logs);
 * the plain routes by what they serve, and anything else `notFound`.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"

/**
 * A route's path by its segments, `undefined` where a parameter (`:id`) takes any non-empty one.
 * Told apart segment by segment, not by a regular expression per route: a regular expression is
 * compiled when first run, and the first request of a start (its `/health`) would run them all.
 */
type Segments = ReadonlyArray<string | undefined>

const matches = (route: Segments, path: ReadonlyArray<string>): boolean => {
  if (route.length !== path.length) return false
  for (let i = 0; i < route.length; i++) {
    const segment = route[i]
    if (segment === undefined ? path[i] === "" : segment !== path[i]) return false
  }
  return true
}

/** @since 0.1.0 */
export const resolver = <Api extends HttpApi.HttpApi.Any>(api: Api) => {
  const routes = new Map<string, Array<{ readonly segments: Segments; readonly name: string }>>()
  HttpApi.reflect(api as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const segments = endpoint.path.split("/").map((s) => (s.startsWith(":") ? undefined : s))
      const same = routes.get(endpoint.method)
      if (same === undefined) routes.set(endpoint.method, [{ segments, name: endpoint.name }])
      else same.push({ segments, name: endpoint.name })
    }
  })
  return (method: string, path: string): string => {
    const segments = path.split("/")
    return routes.get(method)?.find((r) => matches(r.segments, segments))?.name ?? plainRoute(path)
  }
}

const plainRoute = (path: string): string =>
  path === "/openapi.json" || path === "/docs" || path.startsWith("/docs/")
    ? "docs"
    : path.startsWith("/3ds/")
    ? "3ds"
    : path.startsWith("/downloads/")
    ? "download"
    : path === "/health" || path.startsWith("/health/")
    ? "health"
    : path === "/metrics"
    ? "metrics"
    : "notFound"

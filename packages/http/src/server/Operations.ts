/**
 * Names the operation a request is for, from the contract's own routes (for metrics and logs);
 * the plain routes by what they serve, and anything else `notFound`.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"

/** @since 0.1.0 */
export const resolver = <Api extends HttpApi.HttpApi.Any>(api: Api) => {
  const routes: Array<{ readonly method: string; readonly pattern: RegExp; readonly name: string }> = []
  HttpApi.reflect(api as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const source = endpoint.path.split("/").map((s) => (s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      routes.push({ method: endpoint.method, pattern: new RegExp(`^${source.join("/")}$`), name: endpoint.name })
    }
  })
  return (method: string, path: string): string =>
    routes.find((r) => r.method === method && r.pattern.test(path))?.name ?? plainRoute(path)
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

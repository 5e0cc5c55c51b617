import { assert, describe, it, layer } from "@effect/vitest"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Fallback from "@kassa/http/server/lean/Fallback"
import * as LeanServer from "@kassa/http/server/lean/Server"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"
import { portOf, send, twoServers } from "./support/Answers.js"

/**
 * Lean, HttpApi's app is not built at start: the plain routes answer without it, and the first
 * request the lean router leaves to HttpApi builds it, once, answering as the eager app does.
 */

class Servers extends Context.Tag("test/Servers")<
  Servers,
  { readonly lean: number; readonly eager: number; readonly builds: () => number }
>() {}

const servers = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const { eager, kassa, lean } = yield* twoServers(dialect)
    // (`Builds` is in the served layer's output when lean, not in its type)
    assert.isTrue(Option.isNone(Context.getOption(eager as Context.Context<unknown>, Fallback.Builds)), "eager: no lazy build")
    return Layer.merge(
      Layer.succeedContext(kassa),
      Layer.succeed(Servers, { lean: portOf(lean), eager: portOf(eager), builds: Context.unsafeGet(lean as Context.Context<unknown>, Fallback.Builds).count })
    )
  }))

for (const dialect of Dialects.dialects()) {
  layer(servers(dialect), { timeout: "120 seconds", excludeTestServices: true })(`LeanFallback [${dialect}]`, (it) => {
    it.effect("HttpApi's app is built on the first request left to it, once, and answers as the eager one", () =>
      Effect.gen(function*() {
        const ports = yield* Servers
        const m = yield* Fixtures.merchant()
        const auth = { authorization: `Bearer ${m.apiKey}` }
        const same = (method: string, path: string, headers: Record<string, string> = {}) =>
          Effect.gen(function*() {
            const id = { "x-request-id": TestServer.requestId(), ...headers }
            const [lean, eager] = yield* Effect.all([send(ports.lean, method, path, id), send(ports.eager, method, path, id)])
            assert.deepStrictEqual(lean, eager, `${method} ${path}`)
            return lean
          })

        // the plain routes and the hot operations: nothing built
        assert.strictEqual(ports.builds(), 0)
        assert.strictEqual((yield* same("GET", "/health")).status, 200)
        assert.strictEqual((yield* same("GET", "/health/live")).status, 200)
        const spec = yield* send(ports.lean, "GET", "/openapi.json")
        assert.strictEqual(spec.status, 200)
        assert.isObject(JSON.parse(spec.text).paths)
        const invoice = yield* Fixtures.invoice(m, 1000)
        assert.strictEqual((yield* same("GET", `/v2/processing/invoices/${invoice.id}`, auth)).status, 200)
        assert.strictEqual(ports.builds(), 0)

        // concurrent first requests left to HttpApi share the one build
        const requests = [
          ["GET", "/v2/processing/me"],
          ["GET", "/v1/processing/me"],
          ["GET", "/wallet/v0/identities"]
        ] as const
        const first = yield* Effect.all(
          requests.map(([method, path]) => send(ports.lean, method, path, { ...auth, "x-request-id": TestServer.requestId() })),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(ports.builds(), 1)
        for (const [i, [method, path]] of requests.entries()) {
          assert.deepStrictEqual(first[i], yield* send(ports.eager, method, path, { ...auth, "x-request-id": TestServer.requestId() }))
        }
        assert.strictEqual(first[0]!.status, 200, first[0]!.text)

        // after it, the same answers as the eager app's, and no other build
        assert.strictEqual((yield* same("GET", "/v2/processing/me", auth)).status, 200)
        assert.strictEqual((yield* same("GET", "/v2/processing/me")).status, 401)
        assert.strictEqual((yield* same("GET", "/v2/processing/shops/nope", auth)).status, 404)
        assert.strictEqual((yield* same("GET", "/v2/processing/nowhere", auth)).status, 404)
        // the router's settings: a long path parameter reaches the schema
        assert.strictEqual((yield* same("GET", `/v2/processing/shops/${"x".repeat(200)}`, auth)).status, 400)
        yield* same("GET", `/v2/processing/invoices/${invoice.id}/`, auth)
        yield* same("GET", "/health/")
        yield* same("GET", "/health;x")
        yield* same("GET", "/wallet/v0/identities", auth)
        assert.strictEqual((yield* same("GET", "/health")).status, 200)
        assert.strictEqual(ports.builds(), 1)
      }))
  })
}

class Ping extends HttpApiGroup.make("ping").add(HttpApiEndpoint.get("ping", "/ping").addSuccess(Schema.String)) {}
class PingApi extends HttpApi.make("ping").add(Ping) {}

describe("LeanFallback: a build that fails", () => {
  it.scoped("answers 500 and is built again on the next request", () =>
    Effect.gen(function*() {
      let attempts = 0
      const groups = Layer.unwrapEffect(Effect.sync(() =>
        ++attempts === 1
          ? Layer.die("the groups' build failed")
          : HttpApiBuilder.group(PingApi, "ping", (handlers) => handlers.handle("ping", () => Effect.succeed("pong")))
      ))
      const plain = HttpApiBuilder.Router.use((router) => router.get("/plain", Effect.succeed(HttpServerResponse.text("plain"))))
      const served = yield* Layer.build(
        Fallback.serve(groups).pipe(
          Layer.provide(plain),
          Layer.provide(HttpApiBuilder.api(PingApi) as Layer.Layer<HttpApi.Api>),
          Layer.provideMerge(LeanServer.layer(createServer, { port: 0 }))
        )
      )
      const port = portOf(served)
      const builds = Context.get(served, Fallback.Builds)
      assert.strictEqual((yield* send(port, "GET", "/plain")).text, "plain")
      assert.strictEqual(attempts, 0)
      const failed = yield* send(port, "GET", "/ping")
      assert.strictEqual(failed.status, 500)
      assert.deepStrictEqual(JSON.parse(failed.text), { message: "Unexpected failure; contact support" })
      assert.strictEqual(builds.count(), 0)
      const answered = yield* send(port, "GET", "/ping")
      assert.strictEqual(answered.status, 200)
      assert.strictEqual(answered.text, "\"pong\"")
      assert.strictEqual((yield* send(port, "GET", "/ping")).status, 200)
      assert.deepStrictEqual([attempts, builds.count()], [2, 1])
    }))
})

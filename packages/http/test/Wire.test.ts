import { assert, layer } from "@effect/vitest"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Kassa, TokenKeys } from "@kassa/adapters"
import { InvoiceService, PaymentService } from "@kassa/core"
import { EventLog } from "@kassa/core/ports/EventLog"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import { Ledger } from "@kassa/core/ports/Ledger"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { Jwt } from "@kassa/core/ports/Jwt"
import { Transactions } from "@kassa/core/ports/Transactions"
import { SearchService } from "@kassa/core/search/SearchService"
import * as Http from "@kassa/http/server/Http"
import { Dialects, Fixtures, TestDatabase, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { createHmac, sign } from "node:crypto"

/**
 * The test server of `TestServer.layer`, but on a signing key the test knows: the forgeries
 * below need its public key (and only its public key) as an attacker would.
 */
const signingPem = TokenKeys.generatePem()
const signingKey = TokenKeys.fromPem(signingPem)
const serverLayer = (dialect: Dialects.Dialect) =>
  TestServer.serving(
    Layer.unwrapScoped(
      Effect.map(TestDatabase.acquire(dialect), ({ dataDir, database }) =>
        Kassa.layer({
          database,
          dataDir,
          signingKey: signingPem,
          // no timers here: a slow poll keeps TestClock.adjust cheap
          scheduler: { pollInterval: "1 minute", lease: "10 seconds" }
        }))
    )
  )

const JSON_TYPE = "application/json; charset=utf-8"
const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url")
const decodePart = (part: string): any => JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
const parts = (token: string) => token.split(".") as [string, string, string]

const merchantHeaders = (apiKey: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${apiKey}`,
  "x-request-id": TestServer.requestId(),
  ...extra
})

const assertInvalidRequest = (response: TestServer.RawResponse, code = "invalidRequest", label = "") => {
  assert.strictEqual(response.status, 400, `${label} ${response.text}`)
  assert.strictEqual(response.headers["content-type"], JSON_TYPE)
  assert.deepStrictEqual(Object.keys(response.json).sort(), ["code", "message"])
  assert.strictEqual(response.json.code, code)
  assert.isString(response.json.message)
  assert.isAbove(response.json.message.length, 0)
}

const assertGeneralError = (response: TestServer.RawResponse, status: number) => {
  assert.strictEqual(response.status, status, response.text)
  assert.strictEqual(response.headers["content-type"], JSON_TYPE)
  assert.deepStrictEqual(Object.keys(response.json), ["message"])
  assert.isString(response.json.message)
}

/** GET a path as a browser would: a redirect's `Location` is resolved against the URL it answered. */
const getFollowingRedirect = (path: string) =>
  Effect.gen(function*() {
    const url = new URL(path, "http://kassa.test")
    const response = yield* TestServer.raw("GET", url.pathname + url.search)
    if (response.status < 300 || response.status >= 400) return { url, response }
    const target = new URL(response.headers["location"]!, url)
    return { url: target, response: yield* TestServer.raw("GET", target.pathname + target.search) }
  })

const validOnboarding = (n: string) => ({
  email: `wire-${n}@kassa.test`,
  shops: [{ name: "Wire shop", url: "https://wire.kassa.test", categoryID: 1, currency: "RUB" }]
})

for (const dialect of Dialects.dialects()) {
  layer(serverLayer(dialect), { timeout: "60 seconds" })(`Wire [${dialect}]`, (it) => {
    const me = (apiKey: string, extra: Record<string, string> = {}) =>
      TestServer.raw("GET", "/v2/processing/me", { headers: merchantHeaders(apiKey, extra) })

    it.effect("X-Request-ID is required, 1..32 characters", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const auth = { authorization: `Bearer ${m.apiKey}` }
        assertInvalidRequest(yield* TestServer.raw("GET", "/v2/processing/me", { headers: auth }))
        assertInvalidRequest(yield* TestServer.raw("GET", "/v2/processing/me", { headers: { ...auth, "x-request-id": "" } }))
        assertInvalidRequest(
          yield* TestServer.raw("GET", "/v2/processing/me", { headers: { ...auth, "x-request-id": "x".repeat(33) } })
        )
        // public operations too
        assertInvalidRequest(yield* TestServer.raw("GET", "/v2/processing/countries", {}))
        assertInvalidRequest(yield* TestServer.raw("GET", "/v1/processing/countries/RUS", {}))
        // a command without it changes nothing
        assertInvalidRequest(yield* TestServer.raw("PUT", "/v2/processing/me/suspend", { headers: auth }))
        const party = yield* me(m.apiKey)
        assert.strictEqual(party.status, 200)
        assert.isFalse(party.json.isSuspended)

        for (const id of ["x", "x".repeat(32)]) {
          const ok = yield* TestServer.raw("GET", "/v2/processing/me", { headers: { ...auth, "x-request-id": id } })
          assert.strictEqual(ok.status, 200, id)
          assert.strictEqual(ok.headers["content-type"], JSON_TYPE)
        }
      }))

    it.effect("X-Request-Deadline: a bad value is invalidDeadline, a good one is honoured", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const bad of ["nope", "10h", "2024-01-01", "2024-01-01T10:00:00", "-5s", "", "1".repeat(39) + "ms"]
        ) {
          assertInvalidRequest(yield* me(m.apiKey, { "x-request-deadline": bad }), "invalidDeadline", bad)
        }
        const now = yield* Clock.currentTimeMillis
        for (
          const good of [
            "30s",
            "150000ms",
            "3.5m",
            new Date(now + 3_600_000).toISOString(),
            new Date(now + 3_600_000).toISOString().replace("Z", "+00:00"),
            "2999-01-01T00:00:00+03:00"
          ]
        ) {
          const ok = yield* me(m.apiKey, { "x-request-deadline": good })
          assert.strictEqual(ok.status, 200, good)
          assert.strictEqual(ok.json.id, m.partyID)
        }
      }))

    it.effect("a relative deadline past the representable dates is invalidDeadline", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (const bad of ["99999999999999999999m", "9999999999999999ms"]) {
          assertInvalidRequest(yield* me(m.apiKey, { "x-request-deadline": bad }), "invalidDeadline", bad)
        }
      }))

    it.effect("a deadline already past is answered 504 {message} and nothing is done", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const now = yield* Clock.currentTimeMillis
        const past = { "x-request-deadline": new Date(now - 1000).toISOString() }
        assertGeneralError(yield* me(m.apiKey, past), 504)
        assertGeneralError(
          yield* TestServer.raw("GET", "/v2/processing/countries/RUS", { headers: merchantHeaders(m.apiKey, past) }),
          504
        )
        assertGeneralError(
          yield* TestServer.raw("PUT", "/v2/processing/me/suspend", { headers: merchantHeaders(m.apiKey, past) }),
          504
        )
        const party = yield* me(m.apiKey)
        assert.strictEqual(party.status, 200)
        assert.isFalse(party.json.isSuspended, "the late command was not executed")
      }))

    it.effect("/v1/... and /v2/... give identical answers", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const pairs: ReadonlyArray<readonly [string, Record<string, string>]> = [
          ["/processing/me", merchantHeaders(m.apiKey)],
          ["/processing/shops", merchantHeaders(m.apiKey)],
          [`/processing/shops/${m.shopID}`, merchantHeaders(m.apiKey)],
          ["/processing/shops/unknown", merchantHeaders(m.apiKey)],
          ["/processing/countries/RUS", { "x-request-id": "r" }],
          ["/processing/countries/rus", { "x-request-id": "r" }],
          ["/processing/payment-institutions?realm=live", merchantHeaders(m.apiKey)],
          ["/processing/me", { "x-request-id": "r" }],
          ["/processing/me", { authorization: `Bearer ${m.apiKey}` }]
        ]
        for (const [path, headers] of pairs) {
          const v1 = yield* TestServer.raw("GET", `/v1${path}`, { headers })
          const v2 = yield* TestServer.raw("GET", `/v2${path}`, { headers })
          assert.strictEqual(v1.status, v2.status, path)
          assert.strictEqual(v1.text, v2.text, path)
          assert.strictEqual(v1.headers["content-type"], v2.headers["content-type"], path)
        }
        // commands too
        const suspended = yield* TestServer.raw("PUT", "/v1/processing/me/suspend", { headers: merchantHeaders(m.apiKey) })
        assert.strictEqual(suspended.status, 204)
        assert.isTrue((yield* me(m.apiKey)).json.isSuspended)
      }))

    it.effect("an unknown route is 404 {message}", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const [method, path] of [
            ["GET", "/"],
            ["GET", "/v2/processing/nope"],
            ["GET", "/v1/processing/nope"],
            ["GET", "/v3/processing/me"],
            ["GET", "/v0/processing/me"],
            ["GET", "/processing/me"],
            ["GET", "/admin/v2/parties"],
            ["POST", "/v2/processing/me"],
            ["DELETE", "/v2/processing/shops"]
          ] as const
        ) {
          assertGeneralError(yield* TestServer.raw(method, path, { headers: merchantHeaders(m.apiKey) }), 404)
        }
      }))

    it.effect("a path parameter too long is a schema violation (400), not an unknown route", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const path of [
            `/v2/processing/shops/${"x".repeat(41)}`,
            `/v2/processing/service-providers/${"x".repeat(101)}`,
            `/v2/processing/shops/${"x".repeat(200)}`
          ]
        ) {
          const response = yield* TestServer.raw("GET", path, { headers: merchantHeaders(m.apiKey) })
          assertInvalidRequest(response)
        }
      }))

    it.effect("request bodies: malformed JSON, schema violations, content types, size", () =>
      Effect.gen(function*() {
        const operator = yield* Fixtures.operatorToken
        const post = (body: string, headers: Record<string, string> = {}) =>
          TestServer.raw("POST", "/admin/v1/parties", {
            headers: { authorization: `Bearer ${operator}`, "content-type": "application/json", ...headers },
            body
          })

        for (const body of ["{\"email\":", "not json", "{'email': 'a@b.c'}", "[1,2,"]) {
          assertInvalidRequest(yield* post(body))
        }

        const missing = yield* post(JSON.stringify({ shops: validOnboarding("a").shops }))
        assertInvalidRequest(missing)
        assert.include(missing.json.message, "email")
        const empty = yield* post(JSON.stringify({ ...validOnboarding("b"), shops: [] }))
        assertInvalidRequest(empty)
        assert.include(empty.json.message, "shops")
        const nested = yield* post(JSON.stringify({
          ...validOnboarding("c"),
          shops: [{ ...validOnboarding("c").shops[0], currency: "rub" }]
        }))
        assertInvalidRequest(nested)
        assert.include(nested.json.message, "currency")

        assertInvalidRequest(yield* post(JSON.stringify(validOnboarding("d")), { "content-type": "text/plain" }))
        // the merchant side checks the content type of every command
        const m = yield* Fixtures.merchant()
        assertInvalidRequest(
          yield* TestServer.raw("PUT", "/v2/processing/me/suspend", {
            headers: merchantHeaders(m.apiKey, { "content-type": "text/plain" }),
            body: "{}"
          })
        )
        assert.isFalse((yield* me(m.apiKey)).json.isSuspended)

        const accepted = yield* post(JSON.stringify(validOnboarding("e")), { "content-type": "application/json;charset=utf-8" })
        assert.strictEqual(accepted.status, 201, accepted.text)
        assert.strictEqual(accepted.headers["content-type"], JSON_TYPE)
        const spaced = yield* post(JSON.stringify(validOnboarding("f")), { "content-type": "application/json; charset=utf-8" })
        assert.strictEqual(spaced.status, 201, spaced.text)
        const suspended = yield* TestServer.raw("PUT", "/v2/processing/me/suspend", {
          headers: merchantHeaders(m.apiKey, { "content-type": "application/json;charset=utf-8" }),
          body: "{}"
        })
        assert.strictEqual(suspended.status, 204)

        const huge = JSON.stringify({ ...validOnboarding("g"), name: "x".repeat(1024 * 1024) })
        assertInvalidRequest(yield* post(huge))
        // valid but for its size (unknown fields are accepted), sent in chunks without a
        // Content-Length: the limit holds while the body is read; the client gets its 400 and the
        // party is never created
        const padded = JSON.stringify({ ...validOnboarding("h"), padding: "x".repeat(1024 * 1024) })
        const chunked = yield* HttpClient.HttpClient.pipe(
          Effect.flatMap((client) =>
            client.execute(HttpClientRequest.post("/admin/v1/parties").pipe(
              HttpClientRequest.setHeaders({ authorization: `Bearer ${operator}`, "x-request-id": TestServer.requestId() }),
              HttpClientRequest.bodyStream(Stream.make(padded.slice(0, 600_000), padded.slice(600_000)).pipe(Stream.encodeText), {
                contentType: "application/json"
              })
            ))
          ),
          Effect.map((response) => response.status),
          Effect.scoped
        )
        assert.strictEqual(chunked, 400)
      }))

    it.effect("the server is built seeing core's services, not the storage ports behind them", () =>
      Effect.gen(function*() {
        assert.isTrue(Option.isSome(yield* Effect.serviceOption(InvoiceRepository)), "the test's own context has the ports")
        const seen = yield* Layer.build(Layer.provide(Http.reached, Layer.effectContext(Effect.context<Http.Behind>())))
        for (const tag of [PaymentService.PaymentService, InvoiceService.InvoiceService, SearchService, Ledger, SqlClient.SqlClient]) {
          assert.isTrue(Option.isSome(Context.getOption(seen, tag as Context.Tag<any, any>)), tag.key)
        }
        for (const tag of [InvoiceRepository, PaymentRepository, EventLog, Transactions, Jwt]) {
          assert.isTrue(Option.isNone(Context.getOption(seen, tag as Context.Tag<any, any>)), tag.key)
        }
      }).pipe(Effect.scoped))

    it.effect("/health, /metrics and /openapi.json", () =>
      Effect.gen(function*() {
        const health = yield* TestServer.raw("GET", "/health")
        assert.strictEqual(health.status, 200)
        assert.deepStrictEqual(health.json, { status: "ok" })
        assert.strictEqual(health.headers["content-type"], JSON_TYPE)

        const m = yield* Fixtures.merchant()
        assert.strictEqual((yield* me(m.apiKey)).status, 200)
        const metrics = yield* TestServer.raw("GET", "/metrics")
        assert.strictEqual(metrics.status, 200)
        assert.include(metrics.text, "kassa_http_requests_total")
        assert.match(metrics.text, /kassa_http_requests_total\{operation="getMyParty",status="200"\} \d+/)

        const openapi = yield* TestServer.raw("GET", "/openapi.json")
        assert.strictEqual(openapi.status, 200)
        const operations = new Map<string, any>()
        for (const item of Object.values<any>(openapi.json.paths)) {
          for (const op of Object.values<any>(item)) {
            if (typeof op?.operationId === "string") operations.set(op.operationId, op)
          }
        }
        for (
          const id of [
            "getMyParty",
            "getPartyByID",
            "getShops",
            "getShopByID",
            "suspendShop",
            "getCountries",
            "getCategories",
            "getPaymentInstitutions",
            "getServiceProviderByID",
            "onboardParty",
            "revokeApiKey"
          ]
        ) {
          assert.isTrue(operations.has(id), id)
        }
        for (const id of operations.keys()) assert.notInclude(id, ".", id)
        assert.notInclude(openapi.text, "HttpApiDecodeError")
        const parameters = operations.get("getMyParty").parameters.map((p: any) => p.name)
        assert.includeMembers(parameters, ["X-Request-ID", "X-Request-Deadline"])
        assert.deepStrictEqual((yield* TestServer.raw("GET", "/openapi.json")).json, openapi.json)
      }))

    it.effect("/docs and /docs/: Swagger UI whose script, style and document resolve from the page's URL", () =>
      Effect.gen(function*() {
        for (const entry of ["/docs", "/docs/", "/docs//"]) {
          const { url, response: docs } = yield* getFollowingRedirect(entry)
          assert.strictEqual(docs.status, 200, entry)
          assert.strictEqual(docs.headers["content-type"], "text/html; charset=utf-8")
          const links = [...docs.text.matchAll(/(?:href|src)="([^"]+)"|url: "([^"]+)"/g)].map((m) => m[1] ?? m[2])
          const expected = [
            ["swagger-ui.css", "text/css; charset=utf-8", ".swagger-ui"],
            ["swagger-ui-bundle.js", "text/javascript; charset=utf-8", "SwaggerUIBundle"],
            ["openapi.json", JSON_TYPE, "getMyParty"]
          ]
          assert.strictEqual(links.length, expected.length, `${entry}: ${links.join(", ")}`)
          for (const [i, [file, type, marker]] of expected.entries()) {
            const resolved = new URL(links[i]!, url).pathname
            assert.isTrue(resolved.endsWith(`/${file}`), `${entry}: ${links[i]} resolves to ${resolved}`)
            const asset = yield* TestServer.raw("GET", resolved)
            assert.strictEqual(asset.status, 200, `${entry}: ${resolved}`)
            assert.strictEqual(asset.headers["content-type"], type)
            assert.include(asset.text, marker)
          }
        }
        assert.strictEqual((yield* TestServer.raw("GET", "/docs/package.json")).status, 404)
      }))

    it.effect("Authorization: missing, wrong scheme or garbage is 401 with an empty body", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const authorization of [
            undefined,
            "",
            "Basic xyz",
            `Basic ${m.apiKey}`,
            "Bearer",
            "Bearer ",
            "Bearer garbage",
            `Bearer ${m.apiKey} extra`,
            `Bearer ${m.apiKey}x`,
            m.apiKey
          ]
        ) {
          const response = yield* TestServer.raw("GET", "/v2/processing/me", {
            headers: { "x-request-id": TestServer.requestId(), ...(authorization === undefined ? {} : { authorization }) }
          })
          assert.strictEqual(response.status, 401, String(authorization))
          assert.strictEqual(response.text, "", String(authorization))
        }
        assert.strictEqual((yield* me(m.apiKey)).status, 200)
      }))

    it.effect("forged tokens are 401", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        const [h, p, s] = parts(a.apiKey)
        const claims = decodePart(p)
        assert.strictEqual(decodePart(h).kid, signingKey.kid, "the server signs with the test's key")
        const forged: Record<string, string> = {}

        const none = b64url(JSON.stringify({ alg: "none", typ: "JWT", kid: signingKey.kid }))
        forged.algNone = `${none}.${p}.`
        forged.algNoneWithSignature = `${none}.${p}.${s}`

        const hs = b64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: signingKey.kid }))
        const publicPem = signingKey.publicKey.export({ format: "pem", type: "spki" }).toString()
        forged.hs256WithPublicKey = `${hs}.${p}.${b64url(createHmac("sha256", publicPem).update(`${hs}.${p}`).digest())}`

        const other = TokenKeys.make([TokenKeys.fromPem(TokenKeys.generatePem())])
        forged.otherKey = yield* other.issue({ kind: "api-key", sub: a.partyID, jti: claims.jti })
        const otherKey = TokenKeys.fromPem(TokenKeys.generatePem())
        const signed = (header: string, payload: string) =>
          b64url(sign("sha256", Buffer.from(`${header}.${payload}`), { key: otherKey.privateKey, dsaEncoding: "ieee-p1363" }))
        forged.otherKeyClaimingOurKid = `${h}.${p}.${signed(h, p)}`

        const subB = b64url(JSON.stringify({ ...claims, sub: b.partyID }))
        forged.tamperedSub = `${h}.${subB}.${s}`
        const bClaims = decodePart(parts(b.apiKey)[1])
        forged.tamperedSubAndJti = `${h}.${b64url(JSON.stringify({ ...claims, sub: b.partyID, jti: bClaims.jti }))}.${s}`
        forged.payloadOfB = `${h}.${parts(b.apiKey)[1]}.${s}`
        forged.promotedToOperator = `${h}.${b64url(JSON.stringify({ ...claims, kind: "operator", sub: "operator" }))}.${s}`

        for (const [name, token] of Object.entries(forged)) {
          const response = yield* me(token)
          assert.strictEqual(response.status, 401, name)
          assert.strictEqual(response.text, "", name)
        }
        // nothing leaked: both parties are as they were
        assert.strictEqual((yield* me(a.apiKey)).json.id, a.partyID)
        assert.strictEqual((yield* me(b.apiKey)).json.id, b.partyID)
      }))

    it.effect("an access token is refused once expired", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const tokens = yield* Jwt
        const now = yield* Clock.currentTimeMillis
        const token = yield* tokens.issue(
          { kind: "access", sub: m.partyID, jti: `acc-${now}`, resource: "invoice", resourceID: "inv-1" },
          new Date(now + 1000)
        )
        const categories = () =>
          TestServer.raw("GET", "/v2/processing/categories", { headers: merchantHeaders(token) })
        assert.strictEqual((yield* categories()).status, 200)
        // an access token opens single resources, not the party's business
        assert.strictEqual((yield* me(token)).status, 401)
        yield* TestClock.adjust("1 second")
        const expired = yield* categories()
        assert.strictEqual(expired.status, 401)
        assert.strictEqual(expired.text, "")
        // without exp an access token is refused at once
        const noExp = yield* tokens.issue({ kind: "access", sub: m.partyID, jti: "acc-x", resource: "invoice", resourceID: "i" })
        assert.strictEqual((yield* TestServer.raw("GET", "/v2/processing/categories", { headers: merchantHeaders(noExp) })).status, 401)
      }))

    it.effect("operator tokens open only the operator API, API keys only the merchant API", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* Fixtures.operatorToken
        for (const path of ["/v2/processing/me", "/v2/processing/shops", "/v2/processing/categories"]) {
          const response = yield* TestServer.raw("GET", path, { headers: merchantHeaders(operator) })
          assert.strictEqual(response.status, 401, path)
          assert.strictEqual(response.text, "")
        }
        for (
          const [method, path] of [
            ["GET", `/admin/v1/parties/${m.partyID}/api-keys`],
            ["POST", `/admin/v1/parties/${m.partyID}/api-keys`],
            ["PUT", `/admin/v1/parties/${m.partyID}/block`]
          ] as const
        ) {
          const response = yield* TestServer.raw(method, path, { headers: { authorization: `Bearer ${m.apiKey}` } })
          assert.strictEqual(response.status, 401, path)
          assert.strictEqual(response.text, "")
        }
        assert.isFalse((yield* me(m.apiKey)).json.isBlocked)
        const listed = yield* TestServer.raw("GET", `/admin/v1/parties/${m.partyID}/api-keys`, {
          headers: { authorization: `Bearer ${operator}` }
        })
        assert.strictEqual(listed.status, 200)
      }))

    it.effect("a revoked key is 401 while another key of the party keeps working", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const second = yield* operator.Admin.issueApiKey({ path: { partyID: m.partyID } })
        assert.strictEqual((yield* me(second.apiKey)).status, 200)
        const firstKeyID = decodePart(parts(m.apiKey)[1]).jti
        yield* operator.Admin.revokeApiKey({ path: { partyID: m.partyID, keyID: firstKeyID } })
        const revoked = yield* me(m.apiKey)
        assert.strictEqual(revoked.status, 401)
        assert.strictEqual(revoked.text, "")
        const still = yield* me(second.apiKey)
        assert.strictEqual(still.status, 200)
        assert.strictEqual(still.json.id, m.partyID)
      }))
  })
}

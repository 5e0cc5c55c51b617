import { assert, layer } from "@effect/vitest"
import * as LeanRouter from "@kassa/http/server/lean/Router"
import * as Metrics from "@kassa/http/server/Metrics"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { portOf, send, twoServers } from "./support/Answers.js"

/**
 * The lean router and HttpApi answer alike: one Kassa served by two servers, one with the lean
 * router in front and one without, asked the same requests (the same objects, the same refusals)
 * answer the same status, headers (all but `date`) and body bytes.
 */

/** Kassa with the two servers over it: the ports of the lean one and of the other. */
class Servers extends Context.Tag("test/Servers")<
  Servers,
  { readonly lean: number; readonly framework: number; readonly route: LeanRouter.Route }
>() {}

const servers = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const { eager, kassa, lean: leanServer } = yield* twoServers(dialect)
    const framework = portOf(eager)
    return Layer.merge(
      Layer.succeedContext(kassa),
      Layer.succeed(Servers, {
        lean: portOf(leanServer),
        framework,
        route: Context.get(
          yield* Layer.build(LeanRouter.layer.pipe(Layer.provide(Metrics.layer), Layer.provide(Layer.succeedContext(kassa)))),
          LeanRouter.LeanRouter
        )
      })
    )
  }))

const JSON_TYPE = "application/json"

for (const dialect of Dialects.dialects()) {
  layer(servers(dialect), { timeout: "120 seconds", excludeTestServices: true })(`LeanParity [${dialect}]`, (it) => {
    /** The same request to both servers, each with its own X-Request-ID unless `headers` names one. */
    const both = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      Effect.gen(function*() {
        const ports = yield* Servers
        const lean = yield* send(ports.lean, method, path, { "x-request-id": TestServer.requestId(), ...headers }, body)
        const framework = yield* send(ports.framework, method, path, { "x-request-id": TestServer.requestId(), ...headers }, body)
        return { lean, framework }
      })

    const same = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      Effect.gen(function*() {
        const { framework, lean } = yield* both(method, path, headers, body)
        const label = `${method} ${path} ${JSON.stringify(headers).slice(0, 120)} ${body?.slice(0, 80) ?? ""}`
        assert.deepStrictEqual(lean, framework, label)
        return lean
      })

    it.effect("the hot operations' refusals and reads: the same bytes on both paths", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const auth = { authorization: `Bearer ${m.apiKey}` }
        const json = { ...auth, "content-type": JSON_TYPE }
        const invoice = yield* Fixtures.invoice(m, 10_000)
        const foreign = yield* Fixtures.invoice(other, 10_000)
        const payment = yield* Fixtures.pay(m, invoice.id)
        const due = new Date(Date.now() + 86_400_000).toISOString()
        const valid = { shopID: m.shopID, dueDate: due, amount: 1000, currency: "RUB", product: "Goods", metadata: {} }
        const deep = JSON.stringify({ ...valid, metadata: JSON.parse("[".repeat(100) + "]".repeat(100)) })

        for (const v of ["v1", "v2"]) {
          const invoices = `/${v}/processing/invoices`
          // authentication and the envelope
          yield* same("POST", invoices, { "content-type": JSON_TYPE }, JSON.stringify(valid))
          yield* same("POST", invoices, { authorization: `Basic ${m.apiKey}`, "content-type": JSON_TYPE }, JSON.stringify(valid))
          yield* same("POST", invoices, { authorization: "Bearer nope", "content-type": JSON_TYPE }, JSON.stringify(valid))
          yield* same("POST", invoices, { ...json, "x-request-id": "x".repeat(33) }, JSON.stringify(valid))
          yield* same("POST", invoices, { ...json, "x-request-deadline": "soon" }, JSON.stringify(valid))
          yield* same("POST", invoices, { ...json, "x-request-deadline": "2000-01-01T00:00:00Z" }, JSON.stringify(valid))
          // bodies and content types
          for (
            const body of [
              "{}",
              "null",
              "[]",
              "{",
              "",
              JSON.stringify({ ...valid, amount: -1 }),
              JSON.stringify({ ...valid, amount: "1000" }),
              JSON.stringify({ ...valid, product: "a\u0000b" }),
              JSON.stringify({ ...valid, dueDate: "2099-02-30T00:00:00Z" }),
              JSON.stringify({ ...valid, shopID: "nope" }),
              deep
            ]
          ) yield* same("POST", invoices, json, body)
          yield* same("POST", invoices, { ...auth, "content-type": "text/plain" }, JSON.stringify(valid))
          yield* same("POST", invoices, { ...auth, "content-length": String(2 * 1024 * 1024) }, "x".repeat(2 * 1024 * 1024))
          for (const type of ["application/json;charset=utf-8", "APPLICATION/JSON", "application/json; charset=UTF-8"]) {
            const created = yield* both("POST", invoices, { ...auth, "content-type": type }, JSON.stringify(valid))
            assert.strictEqual(created.lean.status, 201, created.lean.text)
            assert.strictEqual(created.framework.status, 201, created.framework.text)
            assert.deepStrictEqual(Object.keys(created.lean.headers).sort(), Object.keys(created.framework.headers).sort())
            assert.deepStrictEqual(Object.keys(JSON.parse(created.lean.text)).sort(), Object.keys(JSON.parse(created.framework.text)).sort())
          }
          // reads: the same objects, the same bytes
          yield* same("GET", `${invoices}/${invoice.id}`, auth)
          yield* same("GET", `${invoices}/${foreign.id}`, auth)
          yield* same("GET", `${invoices}/nope`, auth)
          yield* same("GET", `${invoices}/${"x".repeat(41)}`, auth)
          yield* same("GET", `${invoices}/a%00b`, auth)
          yield* same("GET", `${invoices}/${invoice.id}/`, auth)
          for (const query of ["", "?limit=10", "?limit=0", "?limit=x", "?limit=1&limit=2", "?limit=10&eventID=1", "?limit=10&eventID=x", "?limit=a%00"]) {
            yield* same("GET", `${invoices}/${invoice.id}/events${query}`, auth)
          }
          yield* same("GET", `${invoices}/${invoice.id}/payments/${payment.id}`, auth)
          yield* same("GET", `${invoices}/${invoice.id}/payments/nope`, auth)
          yield* same("GET", `${invoices}/${foreign.id}/payments/${payment.id}`, auth)
          // payments, refunds, payment resources: refusals
          yield* same("POST", `${invoices}/${invoice.id}/payments`, json, "{}")
          yield* same("POST", `${invoices}/nope/payments`, json, JSON.stringify({ flow: { type: "PaymentFlowInstant" }, payer: { payerType: "PaymentResourcePayer" } }))
          yield* same("POST", `${invoices}/${invoice.id}/payments/${payment.id}/refunds`, json, JSON.stringify({ amount: "x" }))
          yield* same("POST", `${invoices}/${invoice.id}/payments/nope/refunds`, json, JSON.stringify({ amount: 100, currency: "RUB" }))
          yield* same("POST", `/${v}/processing/payment-resources`, json, "{}")
          yield* same(
            "POST",
            `/${v}/processing/payment-resources`,
            json,
            JSON.stringify({ paymentTool: { paymentToolType: "CardData", cardNumber: 4242424242424242, expDate: "12/40", cvv: 123 }, clientInfo: { fingerprint: "f" } })
          )
        }
      }))

    it.effect("a request replayed by its X-Request-ID gets the first answer, whichever path served either", () =>
      Effect.gen(function*() {
        const ports = yield* Servers
        const m = yield* Fixtures.merchant()
        const body = JSON.stringify(Fixtures.invoiceBody(m.shopID, Date.now(), { product: "Goods" }))
        const headers = { authorization: `Bearer ${m.apiKey}`, "content-type": JSON_TYPE }
        for (const [first, second] of [[ports.lean, ports.framework], [ports.framework, ports.lean]] as const) {
          const id = { ...headers, "x-request-id": TestServer.requestId() }
          const a = yield* send(first, "POST", "/v2/processing/invoices", id, body)
          const b = yield* send(second, "POST", "/v2/processing/invoices", id, body)
          assert.strictEqual(a.status, 201, a.text)
          assert.deepStrictEqual(b, a)
        }
      }))

    it.effect("the lean server's router takes the hot operations only, as read plainly", () =>
      Effect.gen(function*() {
        const { route } = yield* Servers
        const takes = (method: string, url: string) =>
          route({ method, url, headers: {} } as any, {} as any) !== undefined
        assert.isTrue(takes("POST", "/v2/processing/invoices"))
        assert.isTrue(takes("POST", "/v1/processing/invoices?x=1"))
        assert.isTrue(takes("GET", "/v2/processing/invoices/abc"))
        assert.isTrue(takes("GET", "/v2/processing/invoices/abc/events?limit=1"))
        assert.isTrue(takes("POST", "/v2/processing/invoices/abc/payments"))
        assert.isTrue(takes("GET", "/v2/processing/invoices/abc/payments/def"))
        assert.isTrue(takes("POST", "/v2/processing/invoices/abc/payments/def/refunds"))
        assert.isTrue(takes("POST", "/v2/processing/payment-resources"))
        // left to HttpApi: other operations, other methods, paths not read plainly
        assert.isFalse(takes("GET", "/v2/processing/invoices?externalID=x"))
        assert.isFalse(takes("PUT", "/v2/processing/invoices/abc"))
        assert.isFalse(takes("GET", "/v2/processing/me"))
        assert.isFalse(takes("GET", "/v2/processing/invoices/a%00b"))
        assert.isFalse(takes("GET", "/v2/processing/invoices/abc/"))
        assert.isFalse(takes("GET", "/v2/processing/invoices/a;b"))
        assert.isFalse(takes("GET", "/v3/processing/invoices/abc"))
        assert.isFalse(takes("GET", "/wallet/v0/wallets/abc"))
        assert.deepStrictEqual([...LeanRouter.operations].sort(), [
        "createInvoice",
        "createPayment",
        "createPaymentResource",
        "createRefund",
        "getInvoiceByID",
        "getInvoiceEvents",
        "getPaymentByID"
      ])
      }))
  })
}

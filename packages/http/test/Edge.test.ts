import { assert, layer } from "@effect/vitest"
import * as HttpServer from "@effect/platform/HttpServer"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as http from "node:http"

/**
 * Input refused at the edge, the same on every route and dialect: NUL characters, JSON nested
 * too deep, oversized chunked bodies, impossible date-times, card values echoed in messages,
 * malformed e-mail addresses.
 */

const JSON_TYPE = "application/json; charset=utf-8"
const CARD = "4242424242424242"

const call = TestServer.call

const invalidRequest = (response: TestServer.RawResponse, field: string, label = "") => {
  assert.strictEqual(response.status, 400, `${label} ${response.text.slice(0, 300)}`)
  assert.strictEqual(response.headers["content-type"], JSON_TYPE, label)
  assert.deepStrictEqual(Object.keys(response.json).sort(), ["code", "message"], label)
  assert.strictEqual(response.json.code, "invalidRequest", label)
  assert.include(response.json.message, field, label)
}

const notFound = (response: TestServer.RawResponse, label = "") => {
  assert.strictEqual(response.status, 404, `${label} ${response.text.slice(0, 300)}`)
  assert.strictEqual(response.headers["content-type"], JSON_TYPE, label)
  assert.deepStrictEqual(Object.keys(response.json), ["message"], label)
}

const invoiceBody = (shopID: string, overrides: Record<string, unknown> = {}) =>
  Effect.map(Clock.currentTimeMillis, (now) => Fixtures.invoiceBody(shopID, now, overrides))

/** `{a: {a: … {a: 1}}}`, `levels` objects deep. */
const nested = (levels: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

/** A search window around now, as query parameters. */
const window = () =>
  `fromTime=${new Date(Date.now() - 86_400_000).toISOString()}&toTime=${new Date(Date.now() + 86_400_000).toISOString()}`

const invoiceCount = (apiKey: string, shopID: string) =>
  Effect.map(
    call("GET", `/v2/analytics/shops/${shopID}/invoices?${window()}&limit=1000`, apiKey),
    (r) => {
      assert.strictEqual(r.status, 200, r.text)
      return r.json.result.length as number
    }
  )

/** A POST through node:http with a chunked body (no Content-Length): the answer, or "reset". */
const postChunked = (port: number, path: string, head: Record<string, string>, chunks: ReadonlyArray<string>) =>
  Effect.async<{ status: number; text: string } | "reset">((resume) => {
    const request = http.request({ host: "127.0.0.1", port, path, method: "POST", headers: head }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk) => (text += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, text })))
      response.on("error", () => resume(Effect.succeed("reset")))
    })
    request.on("error", () => resume(Effect.succeed("reset")))
    const write = (i: number): void => {
      if (i === chunks.length) {
        request.end()
        return
      }
      request.write(chunks[i], () => write(i + 1))
    }
    write(0)
  })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds", excludeTestServices: true })(`Edge [${dialect}]`, (it) => {
    it.effect("a NUL character in a body is 400 invalidRequest naming the field, and nothing is written", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const before = yield* invoiceCount(m.apiKey, m.shopID)
        for (
          const [overrides, field] of [
            [{ product: "Te\u0000a" }, "product"],
            [{ externalID: "ext\u0000" }, "externalID"],
            [{ description: "\u0000" }, "description"],
            [{ metadata: { note: "a\u0000b" } }, "metadata"],
            [{ metadata: { ["k\u0000"]: 1 } }, "metadata"],
            [{ shopID: `${m.shopID}\u0000` }, "shopID"]
          ] as const
        ) {
          invalidRequest(yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, overrides)), field, field)
        }
        // the body text carries an escaped backslash before "u0000": not a NUL, accepted
        const literal = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, { product: "\\u0000" }))
        assert.strictEqual(literal.status, 201, literal.text)
        assert.strictEqual(literal.json.invoice.product, "\\u0000")
        assert.strictEqual(yield* invoiceCount(m.apiKey, m.shopID), before + 1)
        // the operator side too
        const operator = yield* Fixtures.operatorToken
        invalidRequest(
          yield* call("POST", "/admin/v1/parties", operator, {
            email: "edge@kassa.test",
            name: "Edge\u0000",
            shops: [{ name: "Edge shop", url: "https://edge.kassa.test", categoryID: 1, currency: "RUB" }]
          }),
          "name"
        )
      }))

    it.effect("a NUL character in a query string is 400 invalidRequest naming the parameter", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        invalidRequest(yield* call("GET", "/v2/processing/invoices?externalID=a%00b", m.apiKey), "externalID")
        invalidRequest(yield* call("GET", "/v1/processing/invoices?externalID=%00", m.apiKey), "externalID")
        invalidRequest(
          yield* call(
            "GET",
            `/v2/analytics/shops/${m.shopID}/payments?${window()}&limit=10&payerFingerprint=f%00`,
            m.apiKey
          ),
          "payerFingerprint"
        )
        // a literal "%00" (its percent sign encoded) is text, and no such invoice exists
        const literal = yield* call("GET", "/v2/processing/invoices?externalID=a%2500b", m.apiKey)
        notFound(literal)
      }))

    it.effect("a NUL character in a path is 404 {message}, with or without authentication", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const path of [
            "/v2/processing/invoices/a%00b",
            "/v1/processing/invoices/%00",
            `/v2/processing/shops/${m.shopID}%00`,
            "/v2/processing/customers/c%00/bindings/b",
            "/v2/processing/countries/R%00S"
          ]
        ) {
          notFound(yield* call("GET", path, m.apiKey), path)
          notFound(yield* call("GET", path, undefined), `${path} unauthenticated`)
        }
        notFound(yield* TestServer.raw("GET", "/3ds/a%00b"), "3ds")
        notFound(yield* TestServer.raw("POST", "/3ds/a%00b", { headers: { "content-type": "application/x-www-form-urlencoded" }, body: "outcome=pass" }), "3ds post")
        // an unknown 3-D Secure challenge without NUL is still the page's own 404
        const page = yield* TestServer.raw("GET", "/3ds/unknown")
        assert.strictEqual(page.status, 404)
        assert.include(page.headers["content-type"], "text/html")
      }))

    it.effect("metadata nested beyond 32 levels is 400 invalidRequest naming it; 32 levels are kept", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const before = yield* invoiceCount(m.apiKey, m.shopID)
        for (const levels of [3000, 65, 33]) {
          const response = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, { metadata: nested(levels) }))
          invalidRequest(response, "metadata", String(levels))
        }
        // deep arrays anywhere in a body, even in a field the operation ignores
        let deepArray: unknown = []
        for (let i = 0; i < 3000; i++) deepArray = [deepArray]
        invalidRequest(
          yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, { padding: deepArray })),
          "padding"
        )
        assert.strictEqual(yield* invoiceCount(m.apiKey, m.shopID), before)
        const kept = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, { metadata: nested(32) }))
        assert.strictEqual(kept.status, 201, kept.text)
        assert.deepStrictEqual(kept.json.invoice.metadata, nested(32))
      }))

    it.effect("a chunked body over 1 MiB is answered 400 invalidRequest with a body, the connection kept", () =>
      Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const port = (server.address as HttpServer.TcpAddress).port
        const operator = yield* Fixtures.operatorToken
        const head = { authorization: `Bearer ${operator}`, "x-request-id": TestServer.requestId(), "content-type": "application/json" }
        const padded = JSON.stringify({
          email: "chunked@kassa.test",
          shops: [{ name: "Chunked shop", url: "https://chunked.kassa.test", categoryID: 1, currency: "RUB" }],
          padding: "x".repeat(2 * 1024 * 1024)
        })
        const chunks = Array.from({ length: Math.ceil(padded.length / 65536) }, (_, i) => padded.slice(i * 65536, (i + 1) * 65536))
        const response = yield* postChunked(port, "/admin/v1/parties", head, chunks)
        assert.notStrictEqual(response, "reset")
        if (response === "reset") return
        assert.include([400, 413], response.status, response.text)
        const body = JSON.parse(response.text)
        assert.strictEqual(body.code, "invalidRequest")
        assert.include(body.message, "1048576")
        // a chunked body within the limit is read as usual
        const small = JSON.stringify({
          email: "chunked-ok@kassa.test",
          shops: [{ name: "Chunked shop", url: "https://chunked.kassa.test", categoryID: 1, currency: "RUB" }]
        })
        const ok = yield* postChunked(port, "/admin/v1/parties", { ...head, "x-request-id": TestServer.requestId() }, [
          small.slice(0, 10),
          small.slice(10)
        ])
        assert.notStrictEqual(ok, "reset")
        if (ok !== "reset") assert.strictEqual(ok.status, 201, ok.text)
      }))

    it.effect("an impossible calendar date or time is 400 invalidRequest naming the field", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const dueDate of [
            "2099-02-30T00:00:00Z",
            "2099-02-29T00:00:00Z",
            "2099-04-31T00:00:00Z",
            "2099-13-01T00:00:00Z",
            "2099-00-10T00:00:00Z",
            "2099-01-00T00:00:00Z",
            "2099-01-01T25:00:00Z",
            "2099-01-01T24:00:00Z",
            "2099-01-01T10:60:00Z",
            "2099-01-01T10:00:61Z",
            "2099-01-01T10:00:00+24:00",
            "2099-01-01T10:00:00+03:60"
          ]
        ) {
          invalidRequest(yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, { dueDate })), "dueDate", dueDate)
        }
        // query parameters decode date-times too
        invalidRequest(
          yield* call("GET", `/v2/analytics/shops/${m.shopID}/invoices?fromTime=2020-02-30T00:00:00Z&toTime=2020-03-10T00:00:00Z&limit=10`, m.apiKey),
          "fromTime"
        )
        for (const dueDate of ["2096-02-29T00:00:00Z", "2099-12-31T23:59:59.999+03:00", "2099-01-01T00:00:00-11:30"]) {
          const ok = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID, { dueDate }))
          assert.strictEqual(ok.status, 201, `${dueDate} ${ok.text}`)
          assert.strictEqual(new Date(ok.json.invoice.dueDate).getTime(), new Date(dueDate).getTime())
        }
      }))

    it.effect("a card field of the wrong JSON type is refused naming the field, never echoing its value", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const card = { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: "987", cardHolder: "Ivan Petrov" }
        for (
          const [overrides, field, secret] of [
            [{ cardNumber: Number(CARD) }, "cardNumber", CARD],
            [{ cardNumber: [CARD] }, "cardNumber", CARD],
            [{ cardNumber: { n: CARD } }, "cardNumber", CARD],
            [{ cvv: 987 }, "cvv", "987"],
            [{ expDate: 1240 }, "expDate", "1240"],
            [{ cardHolder: 31337 }, "cardHolder", "31337"],
            [{ cardHolder: ["Ivan Petrov"] }, "cardHolder", "Ivan Petrov"]
          ] as const
        ) {
          const response = yield* call("POST", "/v2/processing/payment-resources", m.apiKey, {
            paymentTool: { ...card, ...overrides },
            clientInfo: { fingerprint: "device-1" }
          })
          invalidRequest(response, field, field)
          assert.notInclude(response.text, secret, field)
        }
      }))

    it.effect("ContactInfo.email must be an e-mail address, for a customer and for a payer", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (const email of ["nope", "a@", "@b.c", "a b@c.d", "a@b@c.d", "a@.b"]) {
          invalidRequest(
            yield* call("POST", "/v2/processing/customers", m.apiKey, { shopID: m.shopID, contactInfo: { email }, metadata: {} }),
            "email",
            email
          )
        }
        for (const email of ["payer@kassa.test", "first.last+tag@sub.example.com", "x@localhost"]) {
          const ok = yield* call("POST", "/v2/processing/customers", m.apiKey, { shopID: m.shopID, contactInfo: { email }, metadata: {} })
          assert.strictEqual(ok.status, 201, `${email} ${ok.text}`)
          assert.strictEqual(ok.json.customer.contactInfo.email, email)
        }
        const invoice = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* invoiceBody(m.shopID))
        assert.strictEqual(invoice.status, 201, invoice.text)
        const token = invoice.json.invoiceAccessToken.payload as string
        const resource = yield* call("POST", "/v2/processing/payment-resources", token, {
          paymentTool: { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: "123", cardHolder: "Ivan Petrov" },
          clientInfo: { fingerprint: "device-1" }
        })
        assert.strictEqual(resource.status, 201, resource.text)
        const payment = yield* call("POST", `/v2/processing/invoices/${invoice.json.invoice.id}/payments`, token, {
          flow: { type: "PaymentFlowInstant" },
          payer: {
            payerType: "PaymentResourcePayer",
            paymentToolToken: resource.json.paymentToolToken,
            paymentSession: resource.json.paymentSession,
            contactInfo: { email: "nope" }
          }
        })
        invalidRequest(payment, "email")
        const payments = yield* call("GET", `/v2/processing/invoices/${invoice.json.invoice.id}/payments`, token)
        assert.deepStrictEqual(payments.json, [])
      }))
  })
}

import { assert, describe, it } from "@effect/vitest"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Principal } from "@kassa/core"
import * as AccessLog from "../src/server/AccessLog.js"

/**
 * The JSON access line, built by hand: the same text `JSON.stringify` makes of the line as
 * `Logger.json` writes it, for every kind of request and answer.
 */

const JSON_TYPE = "application/json; charset=utf-8"

// The line as it was made before: the object `Logger.json` writes, stringified.
const expected = (entry: AccessLog.Entry, party: string | undefined, code: string | undefined, fiberId: number, millis: number) =>
  JSON.stringify({
    message: "request",
    logLevel: "INFO",
    timestamp: new Date(millis).toISOString(),
    annotations: {
      operationId: entry.operation,
      status: entry.response.status,
      durationMs: Math.round(entry.milliseconds * 10) / 10,
      requestId: entry.requestId,
      ...(party === undefined ? {} : { party }),
      ...(code === undefined ? {} : { code })
    },
    spans: {},
    fiberId: `#${fiberId}`
  }) + "\n"

const requestOf = () => ({ source: {} }) as unknown as HttpServerRequest.HttpServerRequest

describe("AccessLog.jsonLineOf", () => {
  const cases: Array<{
    readonly name: string
    readonly response: HttpServerResponse.HttpServerResponse
    readonly principal?: Principal.Principal
    readonly requestId: string
    readonly milliseconds: number
    readonly party?: string
    readonly code?: string
  }> = [
    { name: "a read", response: HttpServerResponse.unsafeJson({ id: "i" }, { contentType: JSON_TYPE }), requestId: "r-1", milliseconds: 0.04 },
    {
      name: "an API key's business error",
      response: HttpServerResponse.unsafeJson({ code: "invalidRequest", message: "no" }, { status: 400, contentType: JSON_TYPE }),
      principal: Principal.Principal.ApiKey({ partyID: "party-1", keyID: "k" }),
      requestId: "quote \" backslash \\ line \u2028 é \u0001",
      milliseconds: 12.25,
      party: "party-1",
      code: "invalidRequest"
    },
    {
      name: "the operator's not found",
      response: HttpServerResponse.unsafeJson({ message: "Invoice not found: x" }, { status: 404, contentType: JSON_TYPE }),
      principal: Principal.Principal.Operator({ keyID: "op" }),
      requestId: "",
      milliseconds: 1234.5678,
      party: "operator"
    },
    {
      name: "a 409 with a code and an access token",
      response: HttpServerResponse.unsafeJson({ code: "externalIDConflict", message: "m", id: "x" }, { status: 409, contentType: JSON_TYPE }),
      principal: Principal.Principal.AccessToken({ partyID: "party-2", resource: "invoice", resourceID: "i" }),
      requestId: "r-3",
      milliseconds: 3,
      party: "party-2",
      code: "externalIDConflict"
    },
    {
      name: "a business error answered as text",
      response: HttpServerResponse.raw(`{"code":"invalidDeadline","message":"m"}`, { status: 400, contentType: JSON_TYPE }),
      requestId: "r-6",
      milliseconds: 2,
      code: "invalidDeadline"
    },
    { name: "a 500", response: HttpServerResponse.unsafeJson({ code: "x", message: "m" }, { status: 500, contentType: JSON_TYPE }), requestId: "r-4", milliseconds: 0 },
    { name: "an empty 204", response: HttpServerResponse.empty({ status: 204 }), requestId: "r-5", milliseconds: 0.05 }
  ]
  for (const c of cases) {
    it(`writes ${c.name}'s line as Logger.json does`, () => {
      const request = requestOf()
      if (c.principal !== undefined) AccessLog.noteCaller(request, c.principal)
      const entry: AccessLog.Entry = { request, response: c.response, operation: "getInvoiceByID", requestId: c.requestId, milliseconds: c.milliseconds }
      for (const millis of [Date.UTC(2026, 10, 29, 10, 0, 0, 7), Date.UTC(2026, 10, 29, 10, 0, 0, 7), Date.UTC(2026, 10, 29, 10, 0, 1, 0)]) {
        const line = AccessLog.jsonLineOf(entry, 42, millis)
        assert.strictEqual(line, expected(entry, c.party, c.code, 42, millis))
      }
    })
  }

  it("names the caller of the request it was noted for only", () => {
    const noted = requestOf()
    AccessLog.noteCaller(noted, Principal.Principal.ApiKey({ partyID: "party-9", keyID: "k" }))
    const response = HttpServerResponse.unsafeJson({}, { contentType: JSON_TYPE })
    const entry = (request: HttpServerRequest.HttpServerRequest): AccessLog.Entry => ({ request, response, operation: "o", requestId: "r", milliseconds: 1 })
    assert.include(AccessLog.jsonLineOf(entry(noted), 1, 0), `"party":"party-9"`)
    assert.notInclude(AccessLog.jsonLineOf(entry(requestOf()), 1, 0), `"party"`)
  })
})

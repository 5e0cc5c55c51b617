import { assert, describe, it } from "@effect/vitest"
import * as HttpApi from "@effect/platform/HttpApi"
import { KassaApi } from "@kassa/http/api/KassaApi"
import { resolver } from "@kassa/http/server/Operations"
import { vi } from "vitest"

/** The operation a request is named by in metrics and logs, from the contract's routes. */

describe("operation names", () => {
  const operationOf = resolver(KassaApi)

  it("names every route of the contract by its endpoint, a parameter taking any one segment", () => {
    // (two endpoints may share a method and a path: the contract's first is the one named)
    const first = new Map<string, string>()
    HttpApi.reflect(KassaApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        const path = endpoint.path.split("/").map((s) => (s.startsWith(":") ? "x-1.2" : s)).join("/")
        if (!first.has(`${endpoint.method} ${path}`)) first.set(`${endpoint.method} ${path}`, endpoint.name)
      }
    })
    for (const [route, name] of first) {
      const [method, path] = route.split(" ")
      assert.strictEqual(operationOf(method!, path!), name, route)
    }
    const routes = first.size
    assert.isAbove(routes, 50)
    assert.strictEqual(operationOf("GET", "/v2/processing/invoices/inv-1"), "getInvoiceByID")
    assert.strictEqual(operationOf("POST", "/v2/processing/invoices"), "createInvoice")
  })

  it("answers the plain routes by what they serve and anything else notFound", () => {
    assert.strictEqual(operationOf("GET", "/health"), "health")
    assert.strictEqual(operationOf("GET", "/health/ready"), "health")
    assert.strictEqual(operationOf("GET", "/metrics"), "metrics")
    assert.strictEqual(operationOf("GET", "/docs/x"), "docs")
    assert.strictEqual(operationOf("GET", "/openapi.json"), "docs")
    assert.strictEqual(operationOf("GET", "/3ds/abc"), "3ds")
    assert.strictEqual(operationOf("GET", "/downloads/f"), "download")
    // an empty parameter, an extra segment, another method: not the route
    assert.strictEqual(operationOf("GET", "/v2/processing/invoices/"), "notFound")
    assert.strictEqual(operationOf("GET", "/v2/processing/invoices/inv-1/x/y/z"), "notFound")
    assert.strictEqual(operationOf("DELETE", "/v2/processing/invoices"), "notFound")
    assert.strictEqual(operationOf("GET", "/v2/processing/invoices.json"), "notFound")
  })

  it("runs no regular expression to name a request (each would be compiled on a start's first requests)", () => {
    const test = vi.spyOn(RegExp.prototype, "test")
    const exec = vi.spyOn(RegExp.prototype, "exec")
    try {
      operationOf("GET", "/health")
      operationOf("GET", "/v2/processing/invoices/inv-1")
      assert.strictEqual(test.mock.calls.length + exec.mock.calls.length, 0)
    } finally {
      test.mockRestore()
      exec.mockRestore()
    }
  })
})

import { assert, describe, it } from "@effect/vitest"
import * as HttpApi from "@effect/platform/HttpApi"
import { KassaApi } from "@kassa/http/api/KassaApi"
import * as LeanRouter from "@kassa/http/server/lean/Router"

describe("the lean router's paths", () => {
  it("are the hot operations' endpoints of the contract, read when the module loads", () => {
    const reflected = new Map<string, unknown>()
    HttpApi.reflect(KassaApi as any, { onGroup: () => {}, onEndpoint: ({ endpoint }) => void reflected.set(endpoint.name, endpoint) })
    assert.deepStrictEqual(LeanRouter.paths.map((path) => path.name), [...LeanRouter.operations])
    for (const path of LeanRouter.paths) {
      assert.strictEqual(path.endpoint, reflected.get(path.name), path.name)
      assert.strictEqual(path.endpoint.name, path.name)
    }
  })

  it("read a path's parameters under /v1 and /v2 alike", () => {
    const payment = LeanRouter.paths.find((path) => path.name === "getPaymentByID")!
    assert.deepStrictEqual(payment.params, ["invoiceID", "paymentID"])
    for (const version of ["v1", "v2"]) {
      assert.deepStrictEqual(payment.pattern.exec(`/${version}/processing/invoices/i1/payments/p1`)?.slice(1), ["i1", "p1"])
    }
    assert.isNull(payment.pattern.exec("/v3/processing/invoices/i1/payments/p1"))
    assert.isNull(payment.pattern.exec("/v2/processing/invoices/i1/payments/p1/"))
  })
})

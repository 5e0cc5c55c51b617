import { assert, describe, it } from "@effect/vitest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Errors } from "@kassa/core"
import { answer } from "@kassa/http/server/wallet/WalletWire"

const wire = (response: HttpServerResponse.HttpServerResponse | undefined) => {
  assert.isDefined(response)
  const body = response!.body
  return {
    status: response!.status,
    json: body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(body.body)) : undefined,
    contentType: body._tag === "Uint8Array" ? body.contentType : undefined
  }
}

describe("the wallet interfaces' error table", () => {
  it("maps each of core's errors to its status and body, with no _tag", () => {
    assert.deepStrictEqual(wire(answer(Errors.InvalidParameter.of("InvalidResourceToken", "resource", "Specified resource token is invalid"))), {
      status: 400,
      json: { errorType: "InvalidResourceToken", name: "resource", description: "Specified resource token is invalid" },
      contentType: "application/json; charset=utf-8"
    })
    assert.deepStrictEqual(wire(answer(new Errors.InvalidOperation({ message: "No such wallet" }))), {
      status: 422,
      json: { message: "No such wallet" },
      contentType: "application/json; charset=utf-8"
    })
    assert.deepStrictEqual(
      wire(answer(new Errors.ExternalIdConflict({ externalID: "x", id: "w-1", message: "This 'externalID' has been used by another request" }))),
      {
        status: 409,
        json: { externalID: "x", id: "w-1", message: "This 'externalID' has been used by another request" },
        contentType: "application/json; charset=utf-8"
      }
    )
    assert.deepStrictEqual(wire(answer(new Errors.Conflict({ id: "c-1", message: "A challenge is pending" }))), {
      status: 409,
      json: { id: "c-1", message: "A challenge is pending" },
      contentType: "application/json; charset=utf-8"
    })
    assert.deepStrictEqual(wire(answer(new Errors.InvalidBankCard({ message: "Unsupported card" }))).json, {
      message: "Unsupported card"
    })
    assert.deepStrictEqual(wire(answer(new Errors.LimitExceeded({ message: "Too many webhooks" }))).status, 422)
    assert.deepStrictEqual(wire(answer(Errors.BusinessError.of("invalidPartyStatus", "Party inaccessible"))), {
      status: 422,
      json: { message: "Party inaccessible" },
      contentType: "application/json; charset=utf-8"
    })
    assert.strictEqual(wire(answer(Errors.invalidRequest("amount: bad"))).json.errorType, "SchemaViolated")
    const notFound = answer(Errors.NotFound.of("Wallet", "w-1"))!
    assert.strictEqual(notFound.status, 404)
    assert.strictEqual(notFound.body._tag, "Empty")
    const unauthorized = answer(new Errors.Unauthorized({ message: "no" }))!
    assert.strictEqual(unauthorized.status, 401)
    assert.strictEqual(unauthorized.body._tag, "Empty")
  })

  it("leaves anything else (a defect) to the general rules", () => {
    assert.isUndefined(answer(new Error("boom")))
    assert.isUndefined(answer({ _tag: "RouteNotFound" }))
    assert.isUndefined(answer("text"))
  })
})

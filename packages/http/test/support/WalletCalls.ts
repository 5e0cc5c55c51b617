/**
 * What the wallet interface's HTTP tests share: the operator's wallet routes and the wire's
 * answers to assert (422 `{message}`, a creation with its `Location`).
 */
import { assert } from "@effect/vitest"
import { Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

export const JSON_TYPE = "application/json; charset=utf-8"

/** A call to the operator's wallet routes under `/admin/v1/wallet`. */
export const operator = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) =>
  Effect.flatMap(Fixtures.operatorToken, (token) => TestServer.call(method, `/admin/v1/wallet${path}`, token, body))

/** The 422 `{message}` answer. */
export const refused = (response: TestServer.RawResponse, message: string) => {
  assert.strictEqual(response.status, 422, `${message}: ${response.text}`)
  assert.deepStrictEqual(response.json, { message })
  assert.strictEqual(response.headers["content-type"], JSON_TYPE)
}

/** A creation answered `status` with `Location: base/id`; its body. */
export const created = (response: TestServer.RawResponse, status: number, base: string) => {
  assert.strictEqual(response.status, status, response.text)
  assert.strictEqual(response.headers.location, `${base}/${response.json.id}`)
  return response.json
}

/** `ms` after the clock's now, as the wire writes a date-time. */
export const future = (ms: number) => Effect.map(Clock.currentTimeMillis, (now) => new Date(now + ms).toISOString())

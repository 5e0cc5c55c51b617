import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { IncomingMessage } from "node:http"
import { Socket } from "node:net"
import * as LeanRequest from "../src/server/lean/Request.js"
import * as RequestBody from "../src/server/RequestBody.js"

/** A Node request whose body comes as the test pushes it. */
const incoming = () => {
  const message = new IncomingMessage(new Socket())
  message.method = "POST"
  message.url = "/v2/processing/invoices"
  message.headers = { "content-type": "application/json", "content-length": "100" }
  return message
}

const listeners = (message: IncomingMessage) =>
  message.listenerCount("data") + message.listenerCount("end") + message.listenerCount("error")

// Node's own events run: the body's chunks, its end, an aborted request's error.
const events = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

describe("RequestBody", () => {
  it.effect("a body read whole: its bytes, and no listener left on the request", () =>
    Effect.gen(function*() {
      const message = incoming()
      const fiber = yield* Effect.fork(RequestBody.read(LeanRequest.make(message, message.url!, "POST"), 1024))
      yield* events
      message.push("{\"a\":")
      message.push("1}")
      message.push(null)
      const bytes = yield* Fiber.join(fiber)
      assert.strictEqual(bytes === "tooLarge" ? bytes : RequestBody.textOf(bytes), "{\"a\":1}")
      assert.strictEqual(listeners(message), 0)
    }))

  it.effect("a body read whose request is aborted (its fiber interrupted, then the request's error): no listener left", () =>
    Effect.gen(function*() {
      const message = incoming()
      const fiber = yield* Effect.fork(RequestBody.read(LeanRequest.make(message, message.url!, "POST"), 1024))
      yield* events
      message.push("{\"a\":")
      yield* events
      assert.strictEqual(listeners(message), 3)
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      // as Node ends a request whose connection closed before its body did
      message.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" }))
      yield* events
      assert.strictEqual(listeners(message), 0)
    }))
})

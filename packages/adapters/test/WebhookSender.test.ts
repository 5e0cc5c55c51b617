import { assert, describe, it } from "@effect/vitest"
import * as Sender from "@kassa/adapters/webhooks/Sender"
import * as Receiver from "@kassa/testing/WebhookReceiver"
import * as Effect from "effect/Effect"
import { vi } from "vitest"

/**
 * The sender builds each keep-alive agent when a notification first needs it: a sender that
 * only ever posts over plain HTTP never builds the `https` one (which loads `https` and `tls`).
 */

const built = vi.hoisted(() => ({ https: 0 }))

vi.mock("node:https", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:https")>()
  class Agent extends real.Agent {
    constructor(...args: ConstructorParameters<typeof real.Agent>) {
      super(...args)
      built.https++
    }
  }
  return { ...real, default: { ...real, Agent }, Agent }
})

describe("the webhook sender", () => {
  it.scoped("builds its https agent on the first notification sent over https, once", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const sender = yield* Sender.make({ timeoutMs: 2_000, allowPrivateNetworks: true, maxSockets: 4 })
      const body = Buffer.from("{}")
      assert.strictEqual(built.https, 0)
      const plain = yield* sender.post(receiver.url, body, "digest")
      assert.strictEqual(plain.statusCode, 200)
      assert.strictEqual(built.https, 0)
      // nothing listens there over TLS: the answer is an error, after the agent was built
      const secure = yield* sender.post(receiver.url.replace("http:", "https:"), body, "digest")
      assert.isDefined(secure.error)
      yield* sender.post(receiver.url.replace("http:", "https:"), body, "digest")
      assert.strictEqual(built.https, 1)
    }))
})

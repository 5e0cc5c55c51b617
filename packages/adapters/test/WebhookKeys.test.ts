import { assert, layer } from "@effect/vitest"
import * as WebhookDispatcher from "@kassa/adapters/WebhookDispatcher"
import { verifyNotification } from "@kassa/adapters/WebhookSignature"
import { WebhookKeys } from "@kassa/core/ports/WebhookKeys"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"

const header = (digest: string) => `alg=RS256; digest=${digest}`

layer(WebhookDispatcher.keysLayerWithKey(randomBytes(32)))("WebhookKeys", (it) => {
  it.effect("one body signed at once for several webhooks, another body, another key: each signature is its own body's under its own key", () =>
    Effect.gen(function*() {
      const keys = yield* WebhookKeys
      const [a, b] = yield* Effect.all([keys.generate, keys.generate])
      const body = Buffer.from(JSON.stringify({ eventID: 1, eventType: "InvoiceCreated" }))
      const other = Buffer.from(JSON.stringify({ eventID: 2, eventType: "InvoiceCreated" }))
      const same = yield* Effect.all([keys.sign(a.privateKeyRef, body), keys.sign(a.privateKeyRef, body)], { concurrency: "unbounded" })
      const later = yield* keys.sign(a.privateKeyRef, body)
      assert.strictEqual(same[0], same[1])
      assert.strictEqual(later, same[0])
      assert.isTrue(verifyNotification(body, header(later), a.publicKeyPem))

      const ofOther = yield* keys.sign(a.privateKeyRef, other)
      assert.isTrue(verifyNotification(other, header(ofOther), a.publicKeyPem))
      assert.isFalse(verifyNotification(body, header(ofOther), a.publicKeyPem))

      const underB = yield* keys.sign(b.privateKeyRef, body)
      assert.isTrue(verifyNotification(body, header(underB), b.publicKeyPem))
      assert.isFalse(verifyNotification(body, header(underB), a.publicKeyPem))
    }))
})

/**
 * The key pairs that sign notifications: RSA-2048, one current pair per party (see
 * `WebhookKey`). The private half leaves the adapter only sealed (`privateKeyRef`), to be stored
 * as the party's key.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @since 0.1.0 @category models */
export interface GeneratedKey {
  /** The SubjectPublicKeyInfo as a PEM block: 64-character lines, no trailing newline. */
  readonly publicKeyPem: string
  /** The private key, sealed: only this adapter can use it. */
  readonly privateKeyRef: string
}

/** @since 0.1.0 @category tags */
export class WebhookKeys extends Context.Tag("kassa/WebhookKeys")<WebhookKeys, {
  readonly generate: Effect.Effect<GeneratedKey>
  /**
   * RSASSA-PKCS1-v1_5 with SHA-256 of `body` under the sealed private key, as URL-safe base64
   * with padding.
   */
  readonly sign: (privateKeyRef: string, body: Uint8Array) => Effect.Effect<string>
}>() {}

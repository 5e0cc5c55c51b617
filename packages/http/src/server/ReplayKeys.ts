/**
 * What a request's answer is stored under, and sealed with, for `X-Request-ID` replay: both are
 * derived from the whole request (its id, `Authorization`, method, path and body), so the store
 * holds neither a caller's token nor an answer's secrets (access tokens, API keys) in clear. Only
 * the same request again can find the answer and open it.
 *
 * @since 0.1.0
 */
import { RandomIds } from "@kassa/adapters"
import { createCipheriv, createDecipheriv, hash } from "node:crypto"

/** @since 0.1.0 @category models */
export interface ReplayKeys {
  /** The store's key. */
  readonly id: string
  /** The AES-256-GCM key of the stored answer's body. */
  readonly seal: Buffer
}

const IV_BYTES = 12
const TAG_BYTES = 16

/** @since 0.1.0 */
export const derive = (parts: {
  readonly requestId: string
  readonly authorization: string
  readonly method: string
  readonly url: string
  readonly body: string
}): ReplayKeys => {
  // one-shot hashes of the UTF-8 text: the keys of `createHash` over the same bytes, at half the cost
  const material = JSON.stringify([parts.requestId, parts.authorization, parts.method, parts.url, parts.body])
  return {
    id: hash("sha256", "id\0" + material, "base64url"),
    seal: hash("sha256", "seal\0" + material, "buffer")
  }
}

/** `text` (UTF-8, or its bytes) sealed: IV, ciphertext and tag, in base64. @since 0.1.0 */
export const seal = (keys: ReplayKeys, text: string | Uint8Array): string => {
  const iv = RandomIds.bytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", keys.seal, iv)
  const sealed = Buffer.concat([iv, typeof text === "string" ? cipher.update(text, "utf8") : cipher.update(text), cipher.final(), cipher.getAuthTag()])
  return sealed.toString("base64")
}

/** What `seal` sealed (it throws on anything else). @since 0.1.0 */
export const open = (keys: ReplayKeys, sealed: string): string => {
  const bytes = Buffer.from(sealed, "base64")
  const decipher = createDecipheriv("aes-256-gcm", keys.seal, bytes.subarray(0, IV_BYTES))
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8")
}

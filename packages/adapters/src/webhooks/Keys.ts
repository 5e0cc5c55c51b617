/**
 * `WebhookKeys` with node:crypto: the parties' key pairs, RSA-2048, the public half as a PEM SPKI
 * block, the private half sealed with AES-256-GCM under a key derived from the master key (the
 * card vault's, unless given). Signatures are RSASSA-PKCS1-v1_5 / SHA-256 in URL-safe base64
 * with padding.
 *
 * @since 0.1.0
 */
import { type GeneratedKey, WebhookKeys } from "@kassa/core/ports/WebhookKeys"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  generateKeyPair,
  hkdfSync,
  type KeyObject,
  randomBytes,
  sign as rsaSign
} from "node:crypto"
import { loadMasterKey } from "../SqlCardVault.js"

const IV_BYTES = 12
const TAG_BYTES = 16
const AAD = Buffer.from("kassa-webhook/private-key", "utf8")
const PREFIX = "wk1."
/** Signatures kept for the webhooks of one party that an event goes to. */
const RECENT_SIGNATURES = 4_096

/** @since 0.1.0 `-----BEGIN PUBLIC KEY-----\n` + base64 in 64-character lines + `\n-----END PUBLIC KEY-----`. */
export const pemOfSpki = (der: Uint8Array): string => {
  const b64 = Buffer.from(der).toString("base64")
  const lines = b64.match(/.{1,64}/g) ?? []
  return `-----BEGIN PUBLIC KEY-----\n${lines.join("\n")}\n-----END PUBLIC KEY-----`
}

/** @since 0.1.0 URL-safe base64 keeping the `=` padding (as Java's URL encoder writes it). */
export const base64UrlPadded = (bytes: Uint8Array): string =>
  Buffer.from(bytes).toString("base64").replace(/\+/g, "-").replace(/\//g, "_")

/** The keys sealed under `masterKey` (32 bytes). @since 0.1.0 */
export const makeKeys = (masterKey: Buffer) => {
  if (masterKey.length !== 32) throw new Error("the webhook keys' master key must be 32 bytes")
  const sealKey = Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), "kassa-webhook-keys", 32))
  const seal = (plaintext: Buffer): string => {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv("aes-256-gcm", sealKey, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(AAD)
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")
  }
  const open = (ref: string): Buffer => {
    try {
      if (!ref.startsWith(PREFIX)) throw new Error("format")
      const bytes = Buffer.from(ref.slice(PREFIX.length), "base64")
      const decipher = createDecipheriv("aes-256-gcm", sealKey, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
      decipher.setAAD(AAD)
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
    } catch {
      // Never the key material, only what went wrong.
      throw new Error("webhook keys: cannot open a private key (wrong master key or altered record)")
    }
  }
  // Opened keys by reference, each with a short name for the signatures' memo: a reference never
  // changes once written.
  const opened = new Map<string, { readonly key: KeyObject; readonly name: number }>()
  let names = 0
  const keyOf = (ref: string) => {
    let key = opened.get(ref)
    if (key === undefined) {
      key = { key: createPrivateKey({ key: open(ref), format: "der", type: "pkcs8" }), name: names++ }
      if (opened.size > 10_000) opened.clear()
      opened.set(ref, key)
    }
    return key
  }

  const generate: Effect.Effect<GeneratedKey> = Effect.async<GeneratedKey>((resume) => {
    generateKeyPair("rsa", { modulusLength: 2048, publicExponent: 0x10001 }, (error, publicKey, privateKey) => {
      if (error) return resume(Effect.die(error))
      const spki = publicKey.export({ type: "spki", format: "der" })
      const pkcs8 = privateKey.export({ type: "pkcs8", format: "der" })
      resume(Effect.succeed({ publicKeyPem: pemOfSpki(spki), privateKeyRef: seal(pkcs8) }))
    })
  })

  // An RSA-2048 signature costs about half a millisecond: it is made on libuv's thread pool, off
  // the event loop that serves requests. RSASSA-PKCS1-v1_5 is deterministic, so an event sent to
  // several webhooks of one party (the same body under the same key) is signed once: the latest
  // signatures are kept by key and body digest, those still being made too.
  const recent = new Map<string, Promise<string>>()
  const sign = (privateKeyRef: string, body: Uint8Array): Effect.Effect<string> =>
    Effect.promise(() => {
      const { key, name } = keyOf(privateKeyRef)
      const memo = `${name}:${createHash("sha256").update(body).digest("base64")}`
      let signature = recent.get(memo)
      if (signature === undefined) {
        signature = new Promise<string>((resolve, reject) =>
          rsaSign("sha256", body, key, (error, bytes) => (error === null ? resolve(base64UrlPadded(bytes)) : reject(error)))
        )
        if (recent.size >= RECENT_SIGNATURES) recent.delete(recent.keys().next().value!)
        recent.set(memo, signature)
        signature.catch(() => recent.delete(memo))
      }
      return signature
    })

  return { generate, sign }
}

/** Key pairs sealed under a given 32-byte master key (tests, embedding). @since 0.1.0 @category layers */
export const layerWithKey = (masterKey: Buffer): Layer.Layer<WebhookKeys> => Layer.sync(WebhookKeys, () => makeKeys(masterKey))

/**
 * Key pairs sealed under the card vault's master key (`KASSA_VAULT_KEY`, else the data dir's),
 * with a key of their own derived from it.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: { readonly dataDir: string; readonly masterKey?: string | undefined }): Layer.Layer<WebhookKeys> =>
  Layer.unwrapEffect(Effect.sync(() => layerWithKey(loadMasterKey(options))))

/**
 * For receivers of Kassa's webhook notifications in Node: checks the `Content-Signature` header
 * (`alg=RS256; digest=<URL-safe base64>`) against the raw request body and the webhook's
 * `publicKey`.
 *
 * ```ts
 * import { verifyNotification } from "@kassa/adapters/WebhookSignature"
 * if (!verifyNotification(rawBody, req.headers["content-signature"], webhook.publicKey)) reply(400)
 * ```
 *
 * @since 0.1.0
 */
import { verify } from "node:crypto"

const HEADER = /alg=([^;]+);\s*digest=(\S+)/

/**
 * Whether `header` carries a valid RS256 (RSASSA-PKCS1-v1_5, SHA-256) signature of `body` — the
 * exact bytes received, not a re-serialisation — under `publicKeyPem`. The digest may be written
 * with or without `=` padding. Never throws: anything malformed is false.
 *
 * @since 0.1.0
 */
export const verifyNotification = (
  body: string | Uint8Array,
  header: string | ReadonlyArray<string> | null | undefined,
  publicKeyPem: string
): boolean => {
  const value = Array.isArray(header) ? header[0] : header
  if (typeof value !== "string") return false
  const match = HEADER.exec(value)
  if (match === null || match[1]!.trim() !== "RS256") return false
  try {
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body)
    return verify("sha256", bytes, publicKeyPem, Buffer.from(match[2]!, "base64url"))
  } catch {
    return false
  }
}

/**
 * Continuation tokens: opaque, tamper-proof positions in a search's order.
 *
 * A token is `<position>.<code>`: the position is the creation time and ids of the last row
 * returned (base64url JSON); the code authenticates the position together with the search's
 * kind and conditions (party, shop, window and every filter; not `limit`), so a token is only
 * good for the search that issued it: altered, forged, or replayed with other conditions, it is
 * refused.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type { Keyset } from "../ports/SearchRepository.js"

/** The signing primitives (the `SearchTokens` port). @since 0.1.0 @category models */
export interface Signer {
  readonly sign: (data: string) => string
  readonly verify: (data: string, code: string) => boolean
}

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder("utf-8", { fatal: true })
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** base64url without padding. @since 0.1.0 */
export const base64url = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0)
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]!
    if (i + 1 < bytes.length) out += alphabet[(n >> 6) & 63]!
    if (i + 2 < bytes.length) out += alphabet[n & 63]!
  }
  return out
}

/** Decodes base64url without padding; `undefined` for anything else. @since 0.1.0 */
export const fromBase64url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined
  const bytes: Array<number> = []
  let buffer = 0
  let bits = 0
  for (const c of text) {
    buffer = (buffer << 6) | alphabet.indexOf(c)
    bits += 6
    if (bits >= 8) {
      bits -= 8
      bytes.push((buffer >> bits) & 255)
    }
  }
  return new Uint8Array(bytes)
}

/**
 * A stable text of a search's conditions: keys sorted, absent values left out.
 *
 * @since 0.1.0
 */
export const canonical = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
}

const message = (kind: string, conditions: string, position: string) => `kassa/search/v1\n${kind}\n${conditions}\n${position}`

/** @since 0.1.0 */
export const encode = (signer: Signer, kind: string, conditions: string, keyset: Keyset): string => {
  const position = base64url(utf8.encode(JSON.stringify([keyset.createdAt, ...keyset.ids])))
  return `${position}.${signer.sign(message(kind, conditions, position))}`
}

/**
 * The position of a token issued by this search, or why it is refused.
 *
 * @since 0.1.0
 */
export const decode = (
  signer: Signer,
  kind: string,
  conditions: string,
  idCount: number,
  token: string
): Either.Either<Keyset, string> => {
  const dot = token.indexOf(".")
  if (dot <= 0) return Either.left("malformed")
  const position = token.slice(0, dot)
  if (!signer.verify(message(kind, conditions, position), token.slice(dot + 1))) {
    return Either.left("not issued for these search conditions")
  }
  const bytes = fromBase64url(position)
  let parsed: unknown
  try {
    parsed = bytes === undefined ? undefined : JSON.parse(fromUtf8.decode(bytes))
  } catch {
    parsed = undefined
  }
  if (
    !Array.isArray(parsed) || parsed.length !== idCount + 1 || !Number.isSafeInteger(parsed[0]) ||
    !parsed.slice(1).every((id) => typeof id === "string")
  ) {
    return Either.left("malformed")
  }
  return Either.right({ createdAt: parsed[0] as number, ids: parsed.slice(1) as Array<string> })
}

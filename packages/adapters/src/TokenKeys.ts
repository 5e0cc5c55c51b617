/**
 * `Jwt`: JWTs signed with keys Kassa keeps.
 *
 * Keys come from `KASSA_SIGNING_KEY` (one or more PEM private keys; the first signs, all verify)
 * or from `<dataDir>/keys/*.pem`, generated on first start; the newest file signs and every file
 * verifies, so a rotation is a new file.
 *
 * API keys and operator tokens are ES256. Access tokens, one per invoice created, are HS256 under a
 * secret derived from the same private key (HKDF-SHA256): only Kassa verifies them, and an ECDSA
 * signature cost a createInvoice about a tenth of its time. Verification pins the algorithm to
 * the token's kind (HS256 for access tokens, ES256 for every other kind; `none`, and HS256 made
 * with the public key, are refused), needs a known `kid`, checks the signature, and checks `exp`
 * against Effect's clock.
 *
 * @since 0.1.0
 */
import { Errors, Now } from "@kassa/core"
import { Jwt, type TokenClaims, type VerifiedClaims } from "@kassa/core/ports/Jwt"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  sign,
  timingSafeEqual,
  verify
} from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/** @since 0.1.0 @category models */
export interface SigningKey {
  readonly kid: string
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  /** The access tokens' HMAC secret, derived from the private key. */
  readonly macKey: KeyObject
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url")

/** The key id: a thumbprint of the public key. @since 0.1.0 */
export const fromPem = (pem: string): SigningKey => {
  const privateKey = createPrivateKey(pem)
  if (privateKey.asymmetricKeyType !== "ec" || privateKey.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error("A signing key must be an EC P-256 private key")
  }
  const publicKey = createPublicKey(privateKey)
  const spki = publicKey.export({ format: "der", type: "spki" })
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" })
  const macKey = createSecretKey(Buffer.from(hkdfSync("sha256", pkcs8, "", "kassa access tokens HS256", 32)))
  return { kid: b64url(createHash("sha256").update(spki).digest()).slice(0, 16), privateKey, publicKey, macKey }
}

/** @since 0.1.0 */
export const generatePem = (): string =>
  generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }).toString()

const splitPems = (text: string): Array<string> =>
  text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/g) ?? []

/**
 * The keys of a `KASSA_SIGNING_KEY` value: one or more PEM EC P-256 private keys, the first signing.
 * Throws when there is none, or one is not such a key (the message never holds the key).
 *
 * @since 0.1.0
 */
export const fromPems = (text: string): Array<SigningKey> => {
  const pems = splitPems(text)
  if (pems.length === 0) throw new Error("Expected one or more PEM EC P-256 private keys but found none")
  return pems.map((pem) => {
    try {
      return fromPem(pem)
    } catch (error) {
      throw new Error(`Expected one or more PEM EC P-256 private keys but found ${
          error instanceof Error && error.message.startsWith("A signing key") ? "a key of another type" : "an unreadable PEM block"
        }`)
    }
  })
}

const named = <A>(source: string, f: () => A): A => {
  try {
    return f()
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`)
  }
}

/**
 * Reads the keys of a data dir, generating the first one. Files are named by creation time so
 * the newest sorts last.
 *
 * @since 0.1.0
 */
export const loadDataDirKeys = (dataDir: string): Array<SigningKey> => {
  const dir = path.join(dataDir, "keys")
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  let files = fs.readdirSync(dir).filter((f) => f.endsWith(".pem")).sort()
  if (files.length === 0) {
    rotate(dataDir)
    files = fs.readdirSync(dir).filter((f) => f.endsWith(".pem")).sort()
  }
  return files.reverse().map((f) => fromPem(fs.readFileSync(path.join(dir, f), "utf8")))
}

/** Adds a new signing key to a data dir; older keys keep verifying. @since 0.1.0 */
export const rotate = (dataDir: string): string => {
  const dir = path.join(dataDir, "keys")
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const pem = generatePem()
  for (let t = Date.now();; t++) {
    const file = path.join(dir, `${t.toString().padStart(15, "0")}.pem`)
    try {
      fs.writeFileSync(file, pem, { mode: 0o600, flag: "wx" })
      return file
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
}

const KINDS = new Set(["api-key", "operator", "access", "wallet-grant", "destination-grant", "withdrawal-quote", "file-download"])
const RESOURCES = new Set(["invoice", "invoiceTemplate", "customer"])

const parseJson = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isCash = (u: unknown): boolean => isRecord(u) && typeof u.amount === "number" && typeof u.currency === "string"

const VERIFIED_CACHE_SIZE = 10_000

/**
 * The service over a key ring: `keys[0]` signs, every key verifies.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (keys: ReadonlyArray<SigningKey>): Jwt["Type"] => {
  if (keys.length === 0) throw new Error("no signing keys")
  const signer = keys[0]!
  const es256Header = b64url(JSON.stringify({ alg: "ES256", typ: "JWT", kid: signer.kid }))
  const hs256Header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: signer.kid }))
  const byKid = new Map(keys.map((k) => [k.kid, k]))
  const unauthorized = (message: string) => Effect.fail(new Errors.Unauthorized({ message }))
  // Tokens whose signature and claims were checked, by their text: the key ring does not change
  // while it lives, so only the expiry is looked at again (ECDSA verification is the costly part).
  const verified = new Map<string, Record<string, unknown>>()

  /** The claims of a well-formed token signed by a key of the ring, or why not. */
  const check = (token: string): Record<string, unknown> | string => {
    const parts = token.split(".")
    if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return "Malformed token"
    const [h, p, s] = parts as [string, string, string]
    const header = parseJson(h)
    if (!isRecord(header) || (header.alg !== "ES256" && header.alg !== "HS256")) return "Unsupported token algorithm"
    const key = typeof header.kid === "string" ? byKid.get(header.kid) : undefined
    if (key === undefined) return "Unknown signing key"
    const signature = Buffer.from(s, "base64url")
    const signed = Buffer.from(`${h}.${p}`)
    if (
      header.alg === "HS256"
        ? signature.length !== 32 || !timingSafeEqual(createHmac("sha256", key.macKey).update(signed).digest(), signature)
        : signature.length !== 64 || !verify("sha256", signed, { key: key.publicKey, dsaEncoding: "ieee-p1363" }, signature)
    ) return "Bad token signature"
    const claims = parseJson(p)
    if (
      !isRecord(claims) || typeof claims.kind !== "string" || !KINDS.has(claims.kind) ||
      typeof claims.sub !== "string" || typeof claims.jti !== "string" || typeof claims.iat !== "number"
    ) return "Malformed token claims"
    if (header.alg !== (claims.kind === "access" ? "HS256" : "ES256")) return "Unsupported token algorithm"
    if (claims.exp !== undefined && typeof claims.exp !== "number") return "Malformed token expiry"
    if (
      claims.kind === "access" &&
      (typeof claims.resource !== "string" || !RESOURCES.has(claims.resource) || typeof claims.resourceID !== "string" ||
        typeof claims.exp !== "number")
    ) return "Malformed access token"
    if (
      claims.kind === "wallet-grant" &&
      (typeof claims.walletID !== "string" || typeof claims.amount !== "number" || typeof claims.currency !== "string" ||
        typeof claims.exp !== "number")
    ) return "Malformed wallet grant"
    if (claims.kind === "destination-grant" && (typeof claims.destinationID !== "string" || typeof claims.exp !== "number")) {
      return "Malformed destination grant"
    }
    if (
      claims.kind === "withdrawal-quote" &&
      (typeof claims.walletID !== "string" || !isCash(claims.cashFrom) || !isCash(claims.cashTo) || typeof claims.exp !== "number" ||
        (claims.destinationID !== undefined && typeof claims.destinationID !== "string"))
    ) return "Malformed withdrawal quote"
    if (claims.kind === "file-download" && (typeof claims.fileID !== "string" || typeof claims.exp !== "number")) {
      return "Malformed download link"
    }
    return claims
  }

  return {
    issue: (claims: TokenClaims, expiresAt?: Date) =>
      Now.map((now) => {
        const payload = b64url(JSON.stringify({
          ...claims,
          iat: Math.floor(now / 1000),
          ...(expiresAt === undefined ? {} : { exp: Math.floor(expiresAt.getTime() / 1000) })
        }))
        if (claims.kind === "access") {
          const signed = `${hs256Header}.${payload}`
          return `${signed}.${b64url(createHmac("sha256", signer.macKey).update(signed).digest())}`
        }
        const signed = `${es256Header}.${payload}`
        return `${signed}.${b64url(sign("sha256", Buffer.from(signed), { key: signer.privateKey, dsaEncoding: "ieee-p1363" }))}`
      }),
    verify: (token: string) =>
      Now.flatMap((now): Effect.Effect<VerifiedClaims, Errors.Unauthorized> => {
        let claims = verified.get(token)
        if (claims === undefined) {
          const checked = check(token)
          if (typeof checked === "string") return unauthorized(checked)
          claims = checked
          if (verified.size >= VERIFIED_CACHE_SIZE) verified.clear()
          verified.set(token, claims)
        }
        if (claims.exp !== undefined && (claims.exp as number) * 1000 <= now) return unauthorized("Token expired")
        return Effect.succeed(claims as unknown as VerifiedClaims)
      })
  }
}

/**
 * Keys from `KASSA_SIGNING_KEY` when given, else from the data dir.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: { readonly dataDir: string; readonly pem?: string | undefined }) =>
  Layer.sync(Jwt, () => {
    const keys = options.pem === undefined || options.pem.trim() === "" ? [] : named("KASSA_SIGNING_KEY", () => fromPems(options.pem!))
    return make(keys.length > 0 ? keys : loadDataDirKeys(options.dataDir))
  })

/** A fresh in-memory key, for tests and embedding. @since 0.1.0 @category layers */
export const layerEphemeral = Layer.sync(Jwt, () => make([fromPem(generatePem())]))

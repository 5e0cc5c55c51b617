import { afterEach, assert, describe, it, vi } from "@effect/vitest"
import { TokenKeys } from "@kassa/adapters"
import type { TokenClaims } from "@kassa/core/ports/Jwt"
import { Jwt } from "@kassa/core/ports/Jwt"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as TestClock from "effect/TestClock"
import { createHmac, generateKeyPairSync, sign } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url")
const decodePart = (part: string): any => JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
const parts = (token: string) => token.split(".") as [string, string, string]

const key = TokenKeys.fromPem(TokenKeys.generatePem())
const tokens = TokenKeys.make([key])

const apiKeyClaims: TokenClaims = { kind: "api-key", sub: "party-1", jti: "key-1" }
const operatorClaims: TokenClaims = { kind: "operator", sub: "operator", jti: "op-1" }
const accessClaims: TokenClaims = {
  kind: "access",
  sub: "party-1",
  jti: "acc-1",
  resource: "invoice",
  resourceID: "inv-1"
}

/** Asserts the token is refused with `Unauthorized`. */
const refused = (token: string, verifier = tokens) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(verifier.verify(token))
    if (Exit.isSuccess(exit)) assert.fail(`token was accepted: ${JSON.stringify(exit.value)}`)
    const error = yield* Effect.flip(verifier.verify(token))
    assert.strictEqual(error._tag, "Unauthorized")
  })

/** An ES256 signature (r || s) of `input` by `privateKey`, as a JWT carries it. */
const es256 = (input: string, privateKey: TokenKeys.SigningKey["privateKey"]) =>
  b64url(sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" }))

const tempDirs: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-keys-"))
  tempDirs.push(dir)
  return dir
}
afterEach(() => {
  vi.restoreAllMocks()
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

describe("TokenKeys: issue and verify", () => {
  it.effect("round-trips api-key, operator and access claims", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("5 seconds")
      for (const claims of [apiKeyClaims, operatorClaims]) {
        const token = yield* tokens.issue(claims)
        assert.deepStrictEqual(yield* tokens.verify(token), { ...claims, iat: 5 })
      }
      const token = yield* tokens.issue(accessClaims, new Date(3_600_000))
      assert.deepStrictEqual(yield* tokens.verify(token), { ...accessClaims, iat: 5, exp: 3600 })
    }))

  it.effect("signs ES256 with the key's kid", () =>
    Effect.gen(function*() {
      const token = yield* tokens.issue(apiKeyClaims)
      const [h, , s] = parts(token)
      assert.deepStrictEqual(decodePart(h), { alg: "ES256", typ: "JWT", kid: key.kid })
      assert.strictEqual(Buffer.from(s, "base64url").length, 64)
    }))

  it.effect("signs access tokens HS256 with the key's kid, under a secret that is not the public key", () =>
    Effect.gen(function*() {
      const token = yield* tokens.issue(accessClaims, new Date(3_600_000))
      const [h, p, s] = parts(token)
      assert.deepStrictEqual(decodePart(h), { alg: "HS256", typ: "JWT", kid: key.kid })
      assert.strictEqual(s, b64url(createHmac("sha256", key.macKey).update(`${h}.${p}`).digest()))
      const publicDer = key.publicKey.export({ format: "der", type: "spki" })
      assert.notStrictEqual(s, b64url(createHmac("sha256", publicDer).update(`${h}.${p}`).digest()))
      // another key's secret differs
      assert.isFalse(TokenKeys.fromPem(TokenKeys.generatePem()).macKey.export().equals(key.macKey.export()))
      // the same PEM gives the same secret: tokens survive a restart
      const pem = key.privateKey.export({ format: "pem", type: "pkcs8" }).toString()
      assert.deepStrictEqual(TokenKeys.fromPem(pem).macKey.export(), key.macKey.export())
    }))

  it.effect("HS256 is pinned to access tokens: an api-key or operator token with a good MAC is refused", () =>
    Effect.gen(function*() {
      const h = b64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: key.kid }))
      for (const claims of [apiKeyClaims, operatorClaims]) {
        const p = b64url(JSON.stringify({ ...claims, iat: 0 }))
        yield* refused(`${h}.${p}.${b64url(createHmac("sha256", key.macKey).update(`${h}.${p}`).digest())}`)
      }
      // a MAC of the wrong length, or of other bytes
      const p = b64url(JSON.stringify({ ...accessClaims, iat: 0, exp: 4_000_000_000 }))
      const mac = createHmac("sha256", key.macKey).update(`${h}.${p}`).digest()
      yield* refused(`${h}.${p}.${b64url(mac.subarray(0, 31))}`)
      yield* refused(`${h}.${p}.${b64url(Buffer.concat([mac, Buffer.from([0])]))}`)
      yield* refused(`${h}.${p}.${b64url(createHmac("sha256", key.macKey).update(`${h}.${p}x`).digest())}`)
      assert.strictEqual((yield* tokens.verify(`${h}.${p}.${b64url(mac)}`)).kind, "access")
    }))

  it.effect("ES256 is pinned to api keys and operator tokens: an access token with a good ES256 signature is refused", () =>
    Effect.gen(function*() {
      const h = b64url(JSON.stringify({ alg: "ES256", typ: "JWT", kid: key.kid }))
      const p = b64url(JSON.stringify({ ...accessClaims, iat: 0, exp: 4_000_000_000 }))
      const token = `${h}.${p}.${es256(`${h}.${p}`, key.privateKey)}`
      yield* refused(token)
      assert.strictEqual((yield* Effect.flip(tokens.verify(token))).message, "Unsupported token algorithm")
    }))

  it.effect("an api key with an exp verifies until then", () =>
    Effect.gen(function*() {
      const token = yield* tokens.issue(apiKeyClaims, new Date(60_000))
      assert.strictEqual((yield* tokens.verify(token)).exp, 60)
    }))
})

describe("TokenKeys: forged and broken tokens are refused", () => {
  it.effect("alg none (unsigned)", () =>
    Effect.gen(function*() {
      const good = yield* tokens.issue(apiKeyClaims)
      const [, p, s] = parts(good)
      for (const alg of ["none", "None", "NONE"]) {
        const h = b64url(JSON.stringify({ alg, typ: "JWT", kid: key.kid }))
        yield* refused(`${h}.${p}.`)
        yield* refused(`${h}.${p}`)
        // with some signature bytes, and even with the real signature of the payload
        yield* refused(`${h}.${p}.${b64url("x")}`)
        yield* refused(`${h}.${p}.${s}`)
      }
      const noAlg = b64url(JSON.stringify({ typ: "JWT", kid: key.kid }))
      yield* refused(`${noAlg}.${p}.${es256(`${noAlg}.${p}`, key.privateKey)}`)
    }))

  it.effect("HS256 HMAC-signed with the public key PEM as secret", () =>
    Effect.gen(function*() {
      const p = b64url(JSON.stringify({ ...apiKeyClaims, iat: 0 }))
      const publicPem = key.publicKey.export({ format: "pem", type: "spki" }).toString()
      const publicDer = key.publicKey.export({ format: "der", type: "spki" })
      for (const alg of ["HS256", "HS384", "HS512"]) {
        const h = b64url(JSON.stringify({ alg, typ: "JWT", kid: key.kid }))
        const digest = alg === "HS256" ? "sha256" : alg === "HS384" ? "sha384" : "sha512"
        for (const secret of [publicPem, publicDer]) {
          yield* refused(`${h}.${p}.${b64url(createHmac(digest, secret).update(`${h}.${p}`).digest())}`)
        }
      }
    }))

  it.effect("a token of an unknown kid, or with no kid", () =>
    Effect.gen(function*() {
      const other = TokenKeys.make([TokenKeys.fromPem(TokenKeys.generatePem())])
      yield* refused(yield* other.issue(apiKeyClaims))
      // signed by another key while claiming our kid
      const otherKey = TokenKeys.fromPem(TokenKeys.generatePem())
      const p = b64url(JSON.stringify({ ...apiKeyClaims, iat: 0 }))
      const claimingOurs = b64url(JSON.stringify({ alg: "ES256", typ: "JWT", kid: key.kid }))
      yield* refused(`${claimingOurs}.${p}.${es256(`${claimingOurs}.${p}`, otherKey.privateKey)}`)
      // our key, but the kid is missing or unknown
      for (const header of [{ alg: "ES256", typ: "JWT" }, { alg: "ES256", typ: "JWT", kid: "nope" }]) {
        const h = b64url(JSON.stringify(header))
        yield* refused(`${h}.${p}.${es256(`${h}.${p}`, key.privateKey)}`)
      }
    }))

  it.effect("a tampered payload (valid header and signature from another token)", () =>
    Effect.gen(function*() {
      const a = parts(yield* tokens.issue(apiKeyClaims))
      const b = parts(yield* tokens.issue({ kind: "api-key", sub: "party-2", jti: "key-2" }))
      yield* refused(`${a[0]}.${b[1]}.${a[2]}`)
      // a payload edited in place: sub switched to another party
      const edited = b64url(JSON.stringify({ ...decodePart(a[1]), sub: "party-2" }))
      yield* refused(`${a[0]}.${edited}.${a[2]}`)
      // an api key promoted to an operator token
      const promoted = b64url(JSON.stringify({ ...decodePart(a[1]), kind: "operator", sub: "operator" }))
      yield* refused(`${a[0]}.${promoted}.${a[2]}`)
    }))

  it.effect("a signature of the wrong length or encoding", () =>
    Effect.gen(function*() {
      const token = yield* tokens.issue(apiKeyClaims)
      const [h, p, s] = parts(token)
      const sig = Buffer.from(s, "base64url")
      yield* refused(`${h}.${p}.${b64url(sig.subarray(0, 63))}`)
      yield* refused(`${h}.${p}.${b64url(Buffer.concat([sig, Buffer.from([0])]))}`)
      yield* refused(`${h}.${p}.${b64url(Buffer.concat([sig, sig]))}`)
      yield* refused(`${h}.${p}.${b64url(Buffer.alloc(64))}`)
      // a valid signature, but DER-encoded instead of r || s
      const der = sign("sha256", Buffer.from(`${h}.${p}`), { key: key.privateKey, dsaEncoding: "der" })
      yield* refused(`${h}.${p}.${b64url(der)}`)
      // a flipped bit
      const flipped = Buffer.from(sig)
      flipped[10] = flipped[10]! ^ 1
      yield* refused(`${h}.${p}.${b64url(flipped)}`)
    }))

  it.effect("an expired exp (checked against the clock)", () =>
    Effect.gen(function*() {
      const token = yield* tokens.issue(accessClaims, new Date(60_000))
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* tokens.verify(token)).exp, 60)
      yield* TestClock.adjust("1 second")
      yield* refused(token)
      yield* TestClock.adjust("1 hour")
      yield* refused(token)
      const apiKey = yield* tokens.issue(apiKeyClaims, new Date(3_600_000))
      yield* refused(apiKey)
    }))

  it.effect("an access token without exp", () =>
    Effect.gen(function*() {
      yield* refused(yield* tokens.issue(accessClaims))
    }))

  it.effect("claims that are not Kassa's", () =>
    Effect.gen(function*() {
      const signed = (claims: unknown, alg: "ES256" | "HS256" = "ES256") => {
        const input = `${b64url(JSON.stringify({ alg, typ: "JWT", kid: key.kid }))}.${b64url(JSON.stringify(claims))}`
        const signature = alg === "ES256"
          ? es256(input, key.privateKey)
          : b64url(createHmac("sha256", key.macKey).update(input).digest())
        return `${input}.${signature}`
      }
      // correctly signed tokens with well-formed claims verify (the helper itself is right)
      assert.strictEqual((yield* tokens.verify(signed({ ...apiKeyClaims, iat: 0 }))).sub, "party-1")
      assert.strictEqual((yield* tokens.verify(signed({ ...accessClaims, iat: 0, exp: 3600 }, "HS256"))).sub, "party-1")
      yield* refused(signed({ ...apiKeyClaims, iat: 0, kind: "admin" }))
      yield* refused(signed({ kind: "api-key", jti: "k", iat: 0 }))
      yield* refused(signed({ kind: "api-key", sub: "p", iat: 0 }))
      yield* refused(signed({ kind: "api-key", sub: "p", jti: "k" }))
      yield* refused(signed({ ...apiKeyClaims, iat: 0, exp: "never" }))
      yield* refused(signed({ ...accessClaims, iat: 0, exp: 3600, resource: "shop" }, "HS256"))
      yield* refused(signed([1, 2, 3]))
      yield* refused(signed("api-key"))
    }))

  it.effect("malformed tokens", () =>
    Effect.gen(function*() {
      const [h, p, s] = parts(yield* tokens.issue(apiKeyClaims))
      for (
        const token of [
          "",
          "garbage",
          `${h}.${p}`,
          `${h}.${p}.${s}.${s}`,
          `${h}..${s}`,
          `.${p}.${s}`,
          `${h}.${p}.${s}=`,
          `${h.replace(/-/g, "+")}+.${p}.${s}`,
          `${h}.${p}/.${s}`,
          `${h}.${p}.${s} `,
          `${b64url("not json")}.${p}.${s}`,
          `${h}.${b64url("not json")}.${s}`
        ]
      ) {
        yield* refused(token)
      }
    }))
})

describe("TokenKeys: keys in a data dir", () => {
  const pemFiles = (dir: string) => fs.readdirSync(path.join(dir, "keys")).filter((f) => f.endsWith(".pem")).sort()

  it("the first call generates one key; later calls read the same key", () => {
    const dir = tempDir()
    const first = TokenKeys.loadDataDirKeys(dir)
    assert.strictEqual(first.length, 1)
    assert.strictEqual(pemFiles(dir).length, 1)
    const again = TokenKeys.loadDataDirKeys(dir)
    assert.deepStrictEqual(again.map((k) => k.kid), first.map((k) => k.kid))
    assert.strictEqual(pemFiles(dir).length, 1)
    const mode = fs.statSync(path.join(dir, "keys", pemFiles(dir)[0]!)).mode & 0o777
    assert.strictEqual(mode & 0o077, 0, "the private key is readable by its owner only")
  })

  it.effect("after rotate the newest key signs and tokens of the old key still verify", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const [old] = TokenKeys.loadDataDirKeys(dir)
      const oldTokens = TokenKeys.make(TokenKeys.loadDataDirKeys(dir))
      const oldToken = yield* oldTokens.issue(apiKeyClaims)
      // Let the millisecond clock move on, so that the rotation is unambiguously newer.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      const file = TokenKeys.rotate(dir)
      const rotated = TokenKeys.fromPem(fs.readFileSync(file, "utf8"))
      const ring = TokenKeys.loadDataDirKeys(dir)
      assert.strictEqual(ring.length, 2)
      assert.strictEqual(ring[0]!.kid, rotated.kid, "the newest key signs")
      assert.notStrictEqual(rotated.kid, old!.kid)
      const newTokens = TokenKeys.make(ring)
      const newToken = yield* newTokens.issue(apiKeyClaims)
      assert.strictEqual(decodePart(parts(newToken)[0]).kid, rotated.kid)
      assert.deepStrictEqual(yield* newTokens.verify(oldToken), { ...apiKeyClaims, iat: 0 })
      assert.deepStrictEqual(yield* newTokens.verify(newToken), { ...apiKeyClaims, iat: 0 })
      // access tokens (HS256) of the old key too
      const oldAccess = yield* oldTokens.issue(accessClaims, new Date(3_600_000))
      assert.deepStrictEqual(yield* newTokens.verify(oldAccess), { ...accessClaims, iat: 0, exp: 3600 })
      // the old ring does not know the new key
      yield* refused(newToken, oldTokens)
      yield* refused(yield* newTokens.issue(accessClaims, new Date(3_600_000)), oldTokens)
    }))

  it.effect("two rotations in the same millisecond both succeed, and the later one signs", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      TokenKeys.loadDataDirKeys(dir)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      const frozen = Date.now()
      vi.spyOn(Date, "now").mockReturnValue(frozen)
      const first = TokenKeys.rotate(dir)
      const second = TokenKeys.rotate(dir)
      vi.restoreAllMocks()
      assert.notStrictEqual(first, second)
      assert.strictEqual(pemFiles(dir).length, 3)
      const ring = TokenKeys.loadDataDirKeys(dir)
      assert.strictEqual(ring[0]!.kid, TokenKeys.fromPem(fs.readFileSync(second, "utf8")).kid)
    }))

  it.effect("layer({dataDir, pem}) signs with the given PEM and leaves the data dir alone", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const pem = TokenKeys.generatePem()
      const token = yield* Effect.flatMap(Jwt, (t) => t.issue(apiKeyClaims)).pipe(
        Effect.provide(TokenKeys.layer({ dataDir: dir, pem }))
      )
      assert.strictEqual(decodePart(parts(token)[0]).kid, TokenKeys.fromPem(pem).kid)
      assert.deepStrictEqual(yield* TokenKeys.make([TokenKeys.fromPem(pem)]).verify(token), { ...apiKeyClaims, iat: 0 })
      assert.isFalse(fs.existsSync(path.join(dir, "keys")), "no key was generated")
    }))

  it.effect("layer with several PEMs: the first signs, every one verifies", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const [a, b] = [TokenKeys.generatePem(), TokenKeys.generatePem()]
      const fromB = yield* TokenKeys.make([TokenKeys.fromPem(b)]).issue(apiKeyClaims)
      const [issued, verified] = yield* Effect.flatMap(Jwt, (t) =>
        Effect.all([t.issue(apiKeyClaims), t.verify(fromB)])).pipe(
          Effect.provide(TokenKeys.layer({ dataDir: dir, pem: `${a}\n${b}` }))
        )
      assert.strictEqual(decodePart(parts(issued)[0]).kid, TokenKeys.fromPem(a).kid)
      assert.strictEqual(verified.sub, "party-1")
    }))

  it.effect("layer without a PEM uses (and creates) the data dir's keys", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const token = yield* Effect.flatMap(Jwt, (t) => t.issue(apiKeyClaims)).pipe(
        Effect.provide(TokenKeys.layer({ dataDir: dir, pem: "  " }))
      )
      const [k] = TokenKeys.loadDataDirKeys(dir)
      assert.strictEqual(decodePart(parts(token)[0]).kid, k!.kid)
    }))

  it.effect("a PEM that holds no private key fails the layer", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.provide(Jwt, TokenKeys.layer({ dataDir: tempDir(), pem: "garbage" })))
      assert.isTrue(Exit.isFailure(exit))
    }))

  it("fromPem accepts only EC P-256 private keys", () => {
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey.export({ format: "pem", type: "pkcs8" })
      .toString()
    assert.throws(() => TokenKeys.fromPem(p384))
    const ed = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()
    assert.throws(() => TokenKeys.fromPem(ed))
    const pem = TokenKeys.generatePem()
    assert.strictEqual(TokenKeys.fromPem(pem).kid, TokenKeys.fromPem(pem).kid, "the kid is a function of the key")
    assert.strictEqual(TokenKeys.fromPem(pem).kid.length, 16)
  })
})

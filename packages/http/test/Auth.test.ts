import { assert, describe, it } from "@effect/vitest"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type Authenticator, Errors, Principal } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Exit from "effect/Exit"
import * as AccessLog from "../src/server/AccessLog.js"
import * as Auth from "../src/server/Auth.js"

/**
 * The principal set on a request's fiber: what the handlers read, and the context with it made
 * once per caller rather than copied for every request.
 */

class Other extends Context.Tag("test/Other")<Other, string>() {}

type Seen = Context.Context<Principal.CurrentPrincipal | Other>

// The fiber's context after `setPrincipal`, in a fiber of its own that starts from the default runtime's.
const contextAfter = (principal: Principal.Principal, around: (e: Effect.Effect<Seen>) => Effect.Effect<Seen> = (e) => e): Seen =>
  Effect.runSync(around(Effect.zipRight(Auth.setPrincipal(principal), FiberRef.get(FiberRef.currentContext) as Effect.Effect<Seen>)))

// The tag as the handlers read it: `setPrincipal` provides it on the fiber, not in the type.
const currentPrincipal = Principal.CurrentPrincipal as unknown as Effect.Effect<Principal.Principal>

const apiKey = (partyID: string, keyID: string) => Principal.Principal.ApiKey({ partyID, keyID })

describe("Auth.setPrincipal", () => {
  it.effect("makes the principal the fiber's CurrentPrincipal", () =>
    Effect.gen(function*() {
      yield* Auth.setPrincipal(Principal.Principal.AccessToken({ partyID: "p1", resource: "invoice", resourceID: "i1" }))
      const principal = yield* currentPrincipal
      assert.deepStrictEqual(
        { ...principal },
        { _tag: "AccessToken", partyID: "p1", resource: "invoice", resourceID: "i1" }
      )
    }))

  it("gives a caller's next request the context made for its first", () => {
    const first = contextAfter(apiKey("party-a", "key-a"))
    const again = contextAfter(apiKey("party-a", "key-a"))
    assert.strictEqual(again, first)
    assert.deepStrictEqual({ ...Context.get(again, Principal.CurrentPrincipal) }, { _tag: "ApiKey", partyID: "party-a", keyID: "key-a" })
  })

  it("gives each principal its own context", () => {
    const cases = [
      apiKey("party-a", "key-a"),
      apiKey("party-a", "key-b"),
      apiKey("party-b", "key-a"),
      Principal.Principal.AccessToken({ partyID: "party-a", resource: "invoice", resourceID: "key-a" }),
      Principal.Principal.AccessToken({ partyID: "party-a", resource: "customer", resourceID: "key-a" }),
      Principal.Principal.Operator({ keyID: "key-a" })
    ]
    const contexts = cases.map((p) => contextAfter(p))
    assert.strictEqual(new Set(contexts).size, cases.length)
    contexts.forEach((context, i) => assert.deepStrictEqual({ ...Context.get(context, Principal.CurrentPrincipal) }, { ...cases[i]! }))
  })

  it("gives a principal holding a field its key does not name its own context, not the one of the principal it shares its key with", () => {
    const plain = contextAfter(apiKey("party-d", "key-d"))
    const more = { ...apiKey("party-d", "key-d"), scope: "read" } as unknown as Principal.Principal
    const withMore = contextAfter(more)
    assert.notStrictEqual(withMore, plain)
    assert.strictEqual((Context.get(withMore, Principal.CurrentPrincipal) as unknown as { scope: string }).scope, "read")
    const differing = { ...apiKey("party-d", "key-d"), scope: "write" } as unknown as Principal.Principal
    assert.strictEqual((Context.get(contextAfter(differing), Principal.CurrentPrincipal) as unknown as { scope: string }).scope, "write")
  })

  it("keeps a bounded number of contexts: past it, they are made again, each with its own principal", () => {
    const first = contextAfter(apiKey("party-first", "key"))
    for (let i = 0; i < 300; i++) {
      const context = contextAfter(apiKey(`party-${i}`, "key"))
      assert.strictEqual(Principal.partyOf(Context.get(context, Principal.CurrentPrincipal)), `party-${i}`)
    }
    const again = contextAfter(apiKey("party-first", "key"))
    assert.notStrictEqual(again, first)
    assert.deepStrictEqual({ ...Context.get(again, Principal.CurrentPrincipal) }, { _tag: "ApiKey", partyID: "party-first", keyID: "key" })
  })

  it("adds the principal to the fiber's own context, whichever it is", () => {
    const plain = contextAfter(apiKey("party-c", "key-c"))
    const other = contextAfter(apiKey("party-c", "key-c"), Effect.provideService(Other, "other"))
    assert.notStrictEqual(other, plain)
    assert.strictEqual(Context.get(other, Other), "other")
    assert.isTrue(Option.isNone(Context.getOption(plain, Other)))
    assert.deepStrictEqual({ ...Context.get(other, Principal.CurrentPrincipal) }, { _tag: "ApiKey", partyID: "party-c", keyID: "key-c" })
    // and back on the first: its own again
    assert.isTrue(Option.isNone(Context.getOption(contextAfter(apiKey("party-c", "key-c")), Other)))
  })
})

describe("Auth.servingMerchant", () => {
  // An authenticator naming `principal` for the token "good", refusing any other
  const authenticatorOf = (principal: Principal.Principal, asked: Array<string>) =>
    ({
      authenticate: (token: string) => {
        asked.push(token)
        return token === "good" ? Effect.succeed(principal) : Effect.fail(new Errors.Unauthorized({ message: "API key is unknown or revoked" }))
      }
    }) as unknown as Authenticator.Authenticator
  const requestWith = (authorization: string | undefined) =>
    ({ headers: authorization === undefined ? {} : { authorization }, source: {} }) as unknown as HttpServerRequest.HttpServerRequest
  // the request's access line names its caller, if any
  const callerIn = (request: HttpServerRequest.HttpServerRequest) => {
    const line = AccessLog.jsonLineOf({ request, response: HttpServerResponse.empty(), operation: "o", requestId: "r", milliseconds: 0 }, 1, 0)
    return (JSON.parse(line) as { annotations: { party?: string } }).annotations.party
  }
  const serve = (served: Array<Principal.Principal>) => () => Effect.map(Principal.CurrentPrincipal, (p) => void served.push(p))

  it("serves a merchant's request with its principal, the caller noted for the access line", () => {
    for (
      const principal of [
        apiKey("party-m", "key-m"),
        Principal.Principal.AccessToken({ partyID: "party-t", resource: "invoice", resourceID: "inv" })
      ]
    ) {
      const asked: Array<string> = [], served: Array<Principal.Principal> = []
      const request = requestWith("Bearer good")
      Effect.runSync(Auth.servingMerchant(authenticatorOf(principal, asked), request, "good", serve(served)))
      assert.deepStrictEqual(asked, ["good"])
      assert.deepStrictEqual(served.map((p) => ({ ...p })), [{ ...principal }])
      assert.strictEqual(callerIn(request), principal.partyID)
    }
  })

  it("refuses the operator's token, noting the operator as the caller, and a token it does not know, serving neither", () => {
    const asked: Array<string> = [], served: Array<Principal.Principal> = []
    const operator = authenticatorOf(Principal.Principal.Operator({ keyID: "op" }), asked)
    const request = requestWith("Bearer good")
    const refused = Effect.runSyncExit(Auth.servingMerchant(operator, request, "good", serve(served)))
    assert.deepStrictEqual(refused, Exit.fail(new Errors.Unauthorized({ message: "Operator tokens open the operator API only" })))
    assert.strictEqual(callerIn(request), "operator")
    const unknown = requestWith("Bearer bad")
    const refusedToo = Effect.runSyncExit(Auth.servingMerchant(operator, unknown, "bad", serve(served)))
    assert.deepStrictEqual(refusedToo, Exit.fail(new Errors.Unauthorized({ message: "API key is unknown or revoked" })))
    assert.strictEqual(callerIn(unknown), undefined)
    assert.deepStrictEqual(served, [])
  })

  it("given the request's id, serves with the principal and the id annotating the fiber's logs, set together", () => {
    const principal = apiKey("party-r", "key-r")
    const seen = (requestId?: string) =>
      Effect.runSync(
        Effect.annotateLogs(
          Auth.servingMerchant(
            authenticatorOf(principal, []),
            requestWith("Bearer good"),
            "good",
            () =>
              Effect.all([
                currentPrincipal,
                FiberRef.get(FiberRef.currentLogAnnotations),
                FiberRef.get(FiberRef.currentContext) as Effect.Effect<Seen>
              ]),
            requestId
          ),
          "kept",
          "yes"
        )
      )
    const [served, annotations, context] = seen("req-7")
    assert.deepStrictEqual({ ...served }, { ...principal })
    assert.deepStrictEqual(Object.fromEntries(HashMap.toEntries(annotations)), { kept: "yes", requestId: "req-7" })
    // the context kept for the caller, as `setPrincipal` sets it
    assert.strictEqual(context, contextAfter(principal))
    const [, without] = seen()
    assert.deepStrictEqual(Object.fromEntries(HashMap.toEntries(without)), { kept: "yes" })
  })

  it("refuses without asking the authenticator what is not a Bearer token", () => {
    for (const authorization of [undefined, "", "Basic abc", "Bearer", "Bearer a b", "bearer good"]) {
      const asked: Array<string> = [], served: Array<Principal.Principal> = []
      const refused = Effect.runSyncExit(
        Auth.servingMerchant(authenticatorOf(apiKey("p", "k"), asked), requestWith(authorization), "good", serve(served))
      )
      assert.deepStrictEqual(refused, Exit.fail(new Errors.Unauthorized({ message: "Expected Authorization: Bearer <token>" })), String(authorization))
      assert.deepStrictEqual([asked, served], [[], []])
    }
  })
})

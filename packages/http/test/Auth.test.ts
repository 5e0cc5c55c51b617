import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Auth from "../src/server/Auth.js"

/**
 * The principal set on a request's fiber: what the handlers read, and the context with it made
 * once per caller rather than copied for every request.
 */

class Other extends Context.Tag("test/Other")<Other, string>() {}

// The fiber's context after `setPrincipal`, in a fiber of its own that starts from the default runtime's.
const contextAfter = (principal: Principal.Principal, around: (e: Effect.Effect<Context.Context<never>>) => Effect.Effect<Context.Context<never>> = (e) => e) =>
  Effect.runSync(around(Effect.zipRight(Auth.setPrincipal(principal), FiberRef.get(FiberRef.currentContext))))

const apiKey = (partyID: string, keyID: string) => Principal.Principal.ApiKey({ partyID, keyID })

describe("Auth.setPrincipal", () => {
  it.effect("makes the principal the fiber's CurrentPrincipal", () =>
    Effect.gen(function*() {
      yield* Auth.setPrincipal(Principal.Principal.AccessToken({ partyID: "p1", resource: "invoice", resourceID: "i1" }))
      const principal = yield* Principal.CurrentPrincipal
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

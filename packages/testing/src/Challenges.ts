/**
 * Answering the test acquirer's 3-D Secure pages as a payer's browser does, for payments and
 * customer bindings alike.
 *
 * @since 0.1.0
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestServer from "./TestServer.js"

interface Redirect {
  readonly interactionType: string
  readonly request: { readonly requestType: string; readonly uriTemplate: string }
}

/**
 * The page's path from a `userInteraction` (a browser redirect to `/3ds/{id}`), or from the
 * change or event that carries one.
 *
 * @since 0.1.0
 */
export const challengePath = (interaction: unknown): string => {
  const carried = (interaction as { readonly userInteraction?: unknown }).userInteraction
  const u = (carried ?? interaction) as Redirect
  assert.strictEqual(u.interactionType, "Redirect")
  assert.strictEqual(u.request.requestType, "BrowserGetRequest")
  assert.match(u.request.uriTemplate, /^https?:\/\/[^/]+\/3ds\/[A-Za-z0-9]+$/)
  return new URL(u.request.uriTemplate).pathname
}

/** Submits the page's form with `outcome` (`pass` or `fail`). @since 0.1.0 */
export const answer = (path: string, outcome: string) =>
  TestServer.raw("POST", path, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: `outcome=${outcome}` })

/**
 * Ten answers at once, passing and failing by turns: exactly one decides (200), the others are
 * told the challenge is over (404). Answers whether the deciding one passed, and the others.
 *
 * @since 0.1.0
 */
export const answerTenAtOnce = (path: string) =>
  Effect.gen(function*() {
    const pages = yield* Effect.forEach(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? "pass" : "fail")),
      (outcome) => answer(path, outcome),
      { concurrency: "unbounded" }
    )
    const titles = pages.map((p) => /<h1>([^<]*)<\/h1>/.exec(p.text)?.[1])
    const deciding = pages.filter((p) => p.status === 200)
    assert.strictEqual(deciding.length, 1, titles.join(", "))
    const passed = deciding[0]!.text.includes("<h1>Confirmed</h1>")
    assert.isTrue(passed || deciding[0]!.text.includes("<h1>Declined</h1>"), deciding[0]!.text)
    const others = pages.filter((p) => p.status !== 200)
    for (const p of others) {
      assert.strictEqual(p.status, 404, p.text)
      assert.include(p.text, "This challenge is over")
    }
    return { passed, others }
  })

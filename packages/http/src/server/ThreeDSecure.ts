/**
 * The 3-D Secure challenge page of the test acquirer, served by Kassa: a payer redirected to
 * `/3ds/{interactionID}` passes or fails the challenge, and the payment goes on.
 *
 * @since 0.1.0
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CustomerService, PaymentService } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const page = (title: string, body: string, status = 200) =>
  HttpServerResponse.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}` +
      `button{font-size:1rem;padding:.6rem 1.2rem;margin-right:.5rem}</style></head>` +
      `<body><h1>${title}</h1>${body}</body></html>`
  ).pipe(HttpServerResponse.setStatus(status))

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Adds its routes to the API's router (`Http.app` adds every plain route in one layer). @since 0.1.0 @category routes */
export const routes = (router: HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>) =>
  Effect.gen(function*() {
    const payments = yield* PaymentService.PaymentService
    const customers = yield* CustomerService.CustomerService
    // A challenge belongs to a payment or to a customer's binding (card verification).
    const challenge = (id: string) =>
      payments.challenge(id).pipe(
        Effect.map((p) => ({ amount: p.amount, currency: p.currency })),
        Effect.orElse(() => Effect.as(customers.challenge(id), { amount: 0, currency: "" }))
      )
    // Whether this answer decided the challenge (an earlier one may have), and the status it left.
    const complete = (id: string, passed: boolean) =>
      payments.completeChallenge(id, passed).pipe(
        Effect.map(({ decided, payment }) => ({ decided, status: payment.status as string })),
        Effect.catchTag("NotFound", () =>
          Effect.map(customers.completeChallenge(id, passed), ({ binding, decided }) => ({ decided, status: binding.status as string })))
      )
    const idOf = Effect.map(HttpRouter.params, (p) => p.interactionID ?? "")

    yield* router.get(
      "/3ds/:interactionID",
      Effect.gen(function*() {
        const id = yield* idOf
        const p = yield* challenge(id)
        const what = p.currency === ""
          ? "saving this card"
          : `the payment of <strong>${escape((p.amount / 100).toFixed(2))} ${escape(p.currency)}</strong>`
        return page(
          "3-D Secure (test)",
          `<p>Confirm ${what}.</p>` +
            `<form method="post"><button name="outcome" value="pass">Confirm</button>` +
            `<button name="outcome" value="fail">Decline</button></form>`
        )
      }).pipe(Effect.catchTag("NotFound", () => Effect.succeed(page("No such challenge", "<p>This challenge is over.</p>", 404))))
    )

    yield* router.post(
      "/3ds/:interactionID",
      Effect.gen(function*() {
        const id = yield* idOf
        const form = yield* HttpServerRequest.schemaBodyUrlParams(Schema.Struct({ outcome: Schema.Literal("pass", "fail") }))
        const passed = form.outcome === "pass"
        const { decided, status } = yield* complete(id, passed)
        const state = `<p>Status: ${escape(status)}. You may close this page.</p>`
        // An earlier answer decided (a double submission): this one changed nothing.
        if (!decided) return page("This challenge is over", state, 404)
        return page(passed ? "Confirmed" : "Declined", state)
      }).pipe(
        Effect.catchTag("NotFound", () => Effect.succeed(page("No such challenge", "<p>This challenge is over.</p>", 404))),
        Effect.catchAll(() => Effect.succeed(page("Bad request", "<p>The challenge could not be completed.</p>", 400)))
      )
    )
  })

/**
 * Kassa's HTTP API from a program of its own: `Http.serve` of `@kassa/http` over `Kassa.layer`
 * (the test acquirer), on Node's HTTP server. Before it listens it onboards a merchant through the
 * services; once it listens it prints the address and the merchant's API key as one JSON line.
 *
 *   npm run build && PORT=8080 npm start
 *   curl -H "Authorization: Bearer $API_KEY" -H "X-Request-ID: 1" localhost:8080/v2/processing/me
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpServer from "@effect/platform/HttpServer"
import { Database, Kassa } from "@kassa/adapters"
import { Onboarding } from "@kassa/core"
import { Http } from "@kassa/http"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"

const merchant = Effect.gen(function*() {
  const onboarding = yield* Onboarding.Onboarding
  return yield* onboarding.onboard(
    yield* Schema.decodeUnknown(Onboarding.OnboardingParams)({
      email: "books@shop.example",
      name: "Book shop",
      paymentInstitutionID: 1,
      shops: [{ name: "Book shop", url: "https://books.shop.example", categoryID: 1, currency: "RUB" }]
    })
  )
})

const main = Effect.gen(function*() {
  const dataDir = yield* Config.string("KASSA_DATA_DIR").pipe(Config.withDefault(".kassa-serve"))
  const url = yield* Config.option(Config.string("KASSA_DATABASE_URL"))
  const port = yield* Config.integer("PORT").pipe(Config.withDefault(8080))
  const database = yield* Database.fromUrl(Option.getOrUndefined(url), dataDir)
  // Kassa is built (database, migrations) and the merchant made before the port opens.
  const kassa = yield* Layer.build(Kassa.layer({ database, dataDir }))
  const { apiKey, shopID } = yield* Effect.provide(merchant, kassa)
  const listening = Layer.effectDiscard(
    HttpServer.addressFormattedWith((url) => Effect.sync(() => console.log(JSON.stringify({ url, apiKey, shopID }))))
  )
  return yield* Layer.launch(
    listening.pipe(
      Layer.provideMerge(Http.serve(Layer.succeedContext(kassa))),
      Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
    )
  )
})

NodeRuntime.runMain(Effect.scoped(main))

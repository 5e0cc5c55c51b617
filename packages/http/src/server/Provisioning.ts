/**
 * The demo merchant of a first start: a party with a contract, a test shop (RUB, a test
 * category) and a second shop, an API key and an operator token, written to
 * `<dataDir>/dev-credentials.json` (readable by its owner only). Later starts on the same store
 * reuse them.
 *
 * @since 0.1.0
 */
import { ApiKeyService, Ids, Onboarding, PartyService } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"

/** @since 0.1.0 @category models */
export interface DevCredentials {
  readonly partyID: string
  readonly shopID: string
  readonly shopIDs: ReadonlyArray<string>
  readonly apiKey: string
  readonly adminToken: string
}

/** Where the demo merchant's credentials are kept (mode 0600). @since 0.1.0 */
export const credentialsFile = (dataDir: string) => path.join(dataDir, "dev-credentials.json")

const read = (file: string): Option.Option<DevCredentials> => {
  try {
    return Option.some(JSON.parse(fs.readFileSync(file, "utf8")) as DevCredentials)
  } catch {
    return Option.none()
  }
}

/**
 * Provisions (or finds) the demo merchant; answers its credentials.
 *
 * @since 0.1.0
 */
export const provision = (dataDir: string) =>
  Effect.gen(function*() {
    const file = credentialsFile(dataDir)
    const parties = yield* PartyService.PartyService
    const existing = read(file)
    if (Option.isSome(existing)) {
      const found = yield* parties.get(Ids.PartyID.make(existing.value.partyID)).pipe(Effect.option)
      if (Option.isSome(found)) return { credentials: existing.value, created: false }
    }
    const onboarded = yield* Onboarding.Onboarding.pipe(
      Effect.flatMap((o) =>
        o.onboard({
          name: "Demo merchant",
          email: "demo@kassa.test",
          paymentInstitutionID: 1,
          shops: [
            { name: "Demo shop", description: "Test shop of the demo merchant", url: "https://demo.kassa.test", categoryID: 1, currency: "RUB" },
            { name: "Demo shop 2", description: "Second shop of the demo merchant", url: "https://demo2.kassa.test", categoryID: 1, currency: "RUB" }
          ]
        })
      ),
      Effect.orDie
    )
    const operator = yield* ApiKeyService.ApiKeyService.pipe(Effect.flatMap((k) => k.issueOperator()))
    const credentials: DevCredentials = {
      partyID: onboarded.partyID,
      shopID: onboarded.shopID,
      shopIDs: onboarded.shopIDs,
      apiKey: onboarded.apiKey,
      adminToken: operator.token
    }
    fs.mkdirSync(dataDir, { recursive: true })
    fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600 })
    // `mode` applies to a new file only: one left by an earlier store keeps its own otherwise.
    fs.chmodSync(file, 0o600)
    return { credentials, created: true }
  })

/**
 * Provisions on start and logs where the credentials are: the file, never the secrets.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (dataDir: string) =>
  Layer.effectDiscard(
    provision(dataDir).pipe(
      Effect.flatMap(({ created, credentials }) =>
        Effect.logInfo(
          `${created ? "provisioned the demo merchant" : "demo merchant"}: party ${credentials.partyID}, ` +
            `shops ${credentials.shopIDs.join(", ")}; its API key and operator token are in ${credentialsFile(dataDir)}`
        )
      )
    )
  )

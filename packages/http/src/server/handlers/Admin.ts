/**
 * Handlers of the operator API.
 *
 * @since 0.1.0
 */
import { ApiKeyService, Ids, Onboarding, PartyService, ShopService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import * as Group from "./Group.js"

/** The Admin group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const onboarding = yield* Onboarding.Onboarding
  const keys = yield* ApiKeyService.ApiKeyService
  const parties = yield* PartyService.PartyService
  const shops = yield* ShopService.ShopService
  const party = (id: string) => Ids.PartyID.make(id)
  return Group.handlers(KassaApi, "Admin")({
    onboardParty: ({ payload }) => onboarding.onboard(payload),
    issueApiKey: ({ path }) =>
      parties.get(party(path.partyID)).pipe(
        Effect.zipRight(keys.issue(path.partyID)),
        Effect.map((k) => ({ keyID: k.keyID, apiKey: k.token }))
      ),
    listApiKeys: ({ path }) =>
      parties.get(party(path.partyID)).pipe(
        Effect.zipRight(keys.list(path.partyID)),
        Effect.map((list) =>
          list.map((k) => ({
            keyID: k.id,
            createdAt: k.createdAt,
            ...(k.revokedAt === undefined ? {} : { revokedAt: k.revokedAt })
          }))
        )
      ),
    revokeApiKey: ({ path }) => keys.revoke(path.partyID, path.keyID),
    setPartyActivity: ({ path }) => Effect.asVoid(parties.setStanding(party(path.partyID), path.command)),
    setShopActivity: ({ path }) =>
      Effect.asVoid(shops.setStanding(party(path.partyID), Ids.ShopID.make(path.shopID), path.command))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Admin", handlers)

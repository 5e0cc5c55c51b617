/**
 * Handlers of the Shops group.
 *
 * @since 0.1.0
 */
import { Ids, ShopService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The Shops group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const shops = yield* ShopService.ShopService
  const shop = (id: string) => Ids.ShopID.make(id)
  return Group.handlers(KassaApi, "Shops")({
    getShops: () => Effect.flatMap(merchantParty, shops.list),
    getShopByID: ({ path }) => Effect.flatMap(merchantParty, (party) => shops.get(party, shop(path.shopID))),
    activateShop: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => shops.setStanding(party, shop(path.shopID), "activate").pipe(Effect.asVoid)),
    suspendShop: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => shops.setStanding(party, shop(path.shopID), "suspend").pipe(Effect.asVoid)),
    getShopsForParty: ({ path }) => Effect.flatMap(namedParty(path.partyID), shops.list),
    getShopByIDForParty: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (party) => shops.get(party, shop(path.shopID))),
    activateShopForParty: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (party) => shops.setStanding(party, shop(path.shopID), "activate").pipe(Effect.asVoid)),
    suspendShopForParty: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (party) => shops.setStanding(party, shop(path.shopID), "suspend").pipe(Effect.asVoid))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Shops", handlers)

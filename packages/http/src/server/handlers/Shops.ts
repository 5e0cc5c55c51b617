/**
 * Handlers of the Shops group.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Ids, ShopService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Shops", (handlers) =>
  Effect.gen(function*() {
    const shops = yield* ShopService.ShopService
    const shop = (id: string) => Ids.ShopID.make(id)
    return handlers
      .handle("getShops", () => Effect.flatMap(merchantParty, shops.list))
      .handle("getShopByID", ({ path }) => Effect.flatMap(merchantParty, (party) => shops.get(party, shop(path.shopID))))
      .handle("activateShop", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => shops.setStanding(party, shop(path.shopID), "activate").pipe(Effect.asVoid)))
      .handle("suspendShop", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => shops.setStanding(party, shop(path.shopID), "suspend").pipe(Effect.asVoid)))
      .handle("getShopsForParty", ({ path }) => Effect.flatMap(namedParty(path.partyID), shops.list))
      .handle("getShopByIDForParty", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (party) => shops.get(party, shop(path.shopID))))
      .handle("activateShopForParty", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (party) => shops.setStanding(party, shop(path.shopID), "activate").pipe(Effect.asVoid)))
      .handle("suspendShopForParty", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (party) => shops.setStanding(party, shop(path.shopID), "suspend").pipe(Effect.asVoid)))
  }))

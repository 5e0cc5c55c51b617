/**
 * Shops of the caller's party.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Shop } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Id, PartyIdParam } from "./Params.js"
import { Authentication } from "./Security.js"

const ShopPath = Schema.Struct({ shopID: Id })
const PartyPath = Schema.Struct({ partyID: PartyIdParam })
const PartyShopPath = Schema.Struct({ partyID: PartyIdParam, shopID: Id })

/** @since 0.1.0 @category groups */
export class ShopsGroup extends HttpApiGroup.make("Shops")
  .add(HttpApiEndpoint.get("getShops", "/processing/shops").addSuccess(Schema.Array(Shop.Shop)))
  .add(HttpApiEndpoint.get("getShopByID", "/processing/shops/:shopID").setPath(ShopPath).addSuccess(Shop.Shop))
  .add(HttpApiEndpoint.put("activateShop", "/processing/shops/:shopID/activate").setPath(ShopPath))
  .add(HttpApiEndpoint.put("suspendShop", "/processing/shops/:shopID/suspend").setPath(ShopPath))
  .add(
    HttpApiEndpoint.get("getShopsForParty", "/processing/parties/:partyID/shops").setPath(PartyPath).addSuccess(
      Schema.Array(Shop.Shop)
    )
  )
  .add(
    HttpApiEndpoint.get("getShopByIDForParty", "/processing/parties/:partyID/shops/:shopID").setPath(PartyShopPath)
      .addSuccess(Shop.Shop)
  )
  .add(
    HttpApiEndpoint.put("activateShopForParty", "/processing/parties/:partyID/shops/:shopID/activate").setPath(
      PartyShopPath
    )
  )
  .add(
    HttpApiEndpoint.put("suspendShopForParty", "/processing/parties/:partyID/shops/:shopID/suspend").setPath(
      PartyShopPath
    )
  )
  .middleware(Authentication)
{}

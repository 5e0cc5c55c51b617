/**
 * The shop: a website or point of sale of a party, with its category, currency and contract.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ContractID, PartyID, ShopID } from "../Ids.js"
import { Currency } from "../Money.js"

/** @since 0.1.0 @category models */
export const ShopLocationUrl = Schema.Struct({
  locationType: Schema.Literal("ShopLocationUrl"),
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
})

/** @since 0.1.0 @category models */
export const ShopLocation = ShopLocationUrl
/** @since 0.1.0 */
export type ShopLocation = typeof ShopLocation.Type

/** @since 0.1.0 @category models */
export const ShopDetails = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(1000)))
})
/** @since 0.1.0 */
export type ShopDetails = typeof ShopDetails.Type

/**
 * The shop as the interface shows it.
 *
 * @since 0.1.0 @category models
 */
export const Shop = Schema.Struct({
  id: ShopID,
  createdAt: Schema.DateFromString,
  isBlocked: Schema.Boolean,
  isSuspended: Schema.Boolean,
  currency: Currency,
  categoryID: Schema.Int,
  location: ShopLocation,
  details: ShopDetails,
  contractID: ContractID
})
/** @since 0.1.0 */
export type Shop = typeof Shop.Type

/**
 * The shop as stored.
 *
 * @since 0.1.0 @category models
 */
export interface ShopRecord extends Shop {
  readonly partyID: PartyID
  readonly version: number
}

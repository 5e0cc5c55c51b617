/**
 * Storage of shops, always read through their party.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContractRecord } from "../contract/Contract.js"
import type { PartyID, ShopID } from "../Ids.js"
import type { PartyRecord } from "../party/Party.js"
import type { ShopRecord } from "../shop/Shop.js"

/** A shop with its party and the contract it works under. @since 0.1.0 @category models */
export interface GovernedShop {
  readonly shop: ShopRecord
  readonly party: PartyRecord
  readonly contract: Option.Option<ContractRecord>
}

/** @since 0.1.0 @category tags */
export class ShopRepository extends Context.Tag("kassa/ShopRepository")<ShopRepository, {
  readonly findById: (partyID: PartyID, id: ShopID) => Effect.Effect<Option.Option<ShopRecord>>
  /** The shop, its party and its contract in one read (every business operation needs them). */
  readonly findGoverned: (partyID: PartyID, id: ShopID) => Effect.Effect<Option.Option<GovernedShop>>
  readonly listByParty: (partyID: PartyID) => Effect.Effect<ReadonlyArray<ShopRecord>>
  readonly insert: (shop: ShopRecord) => Effect.Effect<void>
  /** Writes `shop` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (shop: ShopRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}

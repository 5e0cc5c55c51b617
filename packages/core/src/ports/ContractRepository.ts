/**
 * Storage of contracts, always read through their party.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContractRecord } from "../contract/Contract.js"
import type { ContractID, PartyID } from "../Ids.js"

/** @since 0.1.0 @category tags */
export class ContractRepository extends Context.Tag("kassa/ContractRepository")<ContractRepository, {
  readonly findById: (partyID: PartyID, id: ContractID) => Effect.Effect<Option.Option<ContractRecord>>
  readonly listByParty: (partyID: PartyID) => Effect.Effect<ReadonlyArray<ContractRecord>>
  readonly insert: (contract: ContractRecord) => Effect.Effect<void>
}>() {}

/**
 * Storage of parties. Writes are optimistic: an update names the version it read.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { PartyID } from "../Ids.js"
import type { PartyRecord } from "../party/Party.js"

/** @since 0.1.0 @category tags */
export class PartyRepository extends Context.Tag("kassa/PartyRepository")<PartyRepository, {
  readonly findById: (id: PartyID) => Effect.Effect<Option.Option<PartyRecord>>
  readonly insert: (party: PartyRecord) => Effect.Effect<void>
  /** Writes `party` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (party: PartyRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}

/**
 * Storage of withdrawal destinations. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { DestinationFilter, DestinationRecord } from "../destination/Destination.js"
import type { PageRequest } from "../Page.js"

/** @since 0.1.0 @category tags */
export class DestinationRepository extends Context.Tag("kassa/DestinationRepository")<DestinationRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<DestinationRecord>>
  /** In creation order, `limit + 1` at most. */
  readonly list: (filter: DestinationFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<DestinationRecord>>
  readonly insert: (destination: DestinationRecord) => Effect.Effect<void>
  /** Writes the status, blocking and version if the stored version is still `expectedVersion`. */
  readonly update: (destination: DestinationRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}

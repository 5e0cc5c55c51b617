/**
 * Storage of wallet identities and their challenges. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ChallengeRecord } from "../identity/Challenge.js"
import type { IdentityFilter, IdentityRecord } from "../identity/Identity.js"
import type { PageRequest } from "../Page.js"

/** @since 0.1.0 @category tags */
export class IdentityRepository extends Context.Tag("kassa/IdentityRepository")<IdentityRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<IdentityRecord>>
  /** In creation order, `limit + 1` at most (the page tells whether more follow). */
  readonly list: (filter: IdentityFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<IdentityRecord>>
  readonly insert: (identity: IdentityRecord) => Effect.Effect<void>
  /** Writes `identity` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (identity: IdentityRecord, expectedVersion: number) => Effect.Effect<boolean>
  readonly findChallenge: (identityID: string, id: string) => Effect.Effect<Option.Option<ChallengeRecord>>
  /** The identity's challenges in creation order. */
  readonly challengesOf: (identityID: string) => Effect.Effect<ReadonlyArray<ChallengeRecord>>
  readonly insertChallenge: (challenge: ChallengeRecord) => Effect.Effect<void>
  readonly updateChallenge: (challenge: ChallengeRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}

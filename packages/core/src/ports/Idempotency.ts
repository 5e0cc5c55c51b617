/**
 * Idempotency by `externalID`: per party, namespace and operation, an external id names one
 * object and the parameters it was created with.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export interface IdempotencyKey {
  readonly partyID: string
  /**
   * Who sent the externalID and may find the object by it: `PARTY_NAMESPACE` for the party's
   * API keys, the resource an access token opens for that token (see `Principal.namespaceOf`).
   */
  readonly namespace: string
  readonly operation: string
  readonly externalID: string
}

/** The namespace of the party's own externalIDs, those sent with its API keys. @since 0.1.0 */
export const PARTY_NAMESPACE = "party"

/** @since 0.1.0 @category models */
export interface IdempotencyRecord {
  readonly entityID: string
  readonly fingerprint: string
}

/** @since 0.1.0 @category tags */
export class Idempotency extends Context.Tag("kassa/Idempotency")<Idempotency, {
  readonly find: (key: IdempotencyKey) => Effect.Effect<Option.Option<IdempotencyRecord>>
  /**
   * Records the key inside the command's transaction. When another command recorded it first,
   * answers that record instead (the caller then returns the original or a conflict).
   */
  readonly claim: (key: IdempotencyKey, record: IdempotencyRecord) => Effect.Effect<Option.Option<IdempotencyRecord>>
}>() {}

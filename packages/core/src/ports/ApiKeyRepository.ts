/**
 * The register of issued API keys (by `jti`), so a key can be revoked.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export interface ApiKeyRecord {
  readonly id: string
  readonly partyID: string
  readonly kind: "api-key" | "operator"
  readonly createdAt: Date
  readonly revokedAt: Date | undefined
}

/** @since 0.1.0 @category tags */
export class ApiKeyRepository extends Context.Tag("kassa/ApiKeyRepository")<ApiKeyRepository, {
  readonly insert: (key: ApiKeyRecord) => Effect.Effect<void>
  readonly findById: (id: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
  readonly listByParty: (partyID: string) => Effect.Effect<ReadonlyArray<ApiKeyRecord>>
  /** Marks the key revoked; answers whether a live key of that party was found. */
  readonly revoke: (partyID: string, id: string, at: Date) => Effect.Effect<boolean>
}>() {}

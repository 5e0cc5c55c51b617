/**
 * Storage of the operator's changes to the wallet providers' terms: the payment systems a
 * provider no longer pays out to.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @since 0.1.0 @category tags */
export class ProviderTermsRepository extends Context.Tag("kassa/ProviderTermsRepository")<ProviderTermsRepository, {
  /** The payment systems the operator forbade for the provider. */
  readonly forbidden: (providerID: string) => Effect.Effect<ReadonlyArray<string>>
  readonly setForbidden: (providerID: string, paymentSystem: string, forbidden: boolean) => Effect.Effect<void>
}>() {}

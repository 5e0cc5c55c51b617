/**
 * `ProviderTermsRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ProviderTermsRepository } from "../ports/ProviderTermsRepository.js"
import { key, MemoryStore } from "./MemoryStore.js"

interface Forbidden {
  readonly providerID: string
  readonly paymentSystem: string
}

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<ProviderTermsRepository, never, MemoryStore> = Layer.effect(
  ProviderTermsRepository,
  Effect.map(MemoryStore, (store) => {
    const forbidden = store.table<Forbidden>("provider_forbidden_payment_systems")
    return {
      forbidden: (providerID) =>
        Effect.map(forbidden.values, (rows) => rows.filter((r) => r.providerID === providerID).map((r) => r.paymentSystem)),
      setForbidden: (providerID, paymentSystem, isForbidden) =>
        isForbidden
          ? forbidden.set(key(providerID, paymentSystem), { providerID, paymentSystem })
          : forbidden.delete(key(providerID, paymentSystem))
    }
  })
)

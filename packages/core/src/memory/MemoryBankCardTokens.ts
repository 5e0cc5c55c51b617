/**
 * `BankCardTokenRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type BankCardTokenRecord, BankCardTokenRepository } from "../ports/BankCardTokenRepository.js"
import { MemoryStore } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<BankCardTokenRepository, never, MemoryStore> = Layer.effect(
  BankCardTokenRepository,
  Effect.map(MemoryStore, (store) => {
    const tokens = store.table<BankCardTokenRecord>("bank_card_tokens")
    return {
      insert: (r) => tokens.insert(r.token, r),
      findByToken: (token) => tokens.get(token)
    }
  })
)

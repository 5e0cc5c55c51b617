/**
 * A party's webhook key pair, made with its first webhook (payments or wallet: both sign with
 * it), and new pairs for rotation.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Ids } from "../ports/Ids.js"
import { WebhookKeyRepository } from "../ports/WebhookKeyRepository.js"
import { WebhookKeys } from "../ports/WebhookKeys.js"
import type { PartyWebhookKey } from "./WebhookKey.js"

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const keys = yield* WebhookKeys
  const partyKeys = yield* WebhookKeyRepository
  const ids = yield* Ids

  /** A new key pair for the party, not stored. */
  const newKey = (partyID: string) =>
    Effect.gen(function*() {
      const generated = yield* keys.generate
      const key: PartyWebhookKey = {
        id: yield* ids.next,
        partyID,
        publicKey: generated.publicKeyPem,
        privateKeyRef: generated.privateKeyRef,
        createdAt: new Date(yield* Clock.currentTimeMillis)
      }
      return key
    })

  /** The party's current key pair, made and stored if it has none (generating one costs tens of milliseconds). */
  const current = (partyID: string) =>
    Effect.flatMap(partyKeys.current(partyID), Option.match({
      onSome: Effect.succeed,
      onNone: () => Effect.flatMap(newKey(partyID), partyKeys.insertIfAbsent)
    }))

  return { newKey, current } as const
})

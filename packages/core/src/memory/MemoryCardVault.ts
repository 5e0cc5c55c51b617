/**
 * `CardVault` in memory. Card data and session secrets are held `Redacted`: a log line, an
 * inspection or a JSON rendering of the store shows `<redacted>`, never a number or a CVV.
 * Sessions expire on Effect's `Clock`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Card from "../payment/Card.js"
import { type CardData, CardVault, type SessionSecret, type StoredCard } from "../ports/CardVault.js"
import { random } from "./MemoryIds.js"
import { MemoryStore } from "./MemoryStore.js"

/** As long as the SQL vault's tokens and session ids. */
const TOKEN_LENGTH = 24

interface StoredEntry {
  readonly token: string
  readonly card: Redacted.Redacted<CardData>
}

interface StoredSession {
  readonly id: string
  readonly secret: Redacted.Redacted<SessionSecret>
  readonly expiresAt: number
}

const storedCard = (token: string, cardNumber: string): StoredCard => {
  const { bin, last4 } = Card.mask(cardNumber)
  return { token, bin, last4 }
}

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<CardVault, never, MemoryStore> = Layer.effect(
  CardVault,
  Effect.map(MemoryStore, (store) => {
    const cards = store.table<StoredEntry>("vault_cards")
    const sessions = store.table<StoredSession>("vault_sessions")

    /** The same number always gets the same token; a reissued card (new expiry, holder) replaces the stored one. */
    const putCard = (card: CardData) =>
      store.transaction(Effect.gen(function*() {
        const found = (yield* cards.values).find((c) => Redacted.value(c.card).cardNumber === card.cardNumber)
        const token = found?.token ?? (yield* random(TOKEN_LENGTH))
        yield* cards.set(token, { token, card: Redacted.make<CardData>({ ...card }) })
        return storedCard(token, card.cardNumber)
      }))

    const putSession = (secret: SessionSecret, expiresAt: Date) =>
      store.transaction(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        // the expired ones go as a new one comes, as on SQL
        for (const s of yield* sessions.values) if (s.expiresAt <= now) yield* sessions.delete(s.id)
        const id = yield* random(TOKEN_LENGTH)
        yield* sessions.insert(id, { id, secret: Redacted.make<SessionSecret>({ ...secret }), expiresAt: expiresAt.getTime() })
        return id
      }))

    const getSession = (id: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return Option.map(Option.filter(yield* sessions.get(id), (s) => s.expiresAt > now), (s) => Redacted.value(s.secret))
      })

    const getCard = (token: string) => Effect.map(cards.get(token), Option.map((c) => Redacted.value(c.card)))

    return {
      putCard,
      getCard,
      putSession,
      putCardAndSession: (card, secret, expiresAt) =>
        store.transaction(Effect.gen(function*() {
          const stored = yield* putCard(card)
          return { card: stored, session: yield* putSession(secret, expiresAt) }
        })),
      getSession,
      getCardAndSession: (token, session) =>
        Effect.gen(function*() {
          const card = yield* getCard(token)
          if (Option.isNone(card)) return Option.none()
          const secret = session === undefined ? Option.none<SessionSecret>() : yield* getSession(session)
          return Option.some({ card: card.value, secret })
        }),
      deleteSession: (id) => sessions.delete(id),
      // nothing is encrypted in memory: there is no data key to rotate
      rotateKey: Effect.void
    }
  })
)

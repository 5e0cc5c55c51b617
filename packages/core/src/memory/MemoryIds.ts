/**
 * `Ids` in memory: random identifiers from Effect's `Random` (a `TestRandom` makes them
 * repeatable), of the SQL adapters' length and alphabet.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { Ids } from "../ports/Ids.js"

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/**
 * A random identifier of `length` characters (62 possible each).
 *
 * @since 0.1.0
 */
export const random = (length: number): Effect.Effect<string> =>
  Effect.map(
    Effect.all(Array.from({ length }, () => Random.nextIntBetween(0, ALPHABET.length))),
    (digits) => digits.map((d) => ALPHABET[d]).join("")
  )

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Ids> = Layer.succeed(Ids, { next: random(16) })

/**
 * `Ids` from the operating system's random source: 16 base62 characters (about 95 bits).
 *
 * @since 0.1.0
 */
import { Ids } from "@kassa/core/ports/Ids"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomFillSync } from "node:crypto"

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Random bytes are drawn from the OS a pool at a time: one system call per ~100 ids.
const pool = Buffer.alloc(4096)
let used = pool.length
const nextByte = (): number => {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  return pool[used++]!
}

/**
 * `length` random bytes (at most the pool's 4096), from the same pool: a system call is most of
 * the cost of a few bytes (an IV, say) drawn one call each.
 *
 * @since 0.1.0
 */
export const bytes = (length: number): Buffer => {
  if (used + length > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  used += length
  return Buffer.from(pool.subarray(used - length, used))
}

/** @since 0.1.0 */
export const make = (length = 16): string => {
  let out = ""
  while (out.length < length) {
    const b = nextByte()
    if (b < 248) out += alphabet[b % 62] // 248 = 4 × 62: no modulo bias
  }
  return out
}

/** @since 0.1.0 @category layers */
export const layer = Layer.succeed(Ids, { next: Effect.sync(() => make()) })

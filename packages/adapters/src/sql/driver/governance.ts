/**
 * @internal
 * A short-lived cache of what governs a shop (the shop, its party and contract), read by almost
 * every merchant operation. A change by this process applies at once: any write to a shop or a
 * party empties every cache of the process. One by another process on the same database applies
 * within `TTL_MS`.
 */

const TTL_MS = 1_000
const MAX_ENTRIES = 10_000

let generation = 0

/** @internal The generation a read starts in: what it finds is stale if a write ends meanwhile. */
export const current = (): number => generation

/** @internal Called after every write to shops and parties. */
export const invalidate = (): void => {
  generation++
}

/** @internal */
export interface Cache<A> {
  readonly get: (key: string) => A | undefined
  readonly set: (key: string, value: A, readIn: number) => void
}

/** @internal A cache for one store (one layer instance). */
export const make = <A>(): Cache<A> => {
  const entries = new Map<string, { readonly value: A; readonly generation: number; readonly until: number }>()
  return {
    get: (key) => {
      const hit = entries.get(key)
      if (hit === undefined) return undefined
      if (hit.generation !== generation || hit.until <= performance.now()) {
        entries.delete(key)
        return undefined
      }
      return hit.value
    },
    set: (key, value, readIn) => {
      if (readIn !== generation) return
      if (entries.size >= MAX_ENTRIES) entries.clear()
      entries.set(key, { value, generation, until: performance.now() + TTL_MS })
    }
  }
}

/**
 * @internal
 * A short-lived cache of what governs a shop (the shop, its party and contract), read by almost
 * every merchant operation, one per database (`SqlDriver`). A change through it applies at once:
 * any write to a shop or a party empties every cache of the driver. One by another process on the
 * same database applies within `TTL_MS` (real time: the cache stands for the database, whatever
 * clock the domain runs on).
 */
const TTL_MS = 1_000
const MAX_ENTRIES = 10_000

/** @internal */
export interface Cache<A> {
  readonly get: (key: string) => A | undefined
  /** Keeps `value`, read in generation `readIn`, unless a write ended since. */
  readonly set: (key: string, value: A, readIn: number) => void
}

/** @internal */
export interface Governance {
  /** The generation a read starts in: what it finds is stale if a write ends meanwhile. */
  readonly current: () => number
  /** Called after every write to shops and parties. */
  readonly invalidate: () => void
  /** A cache for one store. */
  readonly make: <A>() => Cache<A>
}

/** @internal A governance of its own: its generation counts the writes of one driver. */
export const make = (): Governance => {
  let generation = 0
  return {
    current: () => generation,
    invalidate: () => {
      generation++
    },
    make: <A>(): Cache<A> => {
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
  }
}

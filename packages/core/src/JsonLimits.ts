/**
 * What free-form JSON taken as input may hold (`metadata`, and at the HTTP edge a whole body):
 * nesting to a bounded depth, and no NUL character (PostgreSQL's text and jsonb cannot store
 * one). The walk keeps its own stack instead of recursing, so a hostile value is refused before
 * anything recursive (canonical JSON, encoding, a driver) meets it.
 *
 * @since 0.1.0
 */

/** How deep `metadata` may nest: `{}` is 1 level, `{"a": {}}` 2. @since 0.1.0 */
export const maxDepth = 32

/** @since 0.1.0 @category models */
export interface Violation {
  /** Where: the keys and indexes from the value's root. */
  readonly path: ReadonlyArray<string | number>
  readonly reason: "depth" | "nul"
}

interface Frame {
  readonly value: object
  readonly depth: number
  readonly key: string | number
  readonly parent: Frame | undefined
}

const pathOf = (frame: Frame | undefined): Array<string | number> => {
  const path: Array<string | number> = []
  for (let f = frame; f !== undefined && f.parent !== undefined; f = f.parent) path.push(f.key)
  return path.reverse()
}

const hasNul = (s: string) => s.includes("\u0000")

/** The walk that tells where: a frame per object, so a violation's path can be read back. */
const locate = (value: object, depthLimit: number): Violation | undefined => {
  const stack: Array<Frame> = [{ value, depth: 1, key: "", parent: undefined }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.depth > depthLimit) return { path: pathOf(frame), reason: "depth" }
    const entries: Iterable<[string | number, unknown]> = Array.isArray(frame.value)
      ? frame.value.entries()
      : Object.entries(frame.value)
    for (const [key, child] of entries) {
      if (typeof key === "string" && hasNul(key)) return { path: pathOf(frame), reason: "nul" }
      if (typeof child === "string") {
        if (hasNul(child)) return { path: [...pathOf(frame), key], reason: "nul" }
      } else if (child !== null && typeof child === "object") {
        stack.push({ value: child, depth: frame.depth + 1, key, parent: frame })
      }
    }
  }
  return undefined
}

/**
 * Whether `value` holds no violation, walked without frames or entry pairs: a value within the
 * limits (nearly every one) is checked on every decode and encode of `metadata`, so only a value
 * that fails pays for `locate`'s paths.
 */
const within = (value: object, depthLimit: number): boolean => {
  const values: Array<object> = [value]
  const depths: Array<number> = [1]
  while (values.length > 0) {
    const node = values.pop()!
    const depth = depths.pop()!
    if (depth > depthLimit) return false
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i]
        if (typeof child === "string") {
          if (hasNul(child)) return false
        } else if (child !== null && typeof child === "object") {
          values.push(child)
          depths.push(depth + 1)
        }
      }
    } else {
      const keys = Object.keys(node)
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        if (hasNul(key)) return false
        const child: unknown = (node as Record<string, unknown>)[key]
        if (typeof child === "string") {
          if (hasNul(child)) return false
        } else if (child !== null && typeof child === "object") {
          values.push(child)
          depths.push(depth + 1)
        }
      }
    }
  }
  return true
}

/**
 * The first violation found in a JSON value, or `undefined` when it has none.
 *
 * @since 0.1.0
 */
export const check = (value: unknown, depthLimit: number = maxDepth): Violation | undefined => {
  if (typeof value === "string") return hasNul(value) ? { path: [], reason: "nul" } : undefined
  if (value === null || typeof value !== "object") return undefined
  return within(value, depthLimit) ? undefined : locate(value, depthLimit)
}

/**
 * What is wrong, in words.
 *
 * @since 0.1.0
 */
export const describe = (violation: Violation, depthLimit: number = maxDepth): string =>
  violation.reason === "depth"
    ? `nested deeper than ${depthLimit} levels`
    : "contains a NUL character (\\u0000)"

/** A path as dotted text, its first three steps only (a path past the depth limit is long). @since 0.1.0 */
export const pathText = (path: ReadonlyArray<string | number>): string =>
  path.slice(0, 3).join(".") + (path.length > 3 ? ".…" : "")

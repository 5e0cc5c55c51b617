/** @internal JSON with object keys sorted at every level: equal values give equal text. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

/** @internal The canonical texts of a list's elements, sorted: a list compared as a set. */
export const canonicalSet = (values: ReadonlyArray<unknown> | undefined): ReadonlyArray<string> | null =>
  values === undefined ? null : values.map(canonicalJson).sort()

/**
 * @internal
 * Columns read by hand, for the hot rows: a row of Kassa's own tables, written by Kassa, maps to
 * its record without a schema's decoding. A column (or a field of a JSON column) of another shape
 * throws, naming it but never its value, which may be anything a row holds: a defect once inside
 * an effect, as a row that does not decode by its schema is.
 */
import * as Predicate from "effect/Predicate"

/** A row as the driver answers it, or a JSON column's document. */
export type Row = { readonly [column: string]: unknown }

/** A plain object (not an array). */
export const isObject = (u: unknown): u is Row => Predicate.isRecord(u)

/** An array. */
export const isArray = (u: unknown): u is ReadonlyArray<unknown> => Array.isArray(u)

const bad = (column: string, expected: string): never => {
  throw new Error(`a stored row's ${column} is not ${expected}`)
}

/** A row as the driver answers it. */
export const row = (u: unknown): Row => {
  if (isObject(u)) return u
  throw new Error("a stored row is not an object")
}

/** The column's value when `is` takes it. */
export const field = <A>(row: Row, column: string, is: (u: unknown) => u is A, expected: string): A => {
  const value = row[column]
  return is(value) ? value : bad(column, expected)
}

/** The column's value when `is` takes it; `undefined` for NULL or a field left out. */
export const optionalField = <A>(row: Row, column: string, is: (u: unknown) => u is A, expected: string): A | undefined => {
  const value = row[column]
  return value === null || value === undefined ? undefined : is(value) ? value : bad(column, expected)
}

/** A TEXT column. */
export const text = (row: Row, column: string): string => field(row, column, Predicate.isString, "text")

/** A TEXT column that may be NULL. */
export const optionalText = (row: Row, column: string): string | undefined =>
  optionalField(row, column, Predicate.isString, "text")

/** An INTEGER / BIGINT column: SQLite answers a number, PostgreSQL a BIGINT as text. */
export const int = (row: Row, column: string): number => {
  const value = row[column]
  if (typeof value === "number") return value
  if (typeof value === "string" && value !== "") {
    const n = Number(value)
    if (!Number.isNaN(n)) return n
  }
  return bad(column, "an integer")
}

/** Milliseconds since the epoch in an INTEGER / BIGINT column, as a `Date`. */
export const date = (row: Row, column: string): Date => new Date(int(row, column))

/** A TEXT column holding one of `values`. */
export const literal = <const L extends string>(values: ReadonlyArray<L>) => {
  const known = new Set<string>(values)
  const expected = `one of ${values.join(", ")}`
  return (row: Row, column: string): L => field(row, column, (u): u is L => typeof u === "string" && known.has(u), expected)
}

/** A JSON object kept in a TEXT column. */
export const json = (row: Row, column: string): Row => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text(row, column))
  } catch {
    // (not the parser's message: it quotes the text)
    return bad(column, "JSON")
  }
  return isObject(parsed) ? parsed : bad(column, "a JSON object")
}

/** A column (or a JSON field) read by `decode`, a schema's decoder, when it takes it. */
export const decoded = <A>(row: Row, column: string, decode: (u: unknown) => A, expected: string): A => {
  try {
    return decode(row[column])
  } catch {
    // (not the decoder's message: it quotes the value)
    return bad(column, expected)
  }
}

/** A date `JSON.stringify` wrote (ISO text) in a JSON document, absent or NULL when left out. */
export const optionalJsonDate = (row: Row, column: string): Date | undefined => {
  const text = optionalField(row, column, Predicate.isString, "a date")
  if (text === undefined) return undefined
  const date = new Date(text)
  return Number.isNaN(date.getTime()) ? bad(column, "a date") : date
}

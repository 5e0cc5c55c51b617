/** @internal Column codecs shared by every repository: the same row reads both dialects. */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** An INTEGER / BIGINT column: SQLite answers a number, PostgreSQL a BIGINT as text. */
export const IntColumn = Schema.Union(Schema.Number, Schema.NumberFromString)

/** Milliseconds since the epoch in an INTEGER / BIGINT column, as a `Date`. */
export const DateColumn = Schema.transform(IntColumn, Schema.DateFromSelf, {
  strict: true,
  decode: (ms) => new Date(ms),
  encode: (d) => d.getTime()
})

/** A flag column: SQLite answers 0 / 1, PostgreSQL an INTEGER or a BOOLEAN. */
export const BoolColumn = Schema.transform(Schema.Union(Schema.Boolean, Schema.Number, Schema.String), Schema.Boolean, {
  strict: true,
  decode: (v) => v === true || v === 1 || v === "1" || v === "t",
  encode: (b) => b
})

/** A TEXT column that may be NULL: the field is absent when it is. */
export const OptionalText = Schema.optionalWith(Schema.String, { nullable: true, exact: true })

/** A JSON document kept in a TEXT column. */
export const JsonColumn = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.parseJson(schema)

/** Milliseconds since the epoch that may be NULL: the field is absent when it is. */
export const OptionalDate = Schema.optionalWith(DateColumn, { nullable: true, exact: true })

/** A date inside a JSON column, as `JSON.stringify` wrote it (ISO text). */
export const JsonDate = Schema.Date

/** Metadata as stored: checked against the interface's limits when it came in. */
export const StoredMetadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * Reads rows with `row` and maps each to its record with `toRecord`. A row that does not decode
 * throws, a defect once inside an effect: the tables are Kassa's own.
 */
export const reader = <A, I, B>(row: Schema.Schema<A, I>, toRecord: (row: A) => B) => {
  const decode = Schema.decodeUnknownSync(row)
  const one = (r: unknown): B => toRecord(decode(r))
  return {
    one,
    first: (rows: ReadonlyArray<unknown>): Option.Option<B> => (rows.length === 0 ? Option.none() : Option.some(one(rows[0]))),
    all: (rows: ReadonlyArray<unknown>): Array<B> => rows.map(one)
  }
}

/** The count `n` a `SELECT COUNT(*) AS n` answers (0 for no row). */
export const countOf = (rows: ReadonlyArray<unknown>): number => (rows.length === 0 ? 0 : decodeCount(rows[0]).n)

const decodeCount = Schema.decodeUnknownSync(Schema.Struct({ n: IntColumn }))

export const flag = (b: boolean): number => (b ? 1 : 0)

export const optMs = (d: Date | undefined): number | null => (d === undefined ? null : d.getTime())

export const toJson = (v: unknown): string => JSON.stringify(v)
export const optToJson = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v))

/** Copies `key: value` only when the value is present (for `exactOptionalPropertyTypes`). */
export const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

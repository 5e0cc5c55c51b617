import { assert, describe, it } from "@effect/vitest"
import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { KassaApi } from "@kassa/http/api/KassaApi"
import * as Encoder from "@kassa/http/server/lean/Encoder"
import * as LeanRouter from "@kassa/http/server/lean/Router"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

/**
 * The lean path's encoder answers what `Schema.encode` answers, byte for byte, on values
 * generated from each served operation's answer schema; it only leaves out the checks.
 */

const successes = (): Map<string, Schema.Schema<unknown, unknown, never>> => {
  const found = new Map<string, Schema.Schema<unknown, unknown, never>>()
  HttpApi.reflect(KassaApi as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
      found.set(e.name, e.successSchema as Schema.Schema<unknown, unknown, never>)
    }
  })
  return found
}

const years = 9000 * 365 * 86_400_000

/** `value` with its dates moved into years 970–9969, which RFC 3339 text can say. */
const writableDates = (value: unknown): unknown => {
  if (value instanceof Date) return new Date(((value.getTime() % years) + years) % years - 1000 * 365 * 86_400_000)
  if (Array.isArray(value)) return value.map(writableDates)
  if (value === null || typeof value !== "object") return value
  const out = {}
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: writableDates((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** What an encoded value holds, own keys in order, with the kind of each leaf (a `Date` would write as its text too). */
const shape = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(shape)
  if (value instanceof Date) return ["Date", value.getTime()]
  if (value === null || typeof value !== "object") return [typeof value, value]
  return Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])])
}

/**
 * Compares on the values `Schema.encode` takes: a schema's arbitrary also makes values only its
 * encoded side refuses (a date in year 10000 has no RFC 3339 text), which the domain never makes.
 */
const sameAsSchema = <A, I>(schema: Schema.Schema<A, I, never>, runs: number) => {
  const fast = Encoder.make(schema)
  const slow = Schema.encodeEither(schema)
  let compared = 0
  FastCheck.assert(
    FastCheck.property(Arbitrary.make(schema).map(writableDates), (value) => {
      const expected = slow(value as A)
      if (Either.isLeft(expected)) return
      const actual = fast(value as A)
      assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected.right))
      assert.deepStrictEqual(shape(actual), shape(expected.right))
      compared++
    }),
    { numRuns: runs, seed: 28 }
  )
  assert.isAbove(compared, runs / 2)
}

describe("lean encoder", () => {
  const contract = successes()
  for (const name of LeanRouter.operations) {
    it(`encodes ${name}'s answers as Schema.encode does`, () => {
      const schema = contract.get(name)
      assert.isDefined(schema)
      sameAsSchema(schema!, 200)
    })
  }

  it("encodes what it does not compile (renamed keys, defaults) through Schema", () => {
    const schema = Schema.Struct({
      a: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("b")),
      n: Schema.optionalWith(Schema.NumberFromString, { default: () => 1 }),
      tags: Schema.Array(Schema.Union(Schema.Struct({ kind: Schema.Literal("x"), at: Schema.DateFromString }), Schema.NumberFromString))
    })
    sameAsSchema(schema, 100)
    assert.deepStrictEqual(Encoder.make(schema)({ a: "v", n: 2, tags: [3, { kind: "x", at: new Date(0) }] }), {
      b: "v",
      n: "2",
      tags: ["3", { kind: "x", at: "1970-01-01T00:00:00.000Z" }]
    })
  })

  it("leaves out excess fields, keeps the schema's order and skips the checks", () => {
    const schema = Schema.Struct({
      b: Schema.String.pipe(Schema.maxLength(2)),
      a: Schema.optional(Schema.Number),
      rest: Schema.Record({ key: Schema.String, value: Schema.Unknown })
    })
    const encode = Encoder.make(schema)
    const value = { a: 1, extra: true, rest: { z: 1, y: [2] }, b: "too long" } as unknown as typeof schema.Type
    assert.strictEqual(JSON.stringify(encode(value)), `{"b":"too long","a":1,"rest":{"z":1,"y":[2]}}`)
    assert.throws(() => Schema.encodeSync(schema)(value))
  })

  it("chooses a union's member by its discriminating literal, and throws on a value no member takes", () => {
    const schema = Schema.Union(
      Schema.Struct({ type: Schema.Literal("a"), at: Schema.DateFromString }),
      Schema.Struct({ type: Schema.Literal("b", "c"), n: Schema.NumberFromString })
    )
    const encode = Encoder.make(schema)
    assert.deepStrictEqual(encode({ type: "c", n: 5 }), { type: "c", n: "5" })
    assert.deepStrictEqual(encode({ type: "a", at: new Date(1000) }), { type: "a", at: "1970-01-01T00:00:01.000Z" })
    assert.throws(() => encode({ type: "d", n: 5 } as never))
  })

  it("compiles a schema once for the process: asked again, it answers the encoder it compiled", () => {
    const Answer = Schema.Struct({ value: Schema.NumberFromString, at: Schema.DateFromString, id: Schema.String })
    const encode = Encoder.make(Answer)
    assert.strictEqual(Encoder.make(Answer), encode)
    assert.deepStrictEqual(encode({ value: 5, at: new Date(1000), id: "x" }), { value: "5", at: "1970-01-01T00:00:01.000Z", id: "x" })
  })
})

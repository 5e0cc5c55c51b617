import { assert, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

// The suite's deep equality (packages/testing/src/assertions.ts) tells Options and Eithers apart.
it("deepStrictEqual tells none from some, and some values apart", () => {
  assert.throws(() => assert.deepStrictEqual(Option.none(), Option.some({ a: 1 }) as Option.Option<{ a: number }>))
  assert.throws(() => assert.deepStrictEqual(Option.some({ a: 2 }), Option.some({ a: 1 })))
  assert.throws(() => assert.deepStrictEqual([Option.none()], [Option.some(1)] as Array<Option.Option<number>>))
  assert.throws(() => assert.deepStrictEqual({ x: Option.none() }, { x: Option.some(1) } as { x: Option.Option<number> }))
  assert.deepStrictEqual(Option.some({ a: [1, Option.some(2)] }), Option.some({ a: [1, Option.some(2)] }))
  assert.deepStrictEqual(Option.none(), Option.none())
})

it("deepStrictEqual tells Eithers apart", () => {
  assert.throws(() => assert.deepStrictEqual(Either.left(1) as Either.Either<number, number>, Either.right(1)))
  assert.throws(() => assert.deepStrictEqual(Either.right(2), Either.right(1)))
  assert.deepStrictEqual(Either.right({ a: 1 }), Either.right({ a: 1 }))
})

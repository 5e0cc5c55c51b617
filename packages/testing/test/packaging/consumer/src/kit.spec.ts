// The testing kit imports vitest, so it loads inside a vitest run: this file is that run.
import { assert, it } from "@effect/vitest"
import { Fixtures, TestKassa } from "@kassa/testing"

it("@kassa/testing loads under vitest from its tarball", () => {
  assert.isObject(Fixtures.merchant())
  assert.isFunction(TestKassa.layer)
})

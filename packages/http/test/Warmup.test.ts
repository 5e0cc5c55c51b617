import { assert, describe, it } from "@effect/vitest"
import * as HttpApi from "@effect/platform/HttpApi"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import { KassaApi } from "../src/api/KassaApi.js"
import * as Encoder from "../src/server/lean/Encoder.js"
import * as Warmup from "../src/server/Warmup.js"

/**
 * What the startup snapshot's build runs (`Snapshot.ts`): the contract's parsers compiled and
 * Effect's layer builder run once. Nothing of it touches a store; the snapshot's own tests
 * (`Snapshot.test.ts`) start servers from it on both.
 */

describe("the snapshot's warm-up", () => {
  it("compiles a decoder for each endpoint's path, query, headers and body and an encoder for its answers and errors", () => {
    let expected = 1 // the API's errors
    const groups = new Set<string>()
    HttpApi.reflect(KassaApi, {
      onGroup: ({ group }) => void groups.add(group.identifier),
      onEndpoint: ({ endpoint: e }) => {
        expected += [e.pathSchema, e.urlParamsSchema, e.headersSchema, e.payloadSchema].filter(Option.isSome).length + 2
      }
    })
    expected += groups.size
    assert.isAbove(groups.size, 20)
    assert.strictEqual(Warmup.compileParsers(KassaApi), expected)
  })

  it("compiles the lean router's encoder of each endpoint's answer, which the router then finds compiled", () => {
    const encoders = Warmup.compileEncoders(KassaApi)
    const successes: Array<Schema.Schema<unknown, unknown, never>> = []
    HttpApi.reflect(KassaApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint: e }) => void successes.push(e.successSchema as Schema.Schema<unknown, unknown, never>)
    })
    assert.isAbove(successes.length, 50)
    assert.strictEqual(encoders.length, successes.length)
    for (const [i, schema] of successes.entries()) assert.strictEqual(Encoder.make(schema), encoders[i])
  })

  it("builds and closes its layer graph", async () => {
    assert.deepStrictEqual(await Warmup.runLayers(2), [[1, 2, 3], [1, 2, 3]])
  })
})

describe("the snapshot's warm-up of the settings", () => {
  it("reads them from an environment with every variable set, and from an empty one", () => {
    const [every, none] = Warmup.readSettings()
    assert.strictEqual(every!.database._tag, "pg")
    assert.strictEqual(every!.settings?.publicUrl, "https://kassa.example")
    assert.deepStrictEqual(every!.metrics, { token: "token", address: { host: "127.0.0.1", port: 9464 } })
    assert.strictEqual(none!.port, 8022)
    assert.strictEqual(none!.database._tag, "sqlite")
  })
})

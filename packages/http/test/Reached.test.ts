import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Database, SqlRequestReplays, Workers } from "@kassa/adapters"
import { Ledger } from "@kassa/core/ports/Ledger"
import * as Http from "@kassa/http/server/Http"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Forks } from "../../adapters/test/support/Supervisors.js"

describe.each(Dialects.dialects())("what a request reaches of Kassa (%s)", (dialect) => {
  it.scoped("core's services and the five storage services it reads, Kassa's own, built with three fibers", () =>
    Effect.gen(function*() {
      const kassa = yield* Layer.build(TestKassa.layer(dialect))
      const forks = new Forks()
      const reached = yield* Layer.build(Layer.provide(Http.reached, Layer.succeedContext(kassa))).pipe(Effect.supervised(forks))
      for (const tag of [Ledger, SqlClient.SqlClient, Workers.Workers, Database.PoolStats, SqlRequestReplays.RequestReplays]) {
        assert.strictEqual(Context.unsafeGet(reached, tag as Context.Tag<any, any>), Context.unsafeGet(kassa, tag as Context.Tag<any, any>), tag.key)
      }
      // core's services and those five, not the ports behind the services
      assert.isBelow(reached.unsafeMap.size, kassa.unsafeMap.size)
      // the services' layer and the five's in one layer, merged: three fibers (seven with a layer a service)
      assert.strictEqual(yield* forks.value, 3)
    }), 60_000)
})

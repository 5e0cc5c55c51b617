/**
 * The backends the storage contract suite runs on: core's memory adapters, SQLite and
 * PostgreSQL, each as the whole Kassa layer (the ports and the services that make realistic
 * records), with a timer scheduler of the test's own that fires only when told to.
 */
import { Kassa, SqlTimers } from "@kassa/adapters"
import * as SqlDeliveryQueue from "@kassa/adapters/webhooks/SqlDeliveryQueue"
import * as SqlInvoiceHistories from "@kassa/adapters/webhooks/SqlInvoiceHistories"
import * as SqlOutbox from "@kassa/adapters/webhooks/SqlOutbox"
import type * as MemoryPorts from "@kassa/core/memory/MemoryPorts"
import * as MemoryTimers from "@kassa/core/memory/MemoryTimers"
import type * as MemoryTransactions from "@kassa/core/memory/MemoryTransactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export type Backend = Dialects.Backend

/** Every backend of this run. */
export const backends = Dialects.backends

/** The storage ports every backend provides (the memory ones but its scheduler and background watch). */
export type Ports = Exclude<
  Layer.Layer.Success<ReturnType<typeof MemoryPorts.storage>>,
  MemoryTimers.MemoryScheduler | MemoryTransactions.MemoryBackground
>

/** The webhook dispatcher is left out: it would take the outbox entries and queued notifications the tests read. */
const memoryKassa = () => Kassa.layerMemory({ webhooks: { run: false } })

const sqlKassa = (dialect: Dialects.Dialect) =>
  Layer.provideMerge(
    Layer.mergeAll(SqlDeliveryQueue.layer, SqlOutbox.layer, SqlInvoiceHistories.layer),
    TestKassa.layer(dialect, { webhooks: { run: false } })
  )

/** The whole domain on `backend`. */
export const kassa = (backend: Backend): Layer.Layer<Kassa.Services | Ports> =>
  backend === "memory" ? memoryKassa() : sqlKassa(backend)

/** Runs the due timers of the `Timers` beside it, on demand. */
export class ManualScheduler extends Context.Tag("test/ManualScheduler")<ManualScheduler, {
  readonly runDue: Effect.Effect<number>
}>() {}

/**
 * `kassa(backend)` whose `Timers` are of their own (handlers registered on them fire nowhere
 * else) on the backend's storage, with a lease of a second, fired only by
 * `ManualScheduler.runDue`.
 */
export const withManualTimers = (backend: Backend): Layer.Layer<Kassa.Services | Ports | ManualScheduler> =>
  backend === "memory"
    ? Layer.provideMerge(
      MemoryTimers.layerMemory({ lease: "1 second", run: false }).pipe(
        Layer.map((ctx) => Context.add(ctx, ManualScheduler, Context.get(ctx, MemoryTimers.MemoryScheduler)))
      ),
      memoryKassa()
    )
    : Layer.provideMerge(
      SqlTimers.layer({ lease: "1 second", run: false }).pipe(
        Layer.map((ctx) => Context.add(ctx, ManualScheduler, Context.get(ctx, SqlTimers.Scheduler)))
      ),
      sqlKassa(backend)
    )

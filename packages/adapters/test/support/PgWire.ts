import * as Effect from "effect/Effect"
import type * as net from "node:net"
import { wireProxy } from "../../../testing/bench/pgWire.mjs"

/**
 * What a PostgreSQL client sent, seen on the wire: every round trip (a simple query, or the
 * statements of an extended one up to its `Sync`), each as its statements' texts.
 */
export interface Wire {
  /** The database's URL through the proxy. */
  readonly url: string
  /** The round trips sent since the last `reset`. */
  readonly trips: ReadonlyArray<ReadonlyArray<string>>
  /** The connection (numbered as they opened) of each of `trips`. */
  readonly connections: ReadonlyArray<number>
  readonly reset: () => void
}

/** A proxy in front of the PostgreSQL server of `url`, closed with the scope. */
export const through = (url: string) =>
  Effect.gen(function*() {
    const target = new URL(url)
    const trips: Array<ReadonlyArray<string>> = []
    const connections: Array<number> = []
    const server = wireProxy({ host: target.hostname, port: Number(target.port || 5432) }, (texts, connection) => {
      trips.push(texts)
      connections.push(connection)
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as net.AddressInfo).port)))
      }),
      () => Effect.sync(() => server.close())
    )
    const proxied = new URL(url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String(port)
    const wire: Wire = {
      url: proxied.toString(),
      trips,
      connections,
      reset: () => {
        trips.splice(0)
        connections.splice(0)
      }
    }
    return wire
  })

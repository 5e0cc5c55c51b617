import * as Effect from "effect/Effect"
import * as net from "node:net"

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

/** Reads the frontend messages of one connection, calling `trip` at each round trip. */
const reader = (trip: (texts: ReadonlyArray<string>) => void) => {
  const named = new Map<string, string>()
  let started = false
  let buffer = Buffer.alloc(0)
  let pending: Array<string> = []
  const cstring = (b: Buffer, at: number): [string, number] => {
    const end = b.indexOf(0, at)
    return [b.toString("utf8", at, end), end + 1]
  }
  return (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk])
    for (;;) {
      if (!started) {
        if (buffer.length < 4 || buffer.length < buffer.readInt32BE(0)) return
        buffer = buffer.subarray(buffer.readInt32BE(0))
        started = true
        continue
      }
      if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return
      const type = String.fromCharCode(buffer[0]!)
      const body = buffer.subarray(5, 1 + buffer.readInt32BE(1))
      buffer = buffer.subarray(1 + buffer.readInt32BE(1))
      if (type === "Q") trip(cstring(body, 0)[0].split(/;\s*/).filter((t) => t.trim() !== ""))
      else if (type === "P") {
        const [name, at] = cstring(body, 0)
        const [text] = cstring(body, at)
        if (name !== "") named.set(name, text)
        pending.push(text)
      } else if (type === "B") {
        const [name] = cstring(body, cstring(body, 0)[1])
        // a named statement run again is bound without a parse
        if (name !== "" && pending.at(-1) !== named.get(name)) pending.push(named.get(name) ?? name)
      } else if (type === "S") {
        trip(pending)
        pending = []
      }
    }
  }
}

/** A proxy in front of the PostgreSQL server of `url`, closed with the scope. */
export const through = (url: string) =>
  Effect.gen(function*() {
    const target = new URL(url)
    const trips: Array<ReadonlyArray<string>> = []
    const connections: Array<number> = []
    let opened = 0
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname)
      const connection = opened++
      const read = reader((texts) => {
        trips.push(texts)
        connections.push(connection)
      })
      client.on("data", (chunk) => {
        read(chunk)
        upstream.write(chunk)
      })
      upstream.on("data", (chunk) => client.write(chunk))
      client.on("close", () => upstream.destroy())
      upstream.on("close", () => client.destroy())
      client.on("error", () => upstream.destroy())
      upstream.on("error", () => client.destroy())
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

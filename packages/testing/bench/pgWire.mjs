/**
 * What a PostgreSQL client sends, read off the wire by a proxy in front of the server: every round
 * trip (a simple query, or the statements of an extended one up to its `Sync`), each as its
 * statements' texts (a prepared statement's by the Parse that named it). Used by
 * `flowRoundTrips.mjs` and the adapters' `RoundTrips.test.ts`.
 */
import * as net from "node:net"

/** Reads the frontend messages of one connection, calling `trip` with the texts of each round trip. */
export const frontendReader = (trip) => {
  const named = new Map()
  let started = false
  let buffer = Buffer.alloc(0)
  let pending = []
  const cstring = (b, at) => {
    const end = b.indexOf(0, at)
    return [b.toString("utf8", at, end), end + 1]
  }
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk])
    for (;;) {
      if (!started) {
        if (buffer.length < 4 || buffer.length < buffer.readInt32BE(0)) return
        buffer = buffer.subarray(buffer.readInt32BE(0))
        started = true
        continue
      }
      if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return
      const type = String.fromCharCode(buffer[0])
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

/**
 * A proxy (not yet listening) to the PostgreSQL server at `host:port` that tells `trip` each round
 * trip of every connection through it, with the connection's number (in the order they opened).
 */
export const wireProxy = ({ host, port }, trip) => {
  let opened = 0
  return net.createServer((client) => {
    const upstream = net.connect(port, host)
    const connection = opened++
    const read = frontendReader((texts) => trip(texts, connection))
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
}

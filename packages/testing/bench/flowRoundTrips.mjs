// Dev helper: every round trip Kassa makes to PostgreSQL during whole payment flows, one flow at a
// time, BEGIN, COMMIT, SET and LISTEN included. The server's connections go through a proxy here
// that reads the frontend protocol: a round trip is a simple query ('Q') or an extended one's Sync
// ('S'), named by its statements' texts (a prepared statement's by the Parse that named it). Each
// round trip is put under the request in flight when it was sent, or under the background work
// after that request. Prints the round trips per flow and, with `--texts`, each part's statements.
// node packages/testing/bench/flowRoundTrips.mjs [flows] [--texts]   (KASSA_BUNDLE as the helpers)
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { clientFor, createInvoice, idOf, instantPaymentBody, paymentResourceBody, requestId, statusOf } from "./scenarios.mjs"
import { freePort, startKassa, stopProcess } from "./server.mjs"

const flows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3)
const texts = process.argv.includes("--texts")
const psql = (command) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-Atqc", command]).toString()

let label = "start"
const trips = [] // { label, text }

const frontendReader = () => {
  const statements = new Map()
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
        if (buffer.length < 4) return
        const length = buffer.readInt32BE(0)
        if (buffer.length < length) return
        buffer = buffer.subarray(length)
        started = true
        continue
      }
      if (buffer.length < 5) return
      const type = String.fromCharCode(buffer[0])
      const length = buffer.readInt32BE(1)
      if (buffer.length < 1 + length) return
      const body = buffer.subarray(5, 1 + length)
      buffer = buffer.subarray(1 + length)
      if (type === "Q") trips.push({ label, text: cstring(body, 0)[0] })
      else if (type === "P") {
        const [name, at] = cstring(body, 0)
        const [text] = cstring(body, at)
        if (name !== "") statements.set(name, text)
        pending.push(text)
      } else if (type === "B") {
        const [, at] = cstring(body, 0)
        const [name, at2] = cstring(body, at)
        if (name !== "" && !pending.includes(statements.get(name))) pending.push(statements.get(name))
        if (process.env.BIND_PARAMS && (statements.get(name) ?? pending.at(-1) ?? "").includes(process.env.BIND_PARAMS)) {
          let i = at2
          const codes = body.readInt16BE(i)
          i += 2 + 2 * codes
          const n = body.readInt16BE(i)
          i += 2
          const values = []
          for (let k = 0; k < n; k++) {
            const len = body.readInt32BE(i)
            i += 4
            values.push(len < 0 ? null : body.toString("utf8", i, i + len))
            if (len > 0) i += len
          }
          console.log(`[${label}] params`, JSON.stringify(values))
        }
      } else if (type === "S") {
        trips.push({ label, text: pending.join(" ;; ") })
        pending = []
      }
    }
  }
}

const proxyPort = await freePort()
const proxy = net.createServer((client) => {
  const upstream = net.connect(5432, "127.0.0.1")
  const read = frontendReader()
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
await new Promise((resolve) => proxy.listen(proxyPort, "127.0.0.1", resolve))

const database = `kassa_roundtrips_${Date.now()}`
psql(`CREATE DATABASE ${database}`)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-roundtrips-"))
const server = await startKassa({
  name: "kassa-pg",
  dataDir: path.join(dir, "data"),
  databaseUrl: `postgres://postgres@127.0.0.1:${proxyPort}/${database}`,
  ...(process.env.KASSA_BUNDLE ? { script: path.resolve(process.env.KASSA_BUNDLE) } : {})
})
const client = clientFor(server, 1)
const { shopID } = server.credentials
const settle = () => new Promise((r) => setTimeout(r, 300))
const during = async (name, request) => {
  label = name
  const answer = await request()
  label = `after ${name}`
  return answer
}
await settle()
let counted = trips.length
const startTrips = counted
const perFlow = []
// the first flow opens the shop's ledger accounts and warms the caches: not counted
for (let i = -1; i < flows; i++) {
  if (i === 0) counted = trips.length
  const from = trips.length
  const inv = await during("createInvoice", () => createInvoice(client, shopID, i + 1))
  const invoiceID = idOf(inv.body)
  const res = await during("createPaymentResource", () =>
    client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() }))
  const pay = await during("createPayment", () =>
    client.request("POST", `/v2/processing/invoices/${invoiceID}/payments`, instantPaymentBody(JSON.parse(res.body)), {
      "x-request-id": requestId()
    }))
  const paymentID = idOf(pay.body)
  let status = statusOf(pay.body)
  let polls = 0
  while (status !== "captured" && polls < 200) {
    await new Promise((r) => setTimeout(r, 20))
    const get = await during("getPaymentByID", () =>
      client.request("GET", `/v2/processing/invoices/${invoiceID}/payments/${paymentID}`, undefined, { "x-request-id": requestId() }))
    status = statusOf(get.body)
    polls++
  }
  await settle()
  if (i >= 0) perFlow.push({ trips: trips.length - from, polls })
}
client.close()
await stopProcess(server.proc, { signal: "SIGINT" })
proxy.close()
psql(`DROP DATABASE ${database}`)

console.log(`start: ${startTrips} round trips, then a flow not counted`)
const total = perFlow.reduce((n, f) => n + f.trips, 0)
const polls = perFlow.reduce((n, f) => n + f.polls, 0)
console.log(`${(total / flows).toFixed(2)} round trips per flow, ${(polls / flows).toFixed(2)} polls per flow`)
for (const [i, f] of perFlow.entries()) console.log(`flow ${i}: ${f.trips} round trips, ${f.polls} polls`)
const parts = new Map()
for (const t of trips.slice(counted, counted + total)) {
  const part = parts.get(t.label) ?? { count: 0, texts: new Map() }
  part.count++
  const text = t.text.replace(/\s+/g, " ").slice(0, texts ? Number(process.env.TEXT_WIDTH ?? 400) : 80)
  part.texts.set(text, (part.texts.get(text) ?? 0) + 1)
  parts.set(t.label, part)
}
for (const [name, part] of parts) {
  console.log(`${name}: ${(part.count / flows).toFixed(2)} per flow`)
  if (texts) for (const [text, n] of part.texts) console.log(`    ${(n / flows).toFixed(2)}  ${text}`)
}

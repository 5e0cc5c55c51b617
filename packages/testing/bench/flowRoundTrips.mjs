// Dev helper: every round trip Kassa makes to PostgreSQL during whole payment flows, one flow at a
// time, BEGIN, COMMIT, SET and LISTEN included. The server's connections go through a proxy here
// that reads the frontend protocol: a round trip is a simple query ('Q') or an extended one's Sync
// ('S'), named by its statements' texts (a prepared statement's by the Parse that named it). Each
// round trip is put under the request in flight when it was sent, or under the background work
// after that request. Prints the round trips per flow and, with `--texts`, each part's statements.
// node packages/testing/bench/flowRoundTrips.mjs [flows] [--texts]   (KASSA_BUNDLE as the helpers)
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { clientFor, createInvoice, idOf, instantPaymentBody, paymentResourceBody, requestId, statusOf } from "./scenarios.mjs"
import { wireProxy } from "./pgWire.mjs"
import { freePort, startKassa, stopProcess } from "./server.mjs"

const flows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3)
const texts = process.argv.includes("--texts")
const psql = (command) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-Atqc", command]).toString()

let label = "start"
const trips = [] // { label, text }

const proxyPort = await freePort()
const proxy = wireProxy({ host: "127.0.0.1", port: 5432 }, (statements) => trips.push({ label, text: statements.join(" ;; ") }))
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

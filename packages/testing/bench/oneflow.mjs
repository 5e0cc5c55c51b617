// Dev helper: one payment flow at a time, timing each step and each status seen while polling.
// node packages/testing/bench/oneflow.mjs pg|sqlite [flows]
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { clientFor, idOf, invoiceBody, paymentResourceBody, requestId, statusOf } from "./scenarios.mjs"
import { startKassa, stopProcess } from "./server.mjs"

const dialect = process.argv[2] ?? "pg"
const flows = Number(process.argv[3] ?? 5)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-oneflow-"))
let databaseUrl
if (dialect === "pg") {
  const db = `kassa_oneflow_${Date.now()}`
  execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `CREATE DATABASE ${db}`])
  // ONEFLOW_LOG=1: PostgreSQL logs this database's statements (its server log), to see a flow's.
  if (process.env.ONEFLOW_LOG === "1") execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `ALTER DATABASE ${db} SET log_statement = 'all'`])
  databaseUrl = `postgres://postgres@127.0.0.1:5432/${db}`
}
const server = await startKassa({ name: `kassa-${dialect}`, dataDir: path.join(dir, "data"), databaseUrl })
const client = clientFor(server, 2)
const { shopID } = server.credentials
for (let i = 0; i < flows; i++) {
  const t0 = performance.now()
  const at = () => (performance.now() - t0).toFixed(1)
  const steps = []
  const inv = await client.request("POST", "/v2/processing/invoices", invoiceBody(shopID, i), { "x-request-id": requestId() })
  steps.push(`invoice ${at()}`)
  const invoiceID = idOf(inv.body)
  const res = await client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() })
  steps.push(`resource ${at()}`)
  const { paymentToolToken, paymentSession } = JSON.parse(res.body)
  const pay = await client.request("POST", `/v2/processing/invoices/${invoiceID}/payments`,
    { flow: { type: "PaymentFlowInstant" }, payer: { payerType: "PaymentResourcePayer", paymentToolToken, paymentSession, contactInfo: {} } },
    { "x-request-id": requestId() })
  steps.push(`payment ${at()} ${pay.status}`)
  const paymentID = idOf(pay.body)
  let status = statusOf(pay.body)
  let last = status
  while (status !== "captured" && performance.now() - t0 < 5000) {
    await new Promise((r) => setTimeout(r, 2))
    const get = await client.request("GET", `/v2/processing/invoices/${invoiceID}/payments/${paymentID}`, undefined, { "x-request-id": requestId() })
    status = statusOf(get.body)
    if (status !== last) { steps.push(`${status} ${at()}`); last = status }
  }
  console.log(steps.join(" | "))
}
client.close()
await stopProcess(server.proc, { signal: "SIGINT" })
if (databaseUrl !== undefined) execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `DROP DATABASE ${databaseUrl.split("/").pop()}`])

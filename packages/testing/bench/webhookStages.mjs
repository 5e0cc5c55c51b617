// Dev helper: where a notification's time goes. The webhook scenario's paced phase on one store
// (2 hooks, `rate` invoices/s), then, from the store's own rows, each delivery's stages:
// event → queued (the fan-out), queued → attempt (waiting for a claim and a worker), attempt →
// delivered (signature, POST, answer), next to event → arrival at the receiver; and the
// dispatcher's statements (its `webhooks` work) per notification received.
// node packages/testing/bench/webhookStages.mjs pg|sqlite [seconds] [rate]
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { dropKept, startDevKassa } from "./devServer.mjs"
import { Samples } from "./load.mjs"
import { clientFor, requestId, webhookScenario } from "./scenarios.mjs"

const dialect = process.argv[2] ?? "pg"
const seconds = Number(process.argv[3] ?? 10)
const rate = Number(process.argv[4] ?? 100)
const name = `stages_${process.pid}`
const { server, stop } = await startDevKassa(dialect, { name, keep: true, env: { KASSA_COUNT_STATEMENTS: "true" } })
const client = clientFor(server, 1)
const webhookStatements = async () => {
  const text = (await client.request("GET", "/metrics", undefined, { "x-request-id": requestId() })).body ?? ""
  let n = 0
  for (const m of text.matchAll(/^kassa_sql_statements_total\{([^}]*)\} (\S+)$/gm)) if (/work="webhooks"/.test(m[1])) n += Number(m[2])
  return n
}
let rows
try {
  const before = await webhookStatements()
  const { paced } = await webhookScenario(server, { hooks: Number(process.env.HOOKS ?? 2), durationMs: seconds * 1000, drainMs: 30_000, invoiceRate: rate, full: false })
  console.log(JSON.stringify({
    offered: paced.offered,
    invoiceRate: Math.round(paced.invoiceRate),
    received: `${paced.unique} of ${paced.expected}`,
    webhookStatementsPerNotification: +(((await webhookStatements()) - before) / paced.unique).toFixed(2),
    arrival: paced.latency,
    serverMsPerInvoice: +paced.cpu.serverMsPerOp.toFixed(2),
    mainThreadMsPerInvoice: +paced.cpu.serverMainMsPerOp.toFixed(2),
    serverCores: +paced.cpu.serverCores.toFixed(2),
    otherCores: +paced.cpu.otherCores.toFixed(2)
  }))
} finally {
  await stop()
}
const query = `SELECT d.created_at AS queued, a.at AS attempt, d.delivered_at AS delivered, d.body AS body
  FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id AND a.number = 1`
if (dialect === "pg") {
  rows = execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", `kassa_${name}`, "-AtF", "\t", "-c", query], { maxBuffer: 1 << 30 })
    .toString().trim().split("\n").map((l) => l.split("\t"))
} else {
  const Database = createRequire(import.meta.url)("better-sqlite3")
  const db = new Database(path.join(os.tmpdir(), `kassa-${name}`, "data", "kassa.db"), { readonly: true })
  rows = db.prepare(query).raw().all()
  db.close()
}
dropKept(name)
const stages = { fanOut: new Samples(), waitForClaim: new Samples(), send: new Samples(), total: new Samples() }
for (const [queued, attempt, delivered, body] of rows) {
  const event = Date.parse(JSON.parse(body).occuredAt)
  stages.fanOut.push(Number(queued) - event)
  stages.waitForClaim.push(Number(attempt) - Number(queued))
  stages.send.push(Number(delivered) - Number(attempt))
  stages.total.push(Number(delivered) - event)
}
for (const [stage, s] of Object.entries(stages)) {
  const { p50, p90, p99, max } = s.summary()
  console.log(`${stage.padEnd(12)} p50 ${p50} ms, p90 ${p90}, p99 ${p99}, max ${max}`)
}

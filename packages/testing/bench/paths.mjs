// Dev helper: the server's CPU per request on a few paths (GET /health, GET a shop, createInvoice,
// createPaymentResource); PATHS=health,shop,create,resource picks some.
// node packages/testing/bench/paths.mjs pg|sqlite [seconds] [--prof]
import { runLoad } from "./load.mjs"
import { clientFor, createInvoice, paymentResourceBody, requestId } from "./scenarios.mjs"
import { startDevKassa } from "./devServer.mjs"
import { cpuWindow } from "./server.mjs"

const dialect = process.argv[2] ?? "sqlite"
const seconds = Number(process.argv[3] ?? 4)
const only = process.env.PATHS?.split(",")
const { server, stop } = await startDevKassa(dialect, { name: "paths", prof: process.argv.includes("--prof") })
const client = clientFor(server, 20)
const shopID = server.credentials.shopID
const cases = {
  health: () => client.request("GET", "/health", undefined, {}),
  shop: () => client.request("GET", `/v2/processing/shops/${shopID}`, undefined, { "x-request-id": requestId() }),
  create: (seq) => createInvoice(client, shopID, seq),
  resource: () => client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() })
}
for (const [name, op] of Object.entries(cases)) {
  if (only && !only.includes(name)) continue
  let cpu
  const r = await runLoad({
    concurrency: 20, durationMs: seconds * 1000, warmupMs: 1000,
    onMeasureStart: () => { cpu = cpuWindow(server.proc.pid) },
    op: async (_w, seq) => { const x = await op(seq); return x.status < 300 ? { ok: true, status: x.status, ms: x.ms } : { ok: false, status: x.status, error: x.body?.slice(0, 200) } }
  })
  const c = cpu.stop(r.ok)
  console.log(`${name}: ${Math.round(r.rate)} req/s, p99 ${r.latency.p99.toFixed(1)} ms, server ${c.serverMsPerOp.toFixed(3)} ms/op (${c.serverCores.toFixed(2)} cores), failed ${r.failed}`)
}
client.close()
await stop()

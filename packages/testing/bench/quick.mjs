// Dev helper: createInvoice (or with --webhooks the webhook scenario) on one store for a few
// seconds, optionally under --cpu-prof.
// node packages/testing/bench/quick.mjs pg|sqlite [seconds] [--prof] [--webhooks]
// (INVOICE_RATE=<invoices/s>: the webhook scenario's paced phase first, at that rate)
import { startDevKassa } from "./devServer.mjs"
import { createInvoiceScenario, webhookScenario } from "./scenarios.mjs"

const dialect = process.argv[2] ?? "pg"
const seconds = Number(process.argv[3] ?? 8)
const connections = Number(process.env.CONNS ?? 50)
const { server, stop } = await startDevKassa(dialect, { name: "quick", prof: process.argv.includes("--prof") })
if (process.argv.includes("--webhooks")) {
  const r = await webhookScenario(server, { connections: Number(process.env.CONNS ?? 32), durationMs: seconds * 1000, hooks: Number(process.env.HOOKS ?? 2), drainMs: 20_000, invoiceRate: process.env.INVOICE_RATE ? Number(process.env.INVOICE_RATE) : undefined })
  console.log(JSON.stringify(r, (k, v) => (Array.isArray(v) && v.length > 20 ? `[${v.length} items]` : v)))
} else {
  const r = await createInvoiceScenario(server, { connections, durationMs: seconds * 1000, warmupMs: 2000 })
  console.log(JSON.stringify({ dialect, ok: r.ok, failed: r.failed, rate: Math.round(r.rate), latency: r.latency, cpu: r.cpu, errors: r.errorSamples }))
}
await stop()

// Dev helper: createInvoice (or with --webhooks the webhook scenario) on one store for a few
// seconds, optionally under --cpu-prof.
// node packages/testing/bench/quick.mjs pg|sqlite [seconds] [--prof] [--webhooks|--drain]
// (--drain: webhook delivery alone, `webhookDrain`: a burst of invoices for HOOKS hooks (2), then
// the CPU per notification sent after it)
// (INVOICE_RATE=<invoices/s>: the webhook scenario's paced phase first, at that rate; FULL=0: only that phase)
import { databaseCpuMs, startDevKassa } from "./devServer.mjs"
import { createInvoiceScenario, webhookDrain, webhookScenario } from "./scenarios.mjs"

const dialect = process.argv[2] ?? "pg"
const seconds = Number(process.argv[3] ?? 8)
const connections = Number(process.env.CONNS ?? 50)
const { server, database, stop } = await startDevKassa(dialect, { name: "quick", prof: process.argv.includes("--prof") })
if (process.argv.includes("--drain")) {
  const hooks = Number(process.env.HOOKS ?? 2)
  await webhookDrain(server, { hooks, burstMs: 2_000 })
  const r = await webhookDrain(server, { hooks, burstMs: seconds * 1000, databaseCpuMs: database && (() => databaseCpuMs(database)) })
  console.log(JSON.stringify({ ...r, drainRate: Math.round(r.drainRate), msPerNotification: r.cpu.serverMsPerOp, mainMsPerNotification: r.cpu.serverMainMsPerOp }))
} else if (process.argv.includes("--webhooks")) {
  const r = await webhookScenario(server, { connections: Number(process.env.CONNS ?? 32), durationMs: seconds * 1000, hooks: Number(process.env.HOOKS ?? 2), drainMs: 20_000, invoiceRate: process.env.INVOICE_RATE ? Number(process.env.INVOICE_RATE) : undefined, full: process.env.FULL !== "0" })
  console.log(JSON.stringify(r, (k, v) => (Array.isArray(v) && v.length > 20 ? `[${v.length} items]` : v)))
} else {
  let database0
  const r = await createInvoiceScenario(server, {
    connections,
    durationMs: seconds * 1000,
    warmupMs: 2000,
    onMeasureStart: () => void (database0 = database && databaseCpuMs(database))
  })
  const databaseMsPerOp = database && (databaseCpuMs(database) - database0) / r.ok
  console.log(JSON.stringify({ dialect, ok: r.ok, failed: r.failed, rate: Math.round(r.rate), latency: r.latency, cpu: r.cpu, databaseMsPerOp, errors: r.errorSamples }))
}
await stop()

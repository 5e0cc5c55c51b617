// Dev helper: two builds of the server measured at the same time, each on its own fresh store
// with its own load generator, so both meet the same machine: on a machine other work loads,
// the ratio of their CPU per request swings less than figures taken minutes apart. The order
// of starting alternates by round.
// node packages/testing/bench/pair.mjs pg|sqlite <seconds> <a> <b> [rounds] [invoice|flows|read|webhooks|drain]
// (read: getInvoiceByID over 2,000 invoices each build creates first)
// (webhooks: the webhook scenario's paced phase after a 3 s one, 2 hooks, WEBHOOK_RATE invoices/s each, default 150;
// its CPU per op is per invoice with its notifications; drain: a burst of invoices for <seconds> queues
// notifications for 2 hooks, then the CPU per notification sent after the burst, while nothing else runs)
// (<a>, <b>: bundles packages/http/dist/server-<a>.js and server-<b>.js; PAIR_PROF=1 profiles both;
// `otherCores` counts the other build's server and load too)
import * as path from "node:path"
import { databaseCpuMs, startDevKassa } from "./devServer.mjs"
import { createInvoiceScenario, flowScenario, readScenario, webhookDrain, webhookScenario } from "./scenarios.mjs"
import { repoRoot } from "./server.mjs"

const [dialect = "pg", seconds = "10", a, b, rounds = "1", mode = "invoice"] = process.argv.slice(2)
if (a === undefined || b === undefined) throw new Error("usage: pair.mjs pg|sqlite <seconds> <a> <b> [rounds] [invoice|flows|read|webhooks|drain]")
const durationMs = Number(seconds) * 1000
const webhooks = async (server) => {
  const phase = (ms) =>
    webhookScenario(server, { hooks: 2, durationMs: ms, drainMs: 30_000, invoiceRate: Number(process.env.WEBHOOK_RATE ?? 150), full: false })
  // a warm-up first: the compiler's work on a fresh server is not the cost of a notification
  await phase(3_000)
  const { paced } = await phase(durationMs)
  return { ...paced, rate: paced.invoiceRate, failed: paced.failed + paced.expected - paced.unique }
}
const drain = async (server, database) => {
  await webhookDrain(server, { hooks: 2, burstMs: 2_000 })
  const r = await webhookDrain(server, { hooks: 2, burstMs: durationMs, databaseCpuMs: database && (() => databaseCpuMs(database)) })
  return { ...r, rate: r.drainRate, failed: r.expected - r.unique }
}
const read = async (server) => {
  const { ids } = await createInvoiceScenario(server, { connections: 16, durationMs: 4000, warmupMs: 0, collectIds: 2000 })
  return readScenario(server, { connections: 16, durationMs, warmupMs: 3000, ids, pathFor: (id) => `/v2/processing/invoices/${id}` })
}
const run = (server, database) =>
  mode === "drain"
    ? drain(server, database)
    : mode === "flows"
    ? flowScenario(server, { concurrency: 8, durationMs, warmupMs: 2000, pollMs: 20, maxFlowMs: 15_000 })
    : mode === "read"
    ? read(server)
    : mode === "webhooks"
    ? webhooks(server)
    : createInvoiceScenario(server, { connections: 16, durationMs, warmupMs: 3000 })

for (let round = 0; round < Number(rounds); round++) {
  const names = round % 2 === 0 ? [a, b] : [b, a]
  const started = []
  try {
    for (const name of names) {
      process.env.KASSA_BUNDLE = path.join(repoRoot, `packages/http/dist/server-${name}.js`)
      started.push({ name, ...(await startDevKassa(dialect, { name: `pair_${name}`, prof: process.env.PAIR_PROF === "1" })) })
    }
    const results = await Promise.all(started.map((s) => run(s.server, s.database)))
    const of = Object.fromEntries(started.map((s, i) => [s.name, results[i]]))
    const ms = (name) => of[name].cpu.serverMsPerOp
    const p99 = (name) => ({
      mainMsPerOp: +of[name].cpu.serverMainMsPerOp.toFixed(3),
      ...(of[name].databaseMsPerOp === undefined ? {} : { databaseMsPerOp: +of[name].databaseMsPerOp.toFixed(3) }),
      ...(mode === "webhooks" ? { p50: of[name].latency.p50, p99: of[name].latency.p99 } : {})
    })
    console.log(JSON.stringify({
      dialect, mode, [a]: { msPerOp: +ms(a).toFixed(3), rate: Math.round(of[a].rate), failed: of[a].failed, ...p99(a) },
      [b]: { msPerOp: +ms(b).toFixed(3), rate: Math.round(of[b].rate), failed: of[b].failed, ...p99(b) },
      ratio: +(ms(b) / ms(a)).toFixed(3), otherCores: +of[a].cpu.otherCores.toFixed(2)
    }))
  } finally {
    for (const s of started) await s.stop()
  }
}

// Dev helper: two builds of the server measured at the same time, each on its own fresh store
// with its own load generator, so both meet the same machine: on a machine other work loads,
// the ratio of their CPU per request swings less than figures taken minutes apart. The order
// of starting alternates by round.
// node packages/testing/bench/pair.mjs pg|sqlite <seconds> <a> <b> [rounds] [invoice|flows|read]
// (read: getInvoiceByID over 2,000 invoices each build creates first)
// (<a>, <b>: bundles packages/http/dist/server-<a>.js and server-<b>.js; PAIR_PROF=1 profiles both;
// `otherCores` counts the other build's server and load too)
import * as path from "node:path"
import { startDevKassa } from "./devServer.mjs"
import { createInvoiceScenario, flowScenario, readScenario } from "./scenarios.mjs"
import { repoRoot } from "./server.mjs"

const [dialect = "pg", seconds = "10", a, b, rounds = "1", mode = "invoice"] = process.argv.slice(2)
if (a === undefined || b === undefined) throw new Error("usage: pair.mjs pg|sqlite <seconds> <a> <b> [rounds] [invoice|flows|read]")
const durationMs = Number(seconds) * 1000
const read = async (server) => {
  const { ids } = await createInvoiceScenario(server, { connections: 16, durationMs: 4000, warmupMs: 0, collectIds: 2000 })
  return readScenario(server, { connections: 16, durationMs, warmupMs: 3000, ids, pathFor: (id) => `/v2/processing/invoices/${id}` })
}
const run = (server) =>
  mode === "flows"
    ? flowScenario(server, { concurrency: 8, durationMs, warmupMs: 2000, pollMs: 20, maxFlowMs: 15_000 })
    : mode === "read"
    ? read(server)
    : createInvoiceScenario(server, { connections: 16, durationMs, warmupMs: 3000 })

for (let round = 0; round < Number(rounds); round++) {
  const names = round % 2 === 0 ? [a, b] : [b, a]
  const started = []
  try {
    for (const name of names) {
      process.env.KASSA_BUNDLE = path.join(repoRoot, `packages/http/dist/server-${name}.js`)
      started.push({ name, ...(await startDevKassa(dialect, { name: `pair_${name}`, prof: process.env.PAIR_PROF === "1" })) })
    }
    const results = await Promise.all(started.map((s) => run(s.server)))
    const of = Object.fromEntries(started.map((s, i) => [s.name, results[i]]))
    const ms = (name) => of[name].cpu.serverMsPerOp
    console.log(JSON.stringify({
      dialect, mode, [a]: { msPerOp: +ms(a).toFixed(3), rate: Math.round(of[a].rate), failed: of[a].failed },
      [b]: { msPerOp: +ms(b).toFixed(3), rate: Math.round(of[b].rate), failed: of[b].failed },
      ratio: +(ms(b) / ms(a)).toFixed(3), otherCores: +of[a].cpu.otherCores.toFixed(2)
    }))
  } finally {
    for (const s of started) await s.stop()
  }
}

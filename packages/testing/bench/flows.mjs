// Dev helper: the full payment flow on one store for a few seconds at one concurrency.
// node packages/testing/bench/flows.mjs pg|sqlite [seconds] [concurrency] [--prof]
import { startDevKassa } from "./devServer.mjs"
import { flowScenario } from "./scenarios.mjs"

const dialect = process.argv[2] ?? "pg"
const seconds = Number(process.argv[3] ?? 8)
const concurrency = Number(process.argv[4] ?? 16)
const { server, stop } = await startDevKassa(dialect, { name: "flows", prof: process.argv.includes("--prof") })
try {
  const r = await flowScenario(server, { concurrency, durationMs: seconds * 1000, warmupMs: 1000, pollMs: 20, maxFlowMs: 15_000 })
  console.log(JSON.stringify({ dialect, concurrency, ok: r.ok, failed: r.failed, rate: r.rate, pollsPerFlow: r.pollsPerFlow, latency: r.latency, cpu: r.cpu, errors: r.errorSamples }))
} finally {
  await stop()
}

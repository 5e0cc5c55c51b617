/**
 * Cold start: Kassa restarted `n` times on an existing store, spawn → first 200 from `/health`,
 * and, as its baseline in the same run, `node -e 0` spawned `n` times, spawn → exit. Medians.
 */
import { spawn } from "node:child_process"
import { performance } from "node:perf_hooks"
import { startKassa, stopProcess } from "./server.mjs"

const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]

/** Kassa's cold start on the store of `dataDir` / `databaseUrl`. */
export const coldStartScenario = async ({ dialect, dataDir, databaseUrl, n }) => {
  const times = []
  for (let i = 0; i < n; i++) {
    const server = await startKassa({ name: `kassa-${dialect}-cold-${i}`, dataDir, databaseUrl })
    times.push(server.startMs)
    await stopProcess(server.proc)
  }
  return { times, median: median(times) }
}

/** An empty Node start: `node -e 0`, spawn → exit. */
export const emptyNodeStart = async ({ n }) => {
  const times = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" })
      child.on("error", reject)
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`node -e 0 exited with ${code}`))))
    })
    times.push(performance.now() - t0)
  }
  return { times, median: median(times) }
}

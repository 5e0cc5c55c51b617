/**
 * Preload (`DEV_NODE_ARGS="--import <this file>"`): V8's sampling heap profiler, keeping the
 * objects young and full collections freed (so it shows what is allocated, not what survives),
 * from `PROBE_DELAY_MS` (default 5,000: after the warm-up) for `PROBE_MS` (default 8,000). Writes
 * `PROBE_OUT` (default `allocations.heapprofile` in the working directory); `heapProfile.mjs`
 * summarises it.
 */
import * as fs from "node:fs"
import { Session } from "node:inspector"

const session = new Session()
session.connect()
const post = (method, params = {}) =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))

await post("HeapProfiler.enable")
setTimeout(async () => {
  await post("HeapProfiler.startSampling", {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  })
  setTimeout(async () => {
    const { profile } = await post("HeapProfiler.stopSampling")
    const out = process.env.PROBE_OUT ?? "allocations.heapprofile"
    fs.writeFileSync(out, JSON.stringify(profile))
    process.stderr.write(`ALLOCATIONS written to ${out}\n`)
  }, Number(process.env.PROBE_MS ?? 8_000)).unref()
}, Number(process.env.PROBE_DELAY_MS ?? 5_000)).unref()

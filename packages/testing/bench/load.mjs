/**
 * A small closed-loop load generator on `node:http` (no dependency).
 *
 * - `HttpClient`: one keep-alive `http.Agent` (at most `connections` sockets) to one
 *   127.0.0.1 origin; `request()` resolves `{ status, body, ms }` and never rejects (network
 *   errors and timeouts come back as `status: 0` with `error`).
 * - `runLoad()`: `concurrency` workers each run `op()` back to back until the time bound or the
 *   operation count is reached; every operation's latency is kept and the percentiles are read
 *   from the sorted array (nearest rank, exact).
 *
 * Traffic goes only where it is told; the runner only ever passes 127.0.0.1 origins.
 */
import * as http from "node:http"
import { performance } from "node:perf_hooks"

/** Growable Float64Array of latencies in milliseconds. */
export class Samples {
  constructor(capacity = 1 << 16) {
    this.data = new Float64Array(capacity)
    this.length = 0
  }
  push(value) {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = value
  }
  /** `{ count, mean, p50, p90, p99, p999, max }` in ms (undefined fields when empty). */
  summary() {
    const n = this.length
    if (n === 0) return { count: 0 }
    const sorted = this.data.slice(0, n).sort()
    let sum = 0
    for (let i = 0; i < n; i++) sum += sorted[i]
    const at = (p) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]
    return { count: n, mean: sum / n, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: sorted[n - 1] }
  }
}

const assertLocal = (url) => {
  if (url.hostname !== "127.0.0.1" && url.hostname !== "localhost" && url.hostname !== "[::1]") {
    throw new Error(`bench traffic goes only to the loopback interface, not ${url.origin}`)
  }
}

export class HttpClient {
  /**
   * @param {string} baseUrl e.g. http://127.0.0.1:18022
   * @param {{ connections?: number, timeoutMs?: number, headers?: Record<string,string> }} [options]
   */
  constructor(baseUrl, options = {}) {
    const url = new URL(baseUrl)
    assertLocal(url)
    this.host = url.hostname
    this.port = Number(url.port)
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.headers = options.headers ?? {}
    const connections = options.connections ?? 64
    this.agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections, scheduling: "fifo" })
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body] JSON-encoded unless already a string/Buffer
   * @param {Record<string,string>} [headers]
   * @returns {Promise<{ status: number, body: string, ms: number, error?: string }>}
   */
  request(method, path, body, headers) {
    return new Promise((resolve) => {
      const payload = body === undefined ? undefined : typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body)
      const allHeaders = { ...this.headers, ...headers }
      if (payload !== undefined) allHeaders["content-length"] = Buffer.byteLength(payload)
      const started = performance.now()
      let settled = false
      const done = (result) => {
        if (settled) return
        settled = true
        resolve({ ...result, ms: performance.now() - started })
      }
      const req = http.request(
        { host: this.host, port: this.port, method, path, headers: allHeaders, agent: this.agent },
        (res) => {
          const chunks = []
          res.on("data", (c) => chunks.push(c))
          res.on("end", () => done({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString() }))
          res.on("error", (e) => done({ status: 0, body: "", error: String(e?.message ?? e) }))
        }
      )
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`timeout after ${this.timeoutMs} ms`)))
      req.on("error", (e) => done({ status: 0, body: "", error: String(e?.message ?? e) }))
      if (payload !== undefined) req.write(payload)
      req.end()
    })
  }

  close() {
    this.agent.destroy()
  }
}

/**
 * Closed-loop load: `concurrency` workers, each running `op(worker, seq)` back to back.
 * `op` resolves `{ ok: boolean, status?: number, error?: string, ms?: number }`; when `ms` is
 * absent the wall time of `op` is the latency. Stops at `durationMs` or `maxOps` (whichever
 * first); operations already started finish (each is bounded by the client's timeout).
 * `onMeasureStart` runs between the warm-up and the measured phase; `shouldStop()` (checked
 * before each operation) ends the run early, e.g. when the server under test has exited.
 *
 * @param {{ concurrency: number, durationMs: number, maxOps?: number, warmupMs?: number,
 *           op: (worker: number, seq: number) => Promise<{ ok: boolean, status?: number, error?: string, ms?: number }> }} options
 */
export async function runLoad({ concurrency, durationMs, maxOps = Number.POSITIVE_INFINITY, warmupMs = 0, op, onMeasureStart, shouldStop }) {
  if (warmupMs > 0) await phase(concurrency, warmupMs, maxOps, op, shouldStop)
  onMeasureStart?.()
  return phase(concurrency, durationMs, maxOps, op, shouldStop)
}

async function phase(concurrency, durationMs, maxOps, op, shouldStop = () => false) {
  const samples = new Samples()
  const statuses = {}
  const errorSamples = []
  let issued = 0
  let ok = 0
  let failed = 0
  const started = performance.now()
  const deadline = started + durationMs
  let lastEnd = started
  const worker = async (w) => {
    while (performance.now() < deadline && issued < maxOps && !shouldStop()) {
      const seq = issued++
      const t0 = performance.now()
      let result
      try {
        result = await op(w, seq)
      } catch (e) {
        result = { ok: false, error: String(e?.message ?? e) }
      }
      const t1 = performance.now()
      lastEnd = Math.max(lastEnd, t1)
      const key = result.status ?? (result.ok ? "ok" : "error")
      statuses[key] = (statuses[key] ?? 0) + 1
      if (result.ok) {
        ok++
        samples.push(result.ms ?? t1 - t0)
      } else {
        failed++
        if (errorSamples.length < 5) errorSamples.push(result.error ?? `status ${result.status}`)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)))
  // Rate over the measured window: operations complete until the last one started has answered.
  const elapsedMs = Math.max(lastEnd, started + 1) - started
  return {
    concurrency,
    elapsedMs,
    ops: ok + failed,
    ok,
    failed,
    rate: (ok / elapsedMs) * 1000,
    statuses,
    errorSamples,
    latency: samples.summary()
  }
}

/** Runs `fn` every `intervalMs` until `stop()` is called. */
export const every = (intervalMs, fn) => {
  const timer = setInterval(fn, intervalMs)
  timer.unref?.()
  return { stop: () => clearInterval(timer) }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

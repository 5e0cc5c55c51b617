/**
 * Preload (`DEV_NODE_ARGS="--import <this file>"`): the server's own time per request (Node's
 * `request` event to the response's `finish`) and the event loop's stalls. At exit it writes to
 * stderr (the server log): `REQUESTS` with the count and every request over `PROBE_SLOW_MS`
 * (default 200) as [start ms since the process began, duration ms], and `STALLS` with the event
 * loop's delay (max, p99) and every gap over 100 ms as [when, how long].
 */
import * as http from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"

const slowMs = Number(process.env.PROBE_SLOW_MS ?? 200)
const slow = []
let requests = 0
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function(event, request, response) {
  if (event === "request") {
    const started = performance.now()
    response.on("finish", () => {
      requests++
      const took = performance.now() - started
      if (took > slowMs) slow.push([Math.round(started), Math.round(took), request.method, request.url])
    })
  }
  return emit.apply(this, arguments)
}

const delay = monitorEventLoopDelay({ resolution: 5 })
delay.enable()
const stalls = []
let last = performance.now()
setInterval(() => {
  const now = performance.now()
  if (now - last > 100) stalls.push([Math.round(last), Math.round(now - last)])
  last = now
}, 10).unref()

process.on("exit", () => {
  process.stderr.write(`REQUESTS ${requests}, ${slow.length} over ${slowMs} ms: ${JSON.stringify(slow.slice(0, 2000))}\n`)
  process.stderr.write(
    `STALLS delay max ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms; over 100 ms: ${JSON.stringify(stalls)}\n`
  )
})

/**
 * Preload (`DEV_NODE_ARGS="--import <this file>"`) for the bundle `stepsBundle.mjs` writes: every
 * 2 s it writes to stderr (the server log) a `STEPS` line with the run loop's steps and the fibers
 * made per HTTP request answered in those 2 s, and at exit `STEP KINDS`, the 40 most frequent kinds
 * of step (sampled) per request over the whole run. Background work (timers, the webhook
 * dispatcher) counts too: compare with an idle server's lines.
 */
import * as http from "node:http"

const s = (globalThis.__kassaSteps = { steps: 0, fibers: 0, kinds: new Map() })
let requests = 0
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function(event, _request, response) {
  if (event === "request") response.on("finish", () => requests++)
  return emit.apply(this, arguments)
}

let last = { steps: 0, fibers: 0, requests: 0 }
setInterval(() => {
  const n = requests - last.requests
  if (n > 0) {
    process.stderr.write(
      `STEPS ${n} requests: ${Math.round((s.steps - last.steps) / n)} steps and ${((s.fibers - last.fibers) / n).toFixed(2)} fibers per request\n`
    )
  }
  last = { steps: s.steps, fibers: s.fibers, requests }
}, 2000).unref()

process.on("exit", () => {
  const top = [...s.kinds.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)
  process.stderr.write(`STEP KINDS (per request, ${requests} requests)\n` + top.map(([k, n]) => `${(n / Math.max(1, requests)).toFixed(1)} ${k}`).join("\n") + "\n")
})

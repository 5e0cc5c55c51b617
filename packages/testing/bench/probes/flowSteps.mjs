/**
 * Preload (`DEV_NODE_ARGS="--import <this file>"`) for the bundle `stepsBundle.mjs` writes, as
 * `runLoopSteps.mjs` is, but per flow: at exit it writes to stderr (the server log) a `FLOW STEPS`
 * line with the run loop's steps and the fibers made per payment created (`POST …/payments`),
 * counting everything the server did from the first payment on (the flow's other requests, polls,
 * background work), so polls per flow weigh in; and the same without the steps taken while a GET
 * was in flight (with one flow at a time, `oneflow.mjs`, those are the polls' own, give or take
 * background work that ran beside one).
 */
import * as http from "node:http"

const s = (globalThis.__kassaSteps ??= { steps: 0, fibers: 0, kinds: new Map() })
let payments = 0
let requests = 0
let from
let getSteps = 0
let gets = 0
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function(event, request, response) {
  if (event === "request") {
    const counted = request.method === "POST" && /\/payments$/.test(request.url.split("?")[0])
    const start = s.steps
    response.on("finish", () => {
      if (request.method === "GET" && from !== undefined) {
        getSteps += s.steps - start
        gets++
      }
      requests++
      if (!counted) return
      if (from === undefined) from = { steps: s.steps, fibers: s.fibers, requests }
      else payments++
    })
  }
  return emit.apply(this, arguments)
}

process.on("exit", () => {
  if (from === undefined || payments === 0) return
  process.stderr.write(
    `FLOW STEPS ${payments} payments: ${Math.round((s.steps - from.steps) / payments)} steps, ` +
      `${((s.fibers - from.fibers) / payments).toFixed(2)} fibers, ${((requests - from.requests) / payments).toFixed(2)} requests per payment; ` +
      `outside GETs ${Math.round((s.steps - from.steps - getSteps) / payments)} steps per payment, ${Math.round(getSteps / Math.max(1, gets))} steps per GET\n`
  )
})

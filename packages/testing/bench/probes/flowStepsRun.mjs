/**
 * Steps per payment flow, counted without polls' noise: one flow at a time (createInvoice,
 * createPaymentResource, createPayment, then a pause of `settleMs` for the background work to end,
 * then one getPaymentByID, which must answer `captured`), on the bundle `KASSA_BUNDLE` names
 * (one `stepsBundle.mjs` wrote) with `flowSteps.mjs` preloaded; prints that probe's line.
 *
 *   KASSA_BUNDLE=packages/http/dist/server-steps.js node packages/testing/bench/probes/flowStepsRun.mjs pg 40 [settleMs]
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { startDevKassa } from "../devServer.mjs"
import { clientFor, createInvoice, idOf, instantPaymentBody, paymentResourceBody, requestId, statusOf } from "../scenarios.mjs"

const dialect = process.argv[2] ?? "pg"
const flows = Number(process.argv[3] ?? 40)
const settleMs = Number(process.argv[4] ?? 100)
process.env.DEV_NODE_ARGS = `${process.env.DEV_NODE_ARGS ?? ""} --import ${path.resolve(import.meta.dirname, "flowSteps.mjs")}`
const { server, stop } = await startDevKassa(dialect, { name: "flowsteps", keep: false })
const client = clientFor(server, 2)
const { shopID } = server.credentials
let notCaptured = 0
for (let i = 0; i < flows; i++) {
  const inv = await createInvoice(client, shopID, i)
  const invoiceID = idOf(inv.body)
  const res = await client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() })
  const pay = await client.request("POST", `/v2/processing/invoices/${invoiceID}/payments`, instantPaymentBody(JSON.parse(res.body)), { "x-request-id": requestId() })
  await new Promise((r) => setTimeout(r, settleMs))
  const get = await client.request("GET", `/v2/processing/invoices/${invoiceID}/payments/${idOf(pay.body)}`, undefined, { "x-request-id": requestId() })
  if (statusOf(get.body) !== "captured") notCaptured++
}
client.close()
const log = server.logFile ?? undefined
await stop()
if (notCaptured > 0) console.log(`${notCaptured} flows not captured after ${settleMs} ms: raise settleMs`)
const logs = fs.readdirSync("/tmp").filter((d) => d.startsWith("kassa-flowsteps")).map((d) => path.join("/tmp", d, "data/server.log"))
  .filter((f) => fs.existsSync(f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)
console.log(fs.readFileSync(log ?? logs[0], "utf8").split("\n").find((l) => l.startsWith("FLOW STEPS")))

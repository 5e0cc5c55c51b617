// Dev helper: one payment flow at a time, timing each step and each status seen while polling.
// node packages/testing/bench/oneflow.mjs pg|sqlite [flows]
import { startDevKassa } from "./devServer.mjs"
import { clientFor, createInvoice, idOf, instantPaymentBody, paymentResourceBody, requestId, statusOf } from "./scenarios.mjs"

const dialect = process.argv[2] ?? "pg"
const flows = Number(process.argv[3] ?? 5)
// ONEFLOW_LOG=1: PostgreSQL logs this database's statements (its server log), to see a flow's.
const { server, stop } = await startDevKassa(dialect, { name: "oneflow", logStatements: process.env.ONEFLOW_LOG === "1" })
const client = clientFor(server, 2)
const { shopID } = server.credentials
for (let i = 0; i < flows; i++) {
  const t0 = performance.now()
  const at = () => (performance.now() - t0).toFixed(1)
  const steps = []
  const inv = await createInvoice(client, shopID, i)
  steps.push(`invoice ${at()}`)
  const invoiceID = idOf(inv.body)
  const res = await client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() })
  steps.push(`resource ${at()}`)
  const resource = JSON.parse(res.body)
  const pay = await client.request("POST", `/v2/processing/invoices/${invoiceID}/payments`,
    instantPaymentBody(resource),
    { "x-request-id": requestId() })
  steps.push(`payment ${at()} ${pay.status}`)
  const paymentID = idOf(pay.body)
  let status = statusOf(pay.body)
  let last = status
  while (status !== "captured" && performance.now() - t0 < 5000) {
    await new Promise((r) => setTimeout(r, 2))
    const get = await client.request("GET", `/v2/processing/invoices/${invoiceID}/payments/${paymentID}`, undefined, { "x-request-id": requestId() })
    status = statusOf(get.body)
    if (status !== last) { steps.push(`${status} ${at()}`); last = status }
  }
  console.log(steps.join(" | "))
}
client.close()
await stop()

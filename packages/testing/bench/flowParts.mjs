// Dev helper: what each step of the full flow costs the server, one step at a time under load
// (`concurrency` requests in flight): createInvoice, createPaymentResource, createPayment with its
// processing until captured (no polling: it waits until the server's CPU settles), then
// getPaymentByID. Server CPU ms per operation and PostgreSQL's (or others') cores for each.
// node packages/testing/bench/flowParts.mjs pg|sqlite [count] [concurrency]
import { startDevKassa } from "./devServer.mjs"
import { runLoad, sleep } from "./load.mjs"
import { clientFor, createInvoice, idOf, instantPaymentBody, paymentResourceBody, requestId, statusOf } from "./scenarios.mjs"
import { cpuWindow } from "./server.mjs"

const dialect = process.argv[2] ?? "pg"
const count = Number(process.argv[3] ?? 2000)
const concurrency = Number(process.argv[4] ?? 16)
const { server, stop } = await startDevKassa(dialect, { name: "flowparts" })
const client = clientFor(server, concurrency)
const { shopID } = server.credentials

const step = async (name, items, op, settle = 0) => {
  const out = new Array(items.length)
  const cpu = cpuWindow(server.proc.pid)
  const r = await runLoad({
    concurrency,
    durationMs: 600_000,
    maxOps: items.length,
    op: async (_w, i) => {
      const res = await op(items[i])
      out[i] = res
      return res.ok === false ? res : { ok: true }
    }
  })
  if (settle > 0) await sleep(settle)
  const c = cpu.stop(r.ok)
  console.log(`${name.padEnd(22)} ${r.ok} ok ${r.failed} failed  ${Math.round(r.rate)}/s  server ${c.serverMsPerOp.toFixed(3)} ms/op (${c.serverCores.toFixed(2)} cores)  others ${c.otherCores.toFixed(2)} cores${r.errorSamples.length ? " " + r.errorSamples[0] : ""}`)
  return out
}

const seqs = Array.from({ length: count }, (_, i) => i)
// warm-up
await step("warm-up createInvoice", seqs.slice(0, 500), async (i) => ({ ok: (await createInvoice(client, shopID, 1e6 + i)).status === 201 }))
const invoices = await step("createInvoice", seqs, async (i) => {
  const r = await createInvoice(client, shopID, i)
  return r.status === 201 ? { ok: true, id: idOf(r.body) } : { ok: false, error: r.body }
})
const resources = await step("createPaymentResource", seqs, async () => {
  const r = await client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() })
  return r.status === 201 ? { ok: true, ...JSON.parse(r.body) } : { ok: false, error: r.body }
})
const payments = await step("createPayment+process", seqs, async (i) => {
  const r = await client.request("POST", `/v2/processing/invoices/${invoices[i].id}/payments`, instantPaymentBody(resources[i]), {
    "x-request-id": requestId()
  })
  return r.status === 201 ? { ok: true, invoiceID: invoices[i].id, id: idOf(r.body) } : { ok: false, error: r.body }
}, 3000)
const statuses = {}
await step("getPaymentByID", seqs, async (i) => {
  const r = await client.request("GET", `/v2/processing/invoices/${payments[i].invoiceID}/payments/${payments[i].id}`, undefined, { "x-request-id": requestId() })
  const s = statusOf(r.body)
  statuses[s] = (statuses[s] ?? 0) + 1
  return { ok: r.status === 200 }
})
console.log("statuses after processing", JSON.stringify(statuses))
const idle = cpuWindow(server.proc.pid)
await sleep(3000)
const c = idle.stop(1)
console.log(`idle 3 s: server ${(c.serverCores).toFixed(3)} cores (subtract ${(c.serverCores * 3000).toFixed(0)} ms from the processing step's window)`)
client.close()
await stop()

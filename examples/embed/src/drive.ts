/**
 * Drives the merchant service end to end over HTTP, as a shop's frontend and Kassa's webhooks
 * would, and prints one JSON line per step: an order paid (the notifications its webhook got), a
 * full refund refused by the demo terms, a partial one made, an order over the acquirer's limit
 * declined, a forged notification refused, and the calls the acquirer got. It runs on a fresh
 * SQLite database in a temporary folder unless KASSA_DATA_DIR or KASSA_DATABASE_URL names one (on
 * a database that already holds the shop's earlier payments, their balance lets a full refund pass).
 *
 *   npm run build && npm run drive
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Shop from "./Shop.js"

const calls: Array<string> = []
const shop = await Shop.start({
  port: 0,
  databaseUrl: process.env.KASSA_DATABASE_URL,
  dataDir: process.env.KASSA_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "kassa-embed-")),
  allowPrivateNetworks: true, // a local run: the webhooks come back to this machine
  record: (call) => calls.push(call)
})
const print = (line: object) => console.log(JSON.stringify(line))

const call = async (method: string, path: string, body?: object) => {
  const response = await fetch(`${shop.url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}

/** The notifications received for the order once `last` is among them (within 30 s). */
const eventsUntil = async (orderID: string, last: string): Promise<Array<string>> => {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const { events } = (await call("GET", `/orders/${orderID}`)).body
    if (events.includes(last)) return events
  }
  throw new Error(`no ${last} for order ${orderID} within 30 s`)
}

try {
  const paid = await call("POST", "/orders", { amount: 10_000, product: "Tea, 1 kg" })
  const orderID: string = paid.body.orderID
  print({ order: 10_000, status: paid.status, events: await eventsUntil(orderID, "InvoicePaid") })

  const full = await call("POST", `/orders/${orderID}/refund`, { amount: 10_000 })
  print({ refund: 10_000, status: full.status, code: full.body.code })
  const part = await call("POST", `/orders/${orderID}/refund`, { amount: 5_000 })
  print({ refund: 5_000, status: part.status, events: (await eventsUntil(orderID, "RefundSucceeded")).slice(-2) })

  const declined = await call("POST", "/orders", { amount: 90_000, product: "Tea, 9 kg" })
  print({ order: 90_000, status: declined.status, events: await eventsUntil(declined.body.orderID, "PaymentFailed") })

  const forged = await fetch(`${shop.url}/webhooks`, {
    method: "POST",
    headers: { "content-signature": "alg=RS256; digest=Zm9yZ2Vk" },
    body: JSON.stringify({ eventType: "InvoicePaid", invoice: { id: declined.body.orderID } })
  })
  print({ forgedNotification: forged.status })
  print({ acquirer: calls })
} finally {
  await shop.close()
}

/**
 * The SQL statements each operation issues: a Kassa started with KASSA_COUNT_STATEMENTS=true is
 * driven through `flows` sequential payments (instant and hold, a refund, the reads) and its
 * `/metrics` counts are divided by the requests answered. Statements of background work a
 * request starts (a payment's processing) count as the request's; work a timer resumes counts as
 * `timer:<kind>`. BEGIN and COMMIT are not counted.
 */
import { sleep } from "./load.mjs"
import { clientFor, idOf, invoiceBody, paymentResourceBody, requestId, statusOf } from "./scenarios.mjs"

const metric = (text, name, label) => {
  const out = new Map()
  const re = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, "gm")
  for (const m of text.matchAll(re)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]))
    const key = labels[label]
    out.set(key, (out.get(key) ?? 0) + Number(m[2]))
  }
  return out
}

const delta = (after, before) => {
  const out = new Map()
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0)
    if (d > 0) out.set(k, d)
  }
  return out
}

/** Polls a payment (or refund) until it reaches `status` or 10 s pass. */
const until = async (client, path, status) => {
  const t0 = performance.now()
  while (performance.now() - t0 < 10_000) {
    const r = await client.request("GET", path, undefined, { "x-request-id": requestId() })
    const s = statusOf(r.body ?? "")
    if (s === status) return
    if (s === "failed" || s === "cancelled") throw new Error(`${path}: ${s} while waiting for ${status}`)
    await sleep(5)
  }
  throw new Error(`${path}: not ${status} within 10 s`)
}

export const statementsScenario = async (server, { flows }) => {
  const client = clientFor(server, 1)
  const { shopID } = server.credentials
  const post = async (path, body, expect) => {
    const r = await client.request("POST", path, body, { "x-request-id": requestId() })
    if (r.status !== expect) throw new Error(`POST ${path}: ${r.status} ${r.body ?? r.error}`)
    return r.body
  }
  const get = (path) => client.request("GET", path, undefined, { "x-request-id": requestId() })
  const metrics = async () => (await get("/metrics")).body ?? ""

  const flow = async (i, hold) => {
    const invoiceID = idOf(await post("/v2/processing/invoices", invoiceBody(shopID, i), 201))
    const resource = JSON.parse(await post("/v2/processing/payment-resources", paymentResourceBody, 201))
    const payment = await post(`/v2/processing/invoices/${invoiceID}/payments`, {
      flow: hold ? { type: "PaymentFlowHold", onHoldExpiration: "cancel" } : { type: "PaymentFlowInstant" },
      payer: {
        payerType: "PaymentResourcePayer",
        paymentToolToken: resource.paymentToolToken,
        paymentSession: resource.paymentSession,
        contactInfo: { email: "bench@example.com" }
      }
    }, 201)
    const paymentPath = `/v2/processing/invoices/${invoiceID}/payments/${idOf(payment)}`
    if (hold) {
      await until(client, paymentPath, "processed")
      await post(`${paymentPath}/capture`, { reason: "bench" }, 202)
    }
    await until(client, paymentPath, "captured")
    const refund = await post(`${paymentPath}/refunds`, { reason: "bench", amount: 100, currency: "RUB" }, 201)
    await until(client, `${paymentPath}/refunds/${idOf(refund)}`, "succeeded")
    await get(`/v2/processing/invoices/${invoiceID}`)
    await get(`/v2/processing/invoices/${invoiceID}/events?limit=100`)
  }

  // a first flow of each kind warms the caches (keys, shop terms, ledger accounts)
  await flow(0, false)
  await flow(1, true)
  await sleep(500)
  const before = await metrics()
  for (let i = 0; i < flows; i++) await flow(2 + i, i % 2 === 1)
  await sleep(1_000) // timers and webhooks catch up
  const after = await metrics()
  const requests = delta(metric(after, "kassa_http_requests_total", "operation"), metric(before, "kassa_http_requests_total", "operation"))
  const statements = delta(metric(after, "kassa_sql_statements_total", "work"), metric(before, "kassa_sql_statements_total", "work"))
  requests.delete("unknown")
  if (statements.size === 0) throw new Error("/metrics shows no kassa_sql_statements_total: was KASSA_COUNT_STATEMENTS=true set?")
  const rows = []
  for (const [operation, n] of [...requests].sort(([a], [b]) => a.localeCompare(b))) {
    rows.push({ work: operation, requests: n, statements: statements.get(operation) ?? 0, perRequest: (statements.get(operation) ?? 0) / n })
  }
  for (const [work, n] of [...statements].sort(([a], [b]) => a.localeCompare(b))) {
    if (!requests.has(work)) rows.push({ work, requests: undefined, statements: n, perFlow: n / flows })
  }
  return { flows, rows }
}

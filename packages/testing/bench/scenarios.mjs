/**
 * The bench's scenarios against a running server (Kassa or the floor): the request bodies, the
 * createInvoice load, the full payment flow, the read load and webhook delivery to a local
 * receiver (the withdrawal flow is in withdrawals.mjs). run.mjs sequences them; each is bounded in time.
 */
import * as http from "node:http"
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import { HttpClient, runLoad, Samples, sleep } from "./load.mjs"
import { cpuWindow, memorySampler } from "./server.mjs"

// Requests

let requestCounter = 0
const requestPrefix = `b${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`
/** A unique X-Request-ID (1..32 characters). */
export const requestId = () => `${requestPrefix}-${(requestCounter++).toString(36)}`
const dueDate = new Date(Date.now() + 7 * 86_400_000).toISOString()

/** A createInvoice body; the invoice it makes is ~1 KB of JSON. */
export const invoiceBody = (shopID, seq) => ({
  shopID,
  dueDate,
  currency: "RUB",
  product: "Bench order: 2 items",
  description: "Benchmark invoice created by packages/testing/bench/run.mjs",
  amount: 1_000 + (seq % 9_000),
  metadata: {
    orderID: `bench-${seq}`,
    channel: "web",
    customer: { id: `cust-${seq % 997}`, email: `buyer${seq % 997}@example.com`, phone: "+70000000000", name: "Bench Buyer" },
    shipping: { method: "courier", address: "1 Benchmark Street, Apt 42", city: "Moscow", postalCode: "101000", country: "RUS" },
    items: [
      { sku: "SKU-0001", title: "Something useful", quantity: 1, price: 600 },
      { sku: "SKU-0002", title: "Something else, also useful", quantity: 2, price: 200 }
    ],
    utm: { source: "bench", medium: "load", campaign: "kassa-bench" },
    notes: "Leave at the door. Call before delivery. This note pads the invoice to about one kilobyte of JSON."
  }
})

export const paymentResourceBody = {
  paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/30", cvv: "123" },
  clientInfo: { fingerprint: "bench" }
}

/** createPayment's body: an instant payment with the resource `createPaymentResource` answered. */
export const instantPaymentBody = ({ paymentToolToken, paymentSession }) => ({
  flow: { type: "PaymentFlowInstant" },
  payer: { payerType: "PaymentResourcePayer", paymentToolToken, paymentSession, contactInfo: {} }
})

export const idOf = (body) => body.slice(0, 80).match(/"id":"([^"]+)"/)?.[1]
export const statusOf = (body) => body.match(/"status":"([a-z]+)"/)?.[1]

/** Throws when the server under test exited during a scenario (its remaining work is void). */
export const assertAlive = (server, during) => {
  const exit = server.proc?.exitInfo
  if (exit !== undefined) {
    throw new Error(`${server.proc.name} exited during ${during} (${JSON.stringify(exit)}); its log ends:\n${server.proc.logTail(15)}`)
  }
}

/**
 * `runLoad` on `server` as the scenarios measure it: it stops if the server exits (and then
 * throws, naming `during`), and answers the server's CPU over the measured phase per operation.
 */
export const serverLoad = async (server, during, { onMeasureStart, ...options }) => {
  let cpu
  const result = await runLoad({
    ...options,
    shouldStop: () => server.proc?.exitInfo !== undefined,
    onMeasureStart: () => {
      onMeasureStart?.()
      cpu = cpuWindow(server.proc.pid)
    }
  })
  assertAlive(server, during)
  return { ...result, cpu: cpu?.stop(result.ok) }
}

export const clientFor = (server, connections) =>
  new HttpClient(server.baseUrl, {
    connections,
    timeoutMs: 15_000,
    headers: { authorization: `Bearer ${server.credentials?.apiKey ?? "floor"}`, "content-type": "application/json" }
  })

/** POST /v2/processing/invoices with the bench's body number `seq`. */
export const createInvoice = (client, shopID, seq) =>
  client.request("POST", "/v2/processing/invoices", invoiceBody(shopID, seq), { "x-request-id": requestId() })

// Scenarios

/** Scenario 1: createInvoice at 50 connections; optional memory sampling and id collection. */
export const createInvoiceScenario = async (server, { connections, durationMs, warmupMs, collectIds, sampleMemory, pgStats, onMeasureStart }) => {
  const client = clientFor(server, connections)
  const shopID = server.credentials?.shopID ?? "floor-shop"
  const ids = []
  const load1 = os.loadavg()[0]
  const sampler = sampleMemory ? memorySampler(server.proc.pid, 100) : undefined
  // The measured phase's counters: PostgreSQL's, read before the warm-up ends (a query then
  // would pause the load), so they include the warm-up; the CPU window is the measured phase.
  const statsBefore = pgStats !== undefined ? await pgStats() : undefined
  let created = 0
  try {
    const result = await serverLoad(server, "createInvoice", {
      concurrency: connections,
      durationMs,
      warmupMs,
      onMeasureStart,
      op: async (_w, seq) => {
        const r = await createInvoice(client, shopID, seq)
        if (r.status === 201) {
          created++
          if (collectIds !== undefined && ids.length < collectIds) {
            const id = idOf(r.body)
            if (id !== undefined) ids.push(id)
          }
          return { ok: true, status: 201, ms: r.ms }
        }
        return { ok: false, status: r.status, error: `${r.status} ${r.error ?? r.body.slice(0, 200)}` }
      }
    })
    const memory = sampler?.stop()
    let perRequest
    if (statsBefore !== undefined && created > 0) {
      // Backends flush their statistics at most once a second while busy, and an idle backend's
      // last second only after PGSTAT_IDLE_INTERVAL (10 s): wait for it.
      await sleep(11_000)
      const after = await pgStats()
      perRequest = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - statsBefore[k]) / created]))
    }
    return { ...result, ids, load1, memory, pgPerRequest: perRequest }
  } finally {
    sampler?.stop()
    client.close()
  }
}

/** Scenario 2: full payment flows, `concurrency` at a time. */
export const flowScenario = async (server, { concurrency, durationMs, warmupMs, pollMs, maxFlowMs, ids }) => {
  const client = clientFor(server, concurrency)
  const { shopID } = server.credentials
  let polls = 0
  let completed = 0
  const stepFail = (step, r) => ({ ok: false, status: r.status, error: `${step}: ${r.status} ${r.error ?? r.body.slice(0, 200)}` })
  const load1 = os.loadavg()[0]
  try {
    const result = await serverLoad(server, `the full flow ×${concurrency}`, {
      concurrency,
      durationMs,
      warmupMs,
      onMeasureStart: () => {
        polls = 0
        completed = 0
      },
      op: async (_w, seq) => {
        const t0 = performance.now()
        const inv = await createInvoice(client, shopID, seq)
        if (inv.status !== 201) return stepFail("createInvoice", inv)
        const invoiceID = idOf(inv.body)
        const res = await client.request("POST", "/v2/processing/payment-resources", paymentResourceBody, { "x-request-id": requestId() })
        if (res.status !== 201) return stepFail("createPaymentResource", res)
        const resource = JSON.parse(res.body)
        const pay = await client.request(
          "POST",
          `/v2/processing/invoices/${invoiceID}/payments`,
          instantPaymentBody(resource),
          { "x-request-id": requestId() }
        )
        if (pay.status !== 201) return stepFail("createPayment", pay)
        const paymentID = idOf(pay.body)
        let status = statusOf(pay.body)
        while (status !== "captured") {
          if (status === "failed" || status === "cancelled") return { ok: false, status: "payment " + status, error: `payment ${status}: ${invoiceID}` }
          if (performance.now() - t0 > maxFlowMs) return { ok: false, status: "timeout", error: `not captured within ${maxFlowMs} ms (last status ${status})` }
          await sleep(pollMs)
          const get = await client.request("GET", `/v2/processing/invoices/${invoiceID}/payments/${paymentID}`, undefined, { "x-request-id": requestId() })
          polls++
          if (get.status !== 200) return stepFail("getPaymentByID", get)
          status = statusOf(get.body)
        }
        completed++
        if (ids !== undefined && ids.length < 20_000) ids.push(invoiceID)
        return { ok: true, status: "captured", ms: performance.now() - t0 }
      }
    })
    return { ...result, pollsPerFlow: completed > 0 ? polls / completed : 0, load1 }
  } finally {
    client.close()
  }
}

/** Scenario 3: a read endpoint under load over a pool of invoice ids. */
export const readScenario = async (server, { connections, durationMs, warmupMs, ids, pathFor }) => {
  const client = clientFor(server, connections)
  const load1 = os.loadavg()[0]
  try {
    const result = await serverLoad(server, "a read scenario", {
      concurrency: connections,
      durationMs,
      warmupMs,
      op: async (_w, seq) => {
        const id = ids[(seq * 2_654_435_761) % ids.length]
        const r = await client.request("GET", pathFor(id), undefined, { "x-request-id": requestId() })
        return r.status === 200 ? { ok: true, status: 200, ms: r.ms } : { ok: false, status: r.status, error: `${r.status} ${r.error ?? r.body.slice(0, 200)}` }
      }
    })
    return { ...result, load1 }
  } finally {
    client.close()
  }
}

/** The webhook receiver: node:http on 127.0.0.1, answers 200, records event→delivery latency. */
export const startReceiver = () =>
  new Promise((resolve, reject) => {
    const fresh = () => ({ received: 0, unique: new Set(), latency: new Samples(), byType: {}, firstAt: 0, lastAt: 0, unsigned: 0, badBodies: 0 })
    const stats = fresh()
    const server = http.createServer((req, res) => {
      const arrived = Date.now()
      const chunks = []
      req.on("data", (c) => chunks.push(c))
      req.on("end", () => {
        res.writeHead(200, { "content-length": 0 })
        res.end()
        try {
          const n = JSON.parse(Buffer.concat(chunks).toString())
          stats.received++
          if (stats.firstAt === 0) stats.firstAt = arrived
          stats.lastAt = arrived
          // eventID is numbered per aggregate (invoice, customer): the subject is part of the key
          stats.unique.add(`${req.url}#${n.invoice?.id ?? n.customer?.id ?? ""}#${n.eventID}#${n.eventType}`)
          stats.byType[n.eventType] = (stats.byType[n.eventType] ?? 0) + 1
          if (req.headers["content-signature"] === undefined) stats.unsigned++
          const occured = Date.parse(n.occuredAt)
          if (Number.isFinite(occured)) stats.latency.push(Math.max(0, arrived - occured))
        } catch {
          stats.badBodies++
        }
      })
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: server.address().port,
        stats,
        /** Starts counting afresh (the same object: callers may hold it). */
        reset: () => Object.assign(stats, fresh()),
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.()
            server.close(() => r())
          })
      })
    )
  })

/**
 * createInvoice at a fixed rate (open loop: a request starts every 1/rate s whatever the answers'
 * pace, up to `connections` in flight).
 */
const pacedInvoices = async (server, { ratePerSecond, durationMs, connections = 16 }) => {
  const client = clientFor(server, connections)
  const shopID = server.credentials.shopID
  const interval = 1000 / ratePerSecond
  const start = performance.now()
  let next = start
  try {
    return await runLoad({
      concurrency: connections,
      durationMs,
      maxOps: Math.floor(durationMs / interval),
      shouldStop: () => server.proc?.exitInfo !== undefined,
      op: async (_w, seq) => {
        const at = next
        next += interval
        if (at > performance.now()) await sleep(at - performance.now())
        const r = await createInvoice(client, shopID, seq)
        return r.status === 201 ? { ok: true, status: 201, ms: r.ms } : { ok: false, status: r.status, error: `${r.status} ${r.body.slice(0, 200)}` }
      }
    })
  } finally {
    client.close()
  }
}

/**
 * Webhook delivery alone (dev helpers): `hooks` webhooks, a burst of createInvoice for `burstMs`
 * (closed loop, `connections`) that queues notifications faster than they go out, then the
 * server's CPU from the burst's end until the last has arrived, per notification sent meanwhile
 * (with `databaseCpuMs`, a reader of the database's CPU time, the database's too).
 */
export const webhookDrain = async (server, { hooks, connections = 32, burstMs, drainMs = 60_000, databaseCpuMs }) => {
  const receiver = await startReceiver()
  const admin = clientFor(server, 2)
  const webhookIDs = []
  try {
    for (let k = 0; k < hooks; k++) {
      const r = await admin.request(
        "POST",
        "/v2/processing/webhooks",
        { scope: { topic: "InvoicesTopic", shopID: server.credentials.shopID, eventTypes: ["InvoiceCreated"] }, url: `http://127.0.0.1:${receiver.port}/hooks/${k}` },
        { "x-request-id": requestId() }
      )
      if (r.status !== 201) throw new Error(`createWebhook answered ${r.status}: ${r.error ?? r.body.slice(0, 200)}`)
      webhookIDs.push(JSON.parse(r.body).id)
    }
    const burst = await createInvoiceScenario(server, { connections, durationMs: burstMs, warmupMs: 0 })
    const expected = burst.ok * hooks
    const before = receiver.stats.received
    const cpu = cpuWindow(server.proc.pid)
    const database0 = databaseCpuMs?.()
    const t0 = performance.now()
    while (receiver.stats.received < expected && performance.now() - t0 < drainMs) await sleep(10)
    const sent = receiver.stats.received - before
    const use = cpu.stop(sent)
    // the database's part (PostgreSQL: its backends for this server), per notification
    const databaseMsPerOp = database0 === undefined ? undefined : (databaseCpuMs() - database0) / sent
    return { expected, received: receiver.stats.received, unique: receiver.stats.unique.size, sentInDrain: sent, drainRate: (sent / use.wallMs) * 1000, cpu: use, databaseMsPerOp }
  } finally {
    for (const id of webhookIDs) await admin.request("DELETE", `/v2/processing/webhooks/${id}`, undefined, { "x-request-id": requestId() }).catch(() => {})
    admin.close()
    await receiver.close()
  }
}

/**
 * Scenario 4: webhook delivery of the InvoiceCreated notifications of a createInvoice load, to
 * `hooks` webhooks. First createInvoice paced at `invoiceRate` for `pacedMs`, open loop with up to
 * `pacedConnections` requests in flight (the target: whether
 * every notification arrives, and how soon), then the same at `headroomRate` (a pace the machine
 * has room for: the latency without a queue), then, once that has drained, as fast as the server
 * takes invoices (informational: the delivered rate; the latency then is mostly the queue that
 * builds up).
 */
export const webhookScenario = async (
  server,
  { connections, durationMs, hooks, drainMs, pacedMs = durationMs, invoiceRate, headroomRate, pacedConnections = 100, full = true }
) => {
  const receiver = await startReceiver()
  const admin = clientFor(server, 2)
  const webhookIDs = []
  let note
  const drain = async (expected) => {
    const t0 = performance.now()
    while (receiver.stats.received < expected && performance.now() - t0 < drainMs) await sleep(50)
    return performance.now() - t0
  }
  try {
    for (let k = 0; k < hooks; k++) {
      const r = await admin.request(
        "POST",
        "/v2/processing/webhooks",
        {
          scope: { topic: "InvoicesTopic", shopID: server.credentials.shopID, eventTypes: ["InvoiceCreated", "InvoicePaid", "PaymentStarted", "PaymentProcessed", "PaymentCaptured"] },
          url: `http://127.0.0.1:${receiver.port}/hooks/${k}`
        },
        { "x-request-id": requestId() }
      )
      if (r.status === 404) return { available: false, reason: `createWebhook (POST /v2/processing/webhooks) answers 404: ${r.body.slice(0, 120)}` }
      if (r.status !== 201) {
        if (k > 0) {
          note = `webhook ${k + 1} refused (${r.status}: ${r.body.slice(0, 120)}); measured with ${k}`
          break
        }
        return { available: false, reason: `createWebhook answered ${r.status}: ${r.error ?? r.body.slice(0, 200)}` }
      }
      webhookIDs.push(JSON.parse(r.body).id)
    }
    hooks = webhookIDs.length
    // Open loop: invoices at `rate`/s, each notifying every hook, until the last has arrived.
    const pacedPhase = async (rate) => {
      const ratePerSecond = Math.max(1, Math.floor(rate))
      const phaseStart = Date.now()
      const load1 = os.loadavg()[0]
      // the invoices and their deliveries, until the last has arrived
      const cpu = cpuWindow(server.proc.pid)
      // up to `pacedConnections` in flight, so that the pace, not the client, bounds the rate
      const load = await pacedInvoices(server, { ratePerSecond, durationMs: pacedMs, connections: pacedConnections })
      const expected = load.ok * hooks
      await drain(expected)
      const s = receiver.stats
      const phase = {
        offered: ratePerSecond,
        invoiceRate: load.rate,
        failed: load.failed,
        expected,
        received: s.received,
        unique: s.unique.size,
        complete: s.unique.size >= expected,
        // the invoices went in at the offered pace (2 % slack for the first and last requests)
        keptPace: load.rate >= 0.98 * ratePerSecond,
        // received ÷ time from the phase's start to its last delivery
        rate: (s.received / Math.max(1, s.lastAt - phaseStart)) * 1000,
        latency: s.latency.summary(),
        unsigned: s.unsigned,
        badBodies: s.badBodies,
        // server CPU per invoice with its notifications
        cpu: cpu.stop(load.ok),
        load1
      }
      receiver.reset()
      return phase
    }
    const paced = invoiceRate !== undefined && pacedMs > 0 ? await pacedPhase(invoiceRate) : undefined
    const headroom = headroomRate !== undefined && pacedMs > 0 ? await pacedPhase(headroomRate) : undefined
    if (!full) return { available: true, hooks, note, paced, headroom }
    const loadStart = Date.now()
    const load = await createInvoiceScenario(server, { connections, durationMs, warmupMs: 0 })
    const expected = load.ok * hooks
    const drainedMs = await drain(expected)
    const s = receiver.stats
    const spanMs = Math.max(1, s.lastAt - loadStart)
    return {
      available: true,
      hooks,
      note,
      paced,
      headroom,
      full: {
        invoices: load.ok,
        invoiceRate: load.rate,
        expected,
        received: s.received,
        unique: s.unique.size,
        complete: s.unique.size >= expected,
        rate: (s.received / spanMs) * 1000,
        spanMs,
        drainedMs,
        unsigned: s.unsigned,
        badBodies: s.badBodies,
        byType: { ...s.byType },
        latency: s.latency.summary(),
        cpu: load.cpu,
        load1: load.load1
      }
    }
  } finally {
    for (const id of webhookIDs) {
      if (id !== undefined) await admin.request("DELETE", `/v2/processing/webhooks/${id}`, undefined, { "x-request-id": requestId() }).catch(() => {})
    }
    admin.close()
    await receiver.close()
  }
}

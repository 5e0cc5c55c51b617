/**
 * Search and analytics benchmark.
 *
 * `benchSearch` seeds `rows` invoices, one payment each and a refund for every refunded payment
 * straight into PostgreSQL (INSERT … SELECT from generate_series, in the JSON shapes the
 * adapters write) for one party's shop, then measures over HTTP against a running server:
 *
 * - each search (invoices, payments, refunds): the first page, a deep page by `offset`, and a
 *   deep page reached by walking continuation tokens;
 * - each statistic (payment method, rate, conversion, geo, revenue) over the whole window;
 *
 * N sequential requests each, reporting p50 / p99 in milliseconds against the targets (50 ms for
 * a search page, 200 ms for a statistic).
 *
 * Run alone: `DATABASE_URL=postgres://… BASE_URL=http://127.0.0.1:8022 API_KEY=… SHOP_ID=…
 * PARTY_ID=… [ROWS=1000000] [REQUESTS=50] node packages/testing/bench/search.mjs`
 *
 * @since 0.1.0
 */
import pg from "pg"
import { invoiceBody } from "./scenarios.mjs"

const DAY = 86_400_000
/** The seeded rows span this many days before the seeding moment (inside the one-year window). */
const SPAN_DAYS = 360
const PREFIX = "bs"

/** Targets of the issue, milliseconds at p99. */
export const targets = { search: 50, statistic: 200 }

const percentile = (sorted, p) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]

/** The seeding statements: parameters $1 party, $2 shop, $3 rows, $4 start (epoch ms), $5 step (ms), $6 id prefix. */
const seedStatements = [
  // invoices: one per row; its status follows its payment's (see the CASE on s below)
  `INSERT INTO invoices (id, party_id, shop_id, external_id, created_at, due_date, amount, currency, product, status,
     invoice_template_id, active_payment_id, data, version)
   SELECT $6 || g, $1, $2, NULL, $4::bigint + g * $5::bigint, $4::bigint + g * $5::bigint + ${30 * DAY},
     1000 + (g * 37) % 99000, 'RUB', 'Bench item',
     CASE WHEN s < 80 THEN (CASE WHEN g % 10 = 0 THEN 'fulfilled' ELSE 'paid' END)
          WHEN s < 88 THEN 'unpaid' WHEN s < 93 THEN 'paid' WHEN s < 96 THEN 'cancelled' ELSE 'unpaid' END,
     NULL, NULL,
     jsonb_build_object('description', 'Bench invoice ' || g, 'metadata', jsonb_build_object('n', g),
       'cart', jsonb_build_array(jsonb_build_object('product', 'Bench item', 'quantity', 1,
         'price', 1000 + (g * 37) % 99000, 'cost', 1000 + (g * 37) % 99000)))::text,
     1
   FROM (SELECT g, (g * 7919) % 100 AS s FROM generate_series(1::bigint, $3::bigint) AS g) AS t`,
  // payments: one per invoice, one second after it
  `INSERT INTO payments (invoice_id, id, party_id, shop_id, external_id, created_at, amount, currency, status, activity,
     flow, interaction_id, fee, status_changed_at, data, version)
   SELECT $6 || g, '1', $1, $2, NULL, $4::bigint + g * $5::bigint + 1000, amount, 'RUB', status, 'done',
     CASE WHEN g % 5 = 0 THEN '{"type":"PaymentFlowHold","onHoldExpiration":"cancel","heldUntil":"'
       || to_char(to_timestamp(($4::bigint + g * $5::bigint) / 1000.0 + 259200) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       || '"}' ELSE '{"type":"PaymentFlowInstant"}' END,
     NULL,
     CASE WHEN status IN ('captured', 'refunded') THEN amount * 25 / 1000 ELSE 0 END,
     $4::bigint + g * $5::bigint + 3000,
     jsonb_build_object(
       'payer', jsonb_build_object(
         'payerType', 'PaymentResourcePayer',
         'paymentToolToken', 'pt.bench' || g,
         'paymentSession', 'ps.bench' || g,
         'paymentToolDetails', jsonb_build_object(
           'detailsType', 'PaymentToolDetailsBankCard',
           'cardNumberMask', bin || '******' || last4,
           'first6', bin, 'last4', last4, 'bin', bin, 'lastDigits', last4,
           'paymentSystem', system),
         'clientInfo', jsonb_build_object('fingerprint', 'fp-' || payer, 'ip', '10.' || (payer / 65536) % 256 || '.' || (payer / 256) % 256 || '.' || payer % 256),
         'contactInfo', jsonb_build_object('email', 'payer' || payer || '@bench.kassa.test')
           || CASE WHEN g % 7 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('country', (ARRAY['RUS','KAZ','BLR','ARM','UZB','DEU','USA','GBR'])[(1 + g % 8)::int]) END),
       'transactionInfo', CASE WHEN status IN ('pending', 'failed') THEN NULL
         ELSE jsonb_build_object('rrn', lpad(((g * 104729) % 1000000000000)::text, 12, '0'), 'approvalCode', lpad(((g * 7919) % 1000000)::text, 6, '0')) END,
       'makeRecurrent', false,
       'authorizedAmount', amount,
       'tool', jsonb_build_object('type', 'BankCard', 'vaultToken', 'vt.bench' || g, 'paymentSystem', system, 'expMonth', 12, 'expYear', 2040),
       'cart', jsonb_build_array(jsonb_build_object('product', 'Bench item', 'quantity', 1, 'price', amount, 'cost', amount)),
       'error', CASE WHEN status = 'failed' THEN jsonb_build_object('code', 'authorization_failed',
         'subError', jsonb_build_object('code', 'insufficient_funds')) ELSE NULL END
     ) - (CASE WHEN status IN ('pending', 'failed') THEN 'transactionInfo' ELSE '' END)
       - (CASE WHEN status = 'failed' THEN '' ELSE 'error' END),
     1
   FROM (
     SELECT g, 1000 + (g * 37) % 99000 AS amount, (g * 31) % 50000 AS payer,
       CASE WHEN s < 80 THEN 'captured' WHEN s < 88 THEN 'failed' WHEN s < 93 THEN 'refunded'
            WHEN s < 96 THEN 'cancelled' WHEN s < 98 THEN 'processed' ELSE 'pending' END AS status,
       (ARRAY['visa','mastercard','nspkmir','maestro'])[(1 + g % 4)::int] AS system,
       (ARRAY['424242','555555','220220','676767'])[(1 + g % 4)::int] AS bin,
       lpad((g % 10000)::text, 4, '0') AS last4
     FROM (SELECT g, (g * 7919) % 100 AS s FROM generate_series(1::bigint, $3::bigint) AS g) AS t
   ) AS p`,
  // a full refund of every refunded payment, a day later
  `INSERT INTO refunds (invoice_id, payment_id, id, party_id, shop_id, external_id, created_at, amount, currency, status, fee, data, version)
   SELECT invoice_id, id, '1', party_id, shop_id, NULL, created_at + ${DAY}, amount, currency, 'succeeded', 0,
     '{"reason":"Bench refund"}', 1
   FROM payments WHERE party_id = $1 AND shop_id = $2 AND invoice_id LIKE $3 || '%' AND status = 'refunded'`
]

/**
 * Seeds `rows` invoices and payments (and their refunds) for the shop unless they are there.
 * Answers the window they span.
 *
 * @since 0.1.0
 */
export async function seed({ databaseUrl, partyID, shopID, rows = 1_000_000, log = console.log }) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const prefix = `${PREFIX}${rows}-`
    const existing = await client.query(
      `SELECT count(*)::int AS n, min(created_at) AS first FROM invoices WHERE party_id = $1 AND shop_id = $2 AND id LIKE $3 || '%'`,
      [partyID, shopID, prefix]
    )
    if (existing.rows[0].n >= rows) {
      const start = Number(existing.rows[0].first) - Math.floor(SPAN_DAYS * DAY / rows)
      log(`search bench: ${existing.rows[0].n} rows already seeded`)
      return { from: new Date(start), to: new Date(start + SPAN_DAYS * DAY + 2 * DAY), rows }
    }
    const step = Math.floor(SPAN_DAYS * DAY / rows)
    const start = Date.now() - SPAN_DAYS * DAY - 2 * DAY
    const began = performance.now()
    await client.query("BEGIN")
    for (const statement of seedStatements) {
      const t = performance.now()
      const params = statement.includes("$6") ? [partyID, shopID, rows, start, step, prefix] : [partyID, shopID, prefix]
      const result = await client.query(statement, params)
      log(`search bench: seeded ${result.rowCount} rows in ${Math.round(performance.now() - t)} ms`)
    }
    await client.query("COMMIT")
    for (const table of ["invoices", "payments", "refunds", "search_payers"]) await client.query(`VACUUM ANALYZE ${table}`)
    log(`search bench: seeded and analysed in ${Math.round((performance.now() - began) / 1000)} s`)
    return { from: new Date(start), to: new Date(start + SPAN_DAYS * DAY + 2 * DAY), rows }
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  } finally {
    await client.end()
  }
}

/**
 * Waits until the server's compactor has folded the seeded rows' rollup deltas (reads stay exact
 * meanwhile, only slower). The compactor sleeps until events are appended, and the seed wrote
 * behind the server's back: one invoice created through the API wakes it.
 */
async function settle({ databaseUrl, baseUrl, apiKey, partyID, shopID, log, timeoutMs = 15 * 60_000 }) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const woken = await fetch(`${baseUrl}/v2/processing/invoices`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "x-request-id": `bs-${process.pid}-wake` },
      body: JSON.stringify(invoiceBody(shopID, 0))
    })
    if (woken.status !== 201) throw new Error(`createInvoice (to wake the compactor): ${woken.status} ${(await woken.text()).slice(0, 300)}`)
    const began = performance.now()
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM search_deltas WHERE party_id = $1 AND shop_id = $2",
        [partyID, shopID]
      )
      if (rows[0].n < 10_000) break
      if (performance.now() - began > timeoutMs) throw new Error(`search_deltas still holds ${rows[0].n} rows of the shop`)
      log(`search bench: waiting for the rollups (${rows[0].n} deltas left)`)
      await new Promise((r) => setTimeout(r, 5_000))
    }
    await client.query("VACUUM ANALYZE search_rollups")
    await client.query("VACUUM ANALYZE search_deltas")
  } finally {
    await client.end()
  }
}

let requestCounter = 0

/** One GET; answers the parsed body, throws on a non-200. */
async function get(baseUrl, apiKey, path, params) {
  const url = `${baseUrl}${path}?${new URLSearchParams(params)}`
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${apiKey}`, "x-request-id": `bs-${process.pid}-${++requestCounter}` }
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET ${path} ${JSON.stringify(params)}: ${response.status} ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/** `n` sequential requests after `warmup` unmeasured ones; p50 / p99 (nearest rank) in ms. */
async function measure(n, warmup, call) {
  for (let i = 0; i < warmup; i++) await call()
  const samples = []
  let body
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    body = await call()
    samples.push(performance.now() - t)
  }
  samples.sort((a, b) => a - b)
  return { n, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1], body }
}

/**
 * Seeds, then measures every search and statistic over HTTP. Answers `{ rows, markdown, … }`:
 * one row per measured operation with p50 / p99 and its target.
 *
 * @since 0.1.0
 */
export async function benchSearch({
  databaseUrl,
  baseUrl,
  apiKey,
  shopID,
  partyID,
  rows = 1_000_000,
  requests,
  limit = 100,
  quick = false,
  only,
  log = console.log
}) {
  const wanted = (operation) => only === undefined || operation.includes(only)
  const n = requests ?? (quick ? 10 : 50)
  const warmup = quick ? 1 : 3
  const seeded = await seed({ databaseUrl, partyID, shopID, rows, log })
  await settle({ databaseUrl, baseUrl, apiKey, partyID, shopID, log })
  const window = { fromTime: seeded.from.toISOString(), toTime: seeded.to.toISOString() }
  const results = []
  const record = (operation, form, m, target, extra = {}) => {
    const row = {
      operation,
      form,
      requests: m.n,
      p50ms: Number(m.p50.toFixed(1)),
      p99ms: Number(m.p99.toFixed(1)),
      targetMs: target,
      ok: target === undefined ? "" : m.p99 <= target ? "yes" : "NO",
      ...extra
    }
    results.push(row)
    log(`search bench: ${operation} ${form}: p50 ${row.p50ms} ms, p99 ${row.p99ms} ms${target === undefined ? "" : ` (target ${target})`}`)
  }
  const path = (kind) => `/v2/analytics/shops/${shopID}/${kind}`

  for (const [kind, total] of [["invoices", rows], ["payments", rows], ["refunds", Math.round(rows * 0.05)]]) {
    if (!wanted(`search ${kind}`)) continue
    const search = (params) => get(baseUrl, apiKey, path(kind), { ...window, ...params })
    const first = await measure(n, warmup, () => search({ limit: String(limit) }))
    record(`search ${kind}`, `first page, limit ${limit}`, first, targets.search, { rows: first.body.result.length })
    const counted = await measure(n, warmup, () => search({ limit: String(limit), offset: "0" }))
    record(`search ${kind}`, `first page with totalCount`, counted, targets.search, { totalCount: counted.body.totalCount })
    const depth = Math.max(0, Math.min(100_000, total) - limit)
    const deep = await measure(n, warmup, () => search({ limit: String(limit), offset: String(depth) }))
    record(`search ${kind}`, `offset ${depth} with totalCount`, deep, targets.search, { rows: deep.body.result.length })
    // walk continuation tokens (1000 rows a page) as deep as the offset form reaches, then ask there
    let token
    let walked = 0
    while (walked < depth) {
      const page = await search({ limit: String(Math.min(1000, depth - walked)), ...(token === undefined ? {} : { continuationToken: token }) })
      walked += page.result.length
      token = page.continuationToken
      if (token === undefined) break
    }
    if (token !== undefined) {
      const byToken = await measure(n, warmup, () => search({ limit: String(limit), continuationToken: token }))
      record(`search ${kind}`, `continuation token ${walked} rows deep`, byToken, targets.search, { rows: byToken.body.result.length })
    }
    if (kind !== "refunds") {
      const filtered = await measure(n, warmup, () =>
        search({ limit: String(limit), payerEmail: "payer77@bench.kassa.test" }))
      record(`search ${kind}`, `filter payerEmail, first page`, filtered, targets.search, { rows: filtered.body.result.length })
      const status = await measure(quick ? n : Math.max(5, Math.floor(n / 5)), 1, () =>
        search({ limit: String(limit), offset: "0", paymentStatus: "captured" }))
      record(`search ${kind}`, `filter paymentStatus with totalCount (informational)`, status, undefined, { totalCount: status.body.totalCount })
    }
  }

  const stats = (which, params) =>
    get(baseUrl, apiKey, `/v1/analytics/shops/${shopID}/${which}`, { ...window, ...params })
  // dashboards ask from a local midnight: +03:00 (whole hours) and +05:30 (quarter hours)
  const midnight = (offsetMinutes) => {
    const t = new Date(seeded.to.getTime() + offsetMinutes * 60_000)
    t.setUTCHours(24, 0, 0, 0)
    return t.getTime() - offsetMinutes * 60_000
  }
  const days = (end, n) => ({ fromTime: new Date(end - n * DAY).toISOString(), toTime: new Date(end).toISOString() })
  const moscow = midnight(180)
  const delhi = midnight(330)
  const splits = [
    ["360 days from a +03:00 midnight, by day", { ...days(moscow, 360), splitUnit: "day", splitSize: "1" }],
    ["360 days from a +03:00 midnight, by month", { ...days(moscow, 360), splitUnit: "month", splitSize: "1" }],
    ["30 days from a +03:00 midnight, by day", { ...days(moscow, 30), splitUnit: "day", splitSize: "1" }],
    ["360 days from a +05:30 midnight, by week", { ...days(delhi, 360), splitUnit: "week", splitSize: "1" }],
    ["the seeded window (any millisecond), by day", { splitUnit: "day", splitSize: "1" }]
  ]
  // a window of few payments has them counted; past that the payers' rows answer, looking inside
  // the windows that payers' successes surround
  const rateWindows = [
    ["the seeded window", {}],
    ["30 days", days(moscow, 30)],
    ["180 days inside the history", days(moscow - 90 * DAY, 180)],
    ["30 days inside the history", days(moscow - 180 * DAY, 30)],
    ["1 day inside the history", days(moscow - 180 * DAY, 1)]
  ]
  for (const [which, operation, extra] of [
    ["payments/stats/conversion", "getPaymentConversionStats", {}],
    ["payments/stats/revenue", "getPaymentRevenueStats", {}],
    ["payments/stats/geo", "getPaymentGeoStats", {}],
    ["customers/stats/payment_method", "getPaymentMethodStats", { paymentMethod: "bankCard" }]
  ]) {
    if (!wanted(operation)) continue
    for (const [form, params] of splits) {
      const m = await measure(n, warmup, () => stats(which, { ...extra, ...params }))
      record(operation, form, m, targets.statistic, { items: m.body.length })
    }
  }
  for (const [form, params] of wanted("getPaymentRateStats") ? rateWindows : []) {
    const m = await measure(n, warmup, () => stats("customers/stats/rate", params))
    record("getPaymentRateStats", form, m, targets.statistic, { uniqueCount: m.body.uniqueCount })
  }

  const missed = results.filter((r) => r.ok === "NO")
  const markdown = [
    `Seeded ${rows.toLocaleString("en-US")} invoices and payments (and ${Math.round(rows * 0.05).toLocaleString("en-US")} refunds) in one shop over ${SPAN_DAYS} days; window ${window.fromTime} … ${window.toTime}.`,
    `Each row: ${n} sequential requests after ${warmup} warm-up ones, keep-alive, one client. Targets: ${targets.search} ms p99 per search page, ${targets.statistic} ms p99 per statistic.`,
    missed.length === 0 ? "Every target met." : `Missed: ${missed.map((r) => `${r.operation} (${r.form}) p99 ${r.p99ms} ms`).join("; ")}.`
  ].join("\n")
  return { rows: results, markdown, seeded: { rows, from: window.fromTime, to: window.toTime } }
}

if (import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const env = process.env
  const missing = ["DATABASE_URL", "BASE_URL", "API_KEY", "SHOP_ID", "PARTY_ID"].filter((k) => !env[k])
  if (missing.length > 0) {
    console.error(`search.mjs: set ${missing.join(", ")}`)
    process.exit(2)
  }
  benchSearch({
    databaseUrl: env.DATABASE_URL,
    baseUrl: env.BASE_URL.replace(/\/+$/, ""),
    apiKey: env.API_KEY,
    shopID: env.SHOP_ID,
    partyID: env.PARTY_ID,
    rows: env.ROWS === undefined ? 1_000_000 : Number(env.ROWS),
    ...(env.REQUESTS === undefined ? {} : { requests: Number(env.REQUESTS) }),
    ...(env.LIMIT === undefined ? {} : { limit: Number(env.LIMIT) }),
    log: (...args) => console.error(...args)
  }).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2))
      process.exit(result.rows.some((r) => r.ok === "NO") ? 1 : 0)
    },
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
}

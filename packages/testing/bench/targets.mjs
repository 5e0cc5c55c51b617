/**
 * Issue 28's targets, each a ratio to a baseline measured in the same run (the floor, or an empty
 * `node -e 0` start), so that a figure means the same on any machine; plus the withdrawal flow's
 * figures next to the floor's and webhook delivery at a pace the machine has room for (no target). `targetRows(results)` answers one row per target and
 * store; `targetsMarkdown(rows)` the table the report and the README show.
 *
 * `results[dialect]` holds what run.mjs measured: `floor`, `floorRead`, `createInvoice`, `flows`,
 * `getInvoice`, `webhooks`, `statements`, `idle`, `coldStart`, `nodeStart`, `withdrawals`.
 */

export const limits = {
  createInvoiceRate: 0.5,
  createInvoiceCpu: 3,
  readCpu: 2,
  flowCpu: 40,
  statementsPerPayment: 5,
  statementsPerRefund: 5,
  webhookShare: 0.8,
  webhookP99Ms: 200,
  // no target: a pace with room on the machine for the invoices and their notifications
  webhookHeadroomShare: 0.3,
  coldStart: 3,
  rss: 2.5
}

export const dialectName = { pg: "PostgreSQL", sqlite: "SQLite" }

const int = (n) => (n === undefined || !Number.isFinite(n) ? "—" : Math.round(n).toLocaleString("en-US"))
const ms = (n) => (n === undefined || !Number.isFinite(n) ? "—" : n >= 100 ? `${Math.round(n)} ms` : n >= 1 ? `${n.toFixed(1)} ms` : `${n.toFixed(2)} ms`)
const ratio = (n) => (n === undefined || !Number.isFinite(n) ? "—" : n >= 10 ? n.toFixed(1) : n.toFixed(2))
const cpuOf = (x) => x?.cpu?.serverMsPerOp

/** The flow level with the best rate. */
export const bestFlow = (flows) => (flows ?? []).reduce((best, f) => (best === undefined || f.rate > best.rate ? f : best), undefined)

/** Statements per request of `operation` in the statements step. */
const statementsOf = (st, operation) => st?.rows.find((row) => row.work === operation)?.perRequest

/**
 * One row per target and store: `{ target, store, kassa, baseline, ratio, limit, pass }`
 * (`pass` undefined when not measured, or for a figure without a target).
 */
export const targetRows = (results, { skipped = {} } = {}) => {
  const rows = []
  for (const d of ["pg", "sqlite"]) {
    if (skipped[d] !== undefined) continue
    const r = results[d]
    const store = dialectName[d]
    const row = (target, kassa, baseline, value, limit, pass) => rows.push({ target, store, kassa, baseline, ratio: value, limit, pass })
    const ci = r.createInvoice
    const floor = r.floor
    const floorCpu = cpuOf(floor)

    const rateRatio = ci && floor ? ci.rate / floor.rate : undefined
    row("createInvoice rate", ci ? `${int(ci.rate)} req/s` : "—", floor ? `${int(floor.rate)} req/s` : "—", rateRatio, `≥ ${limits.createInvoiceRate}`, rateRatio === undefined ? undefined : rateRatio >= limits.createInvoiceRate)

    const ciCpu = cpuOf(ci) !== undefined && floorCpu !== undefined ? cpuOf(ci) / floorCpu : undefined
    row("createInvoice CPU per request", ms(cpuOf(ci)), ms(floorCpu), ciCpu, `≤ ${limits.createInvoiceCpu}`, ciCpu === undefined ? undefined : ciCpu <= limits.createInvoiceCpu)

    const readCpu = cpuOf(r.getInvoice) !== undefined && cpuOf(r.floorRead) !== undefined ? cpuOf(r.getInvoice) / cpuOf(r.floorRead) : undefined
    row("getInvoiceByID CPU per request (floor: GET by primary key)", ms(cpuOf(r.getInvoice)), ms(cpuOf(r.floorRead)), readCpu, `≤ ${limits.readCpu}`, readCpu === undefined ? undefined : readCpu <= limits.readCpu)

    const best = bestFlow(r.flows)
    const flowCpu = cpuOf(best) !== undefined && floorCpu !== undefined ? cpuOf(best) / floorCpu : undefined
    row(
      "full flow CPU per completed flow",
      best ? `${ms(cpuOf(best))} (${int(best.rate)} flows/s at ${best.concurrency}, p99 ${ms(best.latency.p99)})` : "—",
      ms(floorCpu),
      flowCpu,
      `≤ ${limits.flowCpu}`,
      flowCpu === undefined ? undefined : flowCpu <= limits.flowCpu
    )

    const st = r.statements
    for (const [operation, limit] of [["createPayment", limits.statementsPerPayment], ["createRefund", limits.statementsPerRefund]]) {
      const n = statementsOf(st, operation)
      row(`statements: ${operation} with its processing`, n === undefined ? "—" : n.toFixed(1), "—", undefined, `≤ ${limit}`, n === undefined ? undefined : n <= limit)
    }
    const idle = r.idle
    row("statements while idle", idle ? `${idle.statements} in ${idle.seconds} s` : "—", "—", undefined, "0", idle ? idle.statements === 0 : undefined)

    const w = r.webhooks?.paced
    const hooks = r.webhooks?.hooks
    row(
      `webhooks: p99 event → delivery, ${hooks ?? 2} hooks at ${limits.webhookShare * 100} % of the createInvoice rate`,
      w
        ? `${ms(w.latency.p99)}; ${int(w.unique)} of ${int(w.expected)} arrived; invoices went in at ${int(w.invoiceRate)}/s of ${int(w.offered)}/s offered`
        : r.webhooks?.available === false ? `not available: ${r.webhooks.reason}` : "—",
      ci ? `createInvoice ${int(ci.rate)} req/s` : "—",
      undefined,
      `≤ ${limits.webhookP99Ms} ms, all arrive`,
      w ? w.complete && w.keptPace && w.latency.p99 <= limits.webhookP99Ms : undefined
    )
    const h = r.webhooks?.headroom
    row(
      `webhooks: p99 event → delivery, ${hooks ?? 2} hooks at ${limits.webhookHeadroomShare * 100} % of the createInvoice rate`,
      h
        ? `${ms(h.latency.p99)}; ${int(h.unique)} of ${int(h.expected)} arrived; invoices went in at ${int(h.invoiceRate)}/s of ${int(h.offered)}/s offered; ${ms(cpuOf(h))} of server CPU per invoice with its notifications`
        : "—",
      ci ? `createInvoice ${int(ci.rate)} req/s, ${ms(cpuOf(ci))}` : "—",
      undefined,
      "—",
      undefined
    )

    const cold = r.coldStart?.median !== undefined && r.nodeStart?.median !== undefined ? r.coldStart.median / r.nodeStart.median : undefined
    row("cold start (spawn → first /health; baseline: node -e 0)", ms(r.coldStart?.median), ms(r.nodeStart?.median), cold, `≤ ${limits.coldStart}`, cold === undefined ? undefined : cold <= limits.coldStart)

    const rss = ci?.memory && floor?.memory ? ci.memory.hwmMB / floor.memory.hwmMB : undefined
    row("peak RSS under the createInvoice load", ci?.memory ? `${int(ci.memory.hwmMB)} MB` : "—", floor?.memory ? `${int(floor.memory.hwmMB)} MB` : "—", rss, `≤ ${limits.rss}`, rss === undefined ? undefined : rss <= limits.rss)

    const wd = r.withdrawals
    row(
      "withdrawal flow CPU per flow (deposit, quote, withdrawal, polls)",
      wd ? `${ms(cpuOf(wd))} (${wd.rate.toFixed(1)} flows/s at ${wd.concurrency}, p99 ${ms(wd.latency.p99)})` : "—",
      ms(floorCpu),
      cpuOf(wd) !== undefined && floorCpu !== undefined ? cpuOf(wd) / floorCpu : undefined,
      "—",
      undefined
    )
  }
  return rows
}

/** The targets table: Kassa's figure, the baseline's, their ratio, the limit and the verdict. */
export const targetsMarkdown = (rows) =>
  [
    "| target | store | Kassa | baseline (same run) | ratio | limit | result |",
    "|---|---|---|---|---:|---|---|",
    ...rows.map((r) =>
      `| ${r.target} | ${r.store} | ${r.kassa} | ${r.baseline} | ${ratio(r.ratio)} | ${r.limit} | ${r.pass === undefined ? "—" : r.pass ? "pass" : "**miss**"} |`
    )
  ].join("\n")

export const targetsNote =
  "*Ratio* is Kassa's figure ÷ the baseline's, both measured in this run: the floor (bare `node:http`, one INSERT per createInvoice, one SELECT by primary key per read, on the same store) or an empty `node -e 0`. CPU per request is the server process's CPU time over the measured window ÷ the requests answered; a flow's, ÷ the flows completed (every request and poll of the flow, and the background work it starts). Statements are counted by Kassa itself (`KASSA_COUNT_STATEMENTS=true`): a payment's and a refund's include their processing, BEGIN and COMMIT excluded. The withdrawal flow has no target; its CPU stands next to the floor's CPU per request."

/** How many targets were missed. */
export const missCount = (rows) => rows.filter((r) => r.pass === false).length

/**
 * The bench's report, in markdown: the targets table (targets.mjs), every measurement with the
 * server's CPU, start and memory, PostgreSQL's work per createInvoice, statements per operation
 * and while idle, webhook delivery, search, the profile and the harness's errors.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { profileMarkdown } from "./profile.mjs"
import { dialectName, limits, missCount, targetRows, targetsMarkdown, targetsNote } from "./targets.mjs"

const int = (n) => (n === undefined || !Number.isFinite(n) ? "—" : Math.round(n).toLocaleString("en-US"))
const ms = (n) => (n === undefined || !Number.isFinite(n) ? "—" : n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`)

/**
 * The report of a run: `results[dialect]` as run.mjs measured them, `skipped[dialect]` why a store
 * was not run, `errors` the harness's, `cfg` the run's configuration.
 */
export const renderReport = ({ results, skipped, errors, cfg, quick, startedAt, machineInfo, loadBefore, loadAfter }) => {
  const lines = []
  const rows = targetRows(results, { skipped })
  const misses = missCount(rows)
  const skippedNotes = ["pg", "sqlite"].filter((d) => skipped[d] !== undefined).map((d) => `${dialectName[d]} not run: ${skipped[d]}.`)

  lines.push(`# Kassa benchmark, ${startedAt.toISOString().slice(0, 19).replace("T", " ")} UTC${quick ? " — QUICK smoke run (BENCH_QUICK=1): short scenarios, figures are indicative only" : ""}`)
  lines.push("")
  lines.push(`- machine: ${machineInfo.cpu}, ${machineInfo.memory} RAM, ${machineInfo.os}`)
  lines.push(`- Node ${machineInfo.node}; PostgreSQL ${machineInfo.pg}; SQLite ${machineInfo.sqlite} (better-sqlite3: journal_mode=WAL, synchronous=FULL as Kassa runs it); commit ${machineInfo.commit}`)
  lines.push(`- load average (1/5/15 min): before ${loadBefore}, after ${loadAfter}; the load generator runs on the same machine (one Node process)`)
  lines.push(
    `- durations: createInvoice ${cfg.createInvoice.durationMs / 1000} s after ${cfg.createInvoice.warmupMs / 1000} s warm-up; flows ${cfg.flows.durationMs / 1000} s per level; withdrawal flows ${cfg.withdrawals.durationMs / 1000} s at ${cfg.withdrawals.concurrency}; reads ${cfg.reads.durationMs / 1000} s; webhooks ${cfg.webhooks.durationMs / 1000} s of load (${cfg.webhooks.hooks} webhooks); cold start ×${cfg.coldStarts}`
  )
  lines.push("")
  lines.push("## Targets")
  lines.push("")
  lines.push(targetsMarkdown(rows))
  lines.push("")
  if (skippedNotes.length > 0) lines.push(skippedNotes.join(" "), "")
  lines.push(targetsNote)
  lines.push("")

  lines.push("## All measurements")
  lines.push("")
  lines.push("| scenario | server | concurrency | ok | failed | rate | p50 | p90 | p99 | max | server CPU: cores, ms/op (kernel share) | load generator, cores | others (DB incl.), cores | load1 at start |")
  lines.push("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
  const cores = (n) => (n === undefined || !Number.isFinite(n) ? "—" : n.toFixed(2))
  const detail = (scenario, server, x, unit = "req/s", extra = "") => {
    if (!x) return
    const l = x.latency
    const c = x.cpu
    lines.push(
      `| ${scenario} | ${server} | ${x.concurrency} | ${int(x.ok)} | ${int(x.failed)} | ${int(x.rate)} ${unit}${extra} | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.max)} | ${c ? `${cores(c.serverCores)}, ${c.serverMsPerOp?.toFixed(2) ?? "—"}${c.serverSysShare !== undefined ? ` (${Math.round(c.serverSysShare * 100)}% sys)` : ""}` : "—"} | ${cores(c?.runnerCores)} | ${cores(c?.otherCores)} | ${x.load1?.toFixed(2) ?? "—"} |`
    )
  }
  for (const d of ["pg", "sqlite"]) {
    const r = results[d]
    const D = dialectName[d]
    detail("1 createInvoice", `floor, ${D}`, r.floor)
    detail("1 createInvoice", `floor, ${D}, synchronous=NORMAL (informational)`, r.floorNormal)
    detail("1 createInvoice", `Kassa, ${D}`, r.createInvoice)
    for (const f of r.flows ?? []) detail("2 full flow", `Kassa, ${D}`, f, "flows/s", ` (${f.pollsPerFlow.toFixed(1)} polls/flow)`)
    detail("2 withdrawal flow", `Kassa, ${D}`, r.withdrawals, "flows/s", r.withdrawals ? ` (${r.withdrawals.pollsPerFlow.toFixed(1)} polls/flow)` : "")
    detail("3 getInvoiceByID", `floor, ${D} (GET by primary key)`, r.floorRead)
    detail("3 getInvoiceByID", `Kassa, ${D}`, r.getInvoice)
    detail("3 getInvoiceEvents", `Kassa, ${D}`, r.getEvents)
    const w = r.webhooks
    if (w?.available) {
      for (const [phase, x] of [["paced", w.paced], [`paced at ${limits.webhookHeadroomShare}`, w.headroom], ["full load", w.full]]) {
        if (x === undefined) continue
        const l = x.latency
        const c = x.cpu
        lines.push(
          `| 4 webhooks, ${phase} (event → delivery) | Kassa, ${D} | ${w.hooks} hooks | ${int(x.received)} of ${int(x.expected)} | ${int(Math.max(0, x.expected - x.unique))} | ${int(x.rate)} notif/s (invoices ${int(x.invoiceRate)}/s) | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.max)} | ${c ? `${cores(c.serverCores)}, ${c.serverMsPerOp === undefined || x === w.full ? "—" : `${ms(c.serverMsPerOp)} per invoice`}` : "—"} | ${cores(c?.runnerCores)} | ${cores(c?.otherCores)} | ${x.load1?.toFixed(2) ?? "—"} |`
        )
      }
    }
  }
  lines.push("")
  lines.push(
    `Rates count successful operations over the measured window (warm-up excluded); latencies are per operation (a full flow: createInvoice → createPaymentResource → createPayment → getPaymentByID every 20 ms until \`captured\`; a withdrawal flow: the operator's deposit, getDeposit every 20 ms until Succeeded, createQuote, createWithdrawal, getWithdrawal every 20 ms until Succeeded, one wallet per concurrent flow). Percentiles are nearest-rank over every sample. CPU columns cover the measured window: the server process (cores busy, CPU ms per successful operation, and the share spent in the kernel), the load generator (this process), and everything else on the machine (PostgreSQL's backends, other engineers' jobs) from /proc/stat; the machine has ${os.cpus().length} cores in all.`
  )
  lines.push("")

  lines.push("## Start and memory")
  lines.push("")
  lines.push("| store | first start (fresh store: migrations, demo merchant) | cold starts (existing store) | node -e 0 | scenario 1 peak RSS: VmHWM / max sampled VmRSS | whole run VmHWM | floor VmHWM |")
  lines.push("|---|---:|---|---|---:|---:|---:|")
  for (const d of ["pg", "sqlite"]) {
    const r = results[d]
    if (skipped[d] !== undefined) continue
    const m = r.createInvoice?.memory
    lines.push(
      `| ${dialectName[d]} | ${ms(r.firstStartMs)} | ${r.coldStart ? r.coldStart.times.map((t) => ms(t)).join(", ") : "—"} | ${r.nodeStart ? r.nodeStart.times.map((t) => ms(t)).join(", ") : "—"} | ${m ? `${int(m.hwmMB)} MB / ${int(m.maxRssMB)} MB` : "—"} | ${r.lifetimeMemory ? `${int(r.lifetimeMemory.hwmMB)} MB` : "—"} | ${r.floor?.memory ? `${int(r.floor.memory.hwmMB)} MB` : "—"} |`
    )
  }
  lines.push("")

  const pgPer = [["floor", results.pg.floor?.pgPerRequest], ["Kassa", results.pg.createInvoice?.pgPerRequest]].filter(([, x]) => x !== undefined)
  if (pgPer.length > 0) {
    lines.push("## PostgreSQL work per createInvoice (pg_stat_database deltas ÷ requests answered 201, warm-up included)")
    lines.push("")
    lines.push("| server | commits | rows inserted | rows updated | rows deleted | rows fetched | buffer accesses |")
    lines.push("|---|---:|---:|---:|---:|---:|---:|")
    const f2 = (n) => (n ?? 0).toFixed(2)
    for (const [name, x] of pgPer) lines.push(`| ${name} | ${f2(x.commits)} | ${f2(x.inserted)} | ${f2(x.updated)} | ${f2(x.deleted)} | ${f2(x.fetched)} | ${f2(x.blocks)} |`)
    lines.push("")
  }

  for (const d of ["pg", "sqlite"]) {
    const st = results[d].statements
    if (st === undefined) continue
    lines.push(`## SQL statements per operation (${dialectName[d]}; ${st.flows} sequential payment flows after a warm-up, counted by Kassa with KASSA_COUNT_STATEMENTS=true)`)
    lines.push("")
    lines.push("Each flow: createInvoice, createPaymentResource, createPayment (instant or hold, alternately; a hold is captured with capturePayment), polls until captured, a partial refund polled until succeeded, getInvoiceByID, getInvoiceEvents. Statements of the background work a request starts (a payment's authorisation and capture, a refund's processing) count as the request's; `BEGIN` and `COMMIT` are not counted.")
    lines.push("")
    lines.push("| operation or work | requests | statements | per request | per flow |")
    lines.push("|---|---:|---:|---:|---:|")
    for (const row of st.rows) {
      lines.push(`| ${row.work} | ${row.requests === undefined ? "—" : int(row.requests)} | ${int(row.statements)} | ${row.perRequest === undefined ? "—" : row.perRequest.toFixed(1)} | ${row.perFlow === undefined ? "—" : row.perFlow.toFixed(1)} |`)
    }
    lines.push("")
    lines.push("`webhooks` is the dispatcher's fan-out of the outbox (no webhook is registered here), `timers` the scheduler's passes, `timer:<kind>` work a durable timer resumed, `signals` the `pg_notify` that wakes other processes' dispatchers, `search` the search rollups' compactor, `cache` the reads of what is kept for a time (a shop with its party and contract for 1 s, an API key for 5 s), counted apart from the request that found its entry expired.")
    lines.push("")
  }

  const idle = ["pg", "sqlite"].map((d) => [d, results[d].idle]).filter(([, x]) => x !== undefined)
  if (idle.length > 0) {
    lines.push("## SQL statements while idle (target: none; a counting server left alone after a settling pause; \`metrics\` is the probe's own reads, not counted)")
    lines.push("")
    lines.push("| store | seconds | statements | by work | commits (pg_stat_database) | target |")
    lines.push("|---|---:|---:|---|---:|---|")
    for (const [d, x] of idle) {
      const works = Object.entries(x.byWork).map(([w, n]) => `${w} ${n}`).join(", ") || "—"
      lines.push(`| ${d} | ${x.seconds} | ${x.statements} | ${works} | ${x.commits === undefined ? "—" : x.commits} | ${x.statements === 0 ? "pass" : "miss"} |`)
    }
    lines.push("")
  }

  const webhookNotes = ["pg", "sqlite"].map((d) => [d, results[d].webhooks]).filter(([, w]) => w?.available)
  if (webhookNotes.length > 0) {
    lines.push("## Webhooks")
    lines.push("")
    const phase = (x) =>
      `${int(x.expected)} notifications expected, ${int(x.received)} received (${int(x.unique)} distinct) at ${int(x.rate)}/s; event → delivery p50 ${ms(x.latency.p50)}, p99 ${ms(x.latency.p99)}, max ${ms(x.latency.max)}; without Content-Signature: ${x.unsigned}; unparsable: ${x.badBodies}`
    for (const [d, w] of webhookNotes) {
      const p = w.paced
      const h = w.headroom
      const f = w.full
      const paced = (x, share) =>
        `paced at ${int(x.offered)} invoices/s (${share} × this run's createInvoice rate; they went in at ${int(x.invoiceRate)}/s, ${int(x.failed)} failed): ${phase(x)}; server CPU ${ms(x.cpu?.serverMsPerOp)} per invoice with its notifications (${ms(x.cpu?.serverMainMsPerOp)} on the event loop), machine ${x.cpu?.machineBusy === undefined ? "—" : `${Math.round(x.cpu.machineBusy * 100)} %`} busy. `
      lines.push(
        `- ${dialectName[d]}, ${w.hooks} webhooks${w.note ? ` (${w.note})` : ""}: ${p ? paced(p, limits.webhookShare) : ""}${h ? `Then ${paced(h, limits.webhookHeadroomShare)}` : ""}` +
          `Then as fast as the server takes invoices: ${int(f.invoices)} at ${int(f.invoiceRate)}/s, ${phase(f)}; the last one ${(f.spanMs / 1000).toFixed(1)} s after the load began (drain wait ${(f.drainedMs / 1000).toFixed(1)} s); by type ${JSON.stringify(f.byType)}.`
      )
    }
    lines.push("")
    lines.push("A phase's rate is notifications received ÷ time from its start to its last delivery. The paced phase is the target: its invoices go in at a fixed pace, open loop, and every notification must arrive within the p99. The second paced phase, at a pace the machine has room for, shows the latency without a queue (no target). At the full load that follows a queue builds up and the p99 is mostly its wait (informational: the delivered rate is the dispatcher's capacity next to the load).")
    lines.push("")
  }

  const search = results.pg.search
  if (search !== undefined || fs.existsSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "search.mjs"))) {
    lines.push("## Search")
    lines.push("")
    if (search === undefined) lines.push("Not measured (failed or PostgreSQL not run; see errors).")
    else if (!search.available) lines.push(`Not available: ${search.reason}.`)
    else {
      lines.push(`benchSearch on PostgreSQL, rows ${int(cfg.searchRows)}, ${(search.elapsedMs / 1000).toFixed(1)} s:`)
      lines.push("")
      lines.push(renderForeign(search.result))
    }
    lines.push("")
  }

  const profile = results.pg.profile
  if (profile !== undefined) {
    lines.push("## Where the time goes: createInvoice on PostgreSQL (`node --cpu-prof`)")
    lines.push("")
    lines.push(`Under ${profile.load.concurrency} connections for ${(cfg.profileMs / 1000).toFixed(0)} s: ${int(profile.load.rate)} req/s (p99 ${ms(profile.load.latency.p99)}) with the profiler on. Raw profile: \`${profile.file}\`.`)
    lines.push("")
    lines.push(profileMarkdown(profile.summary))
    lines.push("")
  }

  if (errors.length > 0) {
    lines.push("## Errors")
    lines.push("")
    for (const e of errors) {
      lines.push(`- ${e.label}:`)
      lines.push("")
      lines.push("```")
      lines.push(e.message.slice(0, 4_000))
      lines.push("```")
    }
    lines.push("")
  }
  const failures = []
  for (const d of ["pg", "sqlite"]) {
    const r = results[d]
    for (const [name, x] of [["floor createInvoice", r.floor], ["floor read", r.floorRead], ["createInvoice", r.createInvoice], ...(r.flows ?? []).map((f) => [`flow ×${f.concurrency}`, f]), ["withdrawal flow", r.withdrawals], ["getInvoiceByID", r.getInvoice], ["getInvoiceEvents", r.getEvents]]) {
      if (x?.failed > 0) failures.push(`- ${dialectName[d]} ${name}: ${x.failed} failed, statuses ${JSON.stringify(x.statuses)}; e.g. ${x.errorSamples.slice(0, 2).join(" | ")}`)
    }
  }
  if (failures.length > 0) {
    lines.push("## Failed requests")
    lines.push("")
    lines.push(...failures)
    lines.push("")
  }
  return { markdown: lines.join("\n"), misses }
}

/** Renders whatever benchSearch returned: markdown text, an array of rows, or an object. */
const renderForeign = (value) => {
  if (typeof value === "string") return value
  const rowsOf = Array.isArray(value) ? value : Array.isArray(value?.rows) ? value.rows : undefined
  if (rowsOf !== undefined && rowsOf.length > 0 && rowsOf.every((r) => r !== null && typeof r === "object")) {
    const keys = [...new Set(rowsOf.flatMap((r) => Object.keys(r)))]
    const cell = (v) => (typeof v === "number" ? (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(1)) : v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v))
    const out = [`| ${keys.join(" | ")} |`, `|${keys.map(() => "---").join("|")}|`, ...rowsOf.map((r) => `| ${keys.map((k) => cell(r[k]).replace(/\|/g, "\\|")).join(" | ")} |`)]
    if (typeof value?.markdown === "string") out.push("", value.markdown)
    return out.join("\n")
  }
  if (typeof value?.markdown === "string") return value.markdown
  return "```json\n" + JSON.stringify(value, null, 2) + "\n```"
}


/**
 * Statements while idle: a Kassa started with KASSA_COUNT_STATEMENTS=true is left alone (after a
 * settling pause) for `seconds`, and the SQL statements it sent meanwhile are read from its
 * `/metrics` (by work; the `metrics` work, the probe's own reads, is left out of the total); on
 * PostgreSQL also the commits of its database (pg_stat_database), which count what the driver's
 * counter cannot see (BEGIN/COMMIT pairs). An idle backend reports its counts to
 * pg_stat_database up to 10 s late, so the settling pause is 11 s there.
 *
 *   node packages/testing/bench/idle.mjs pg|sqlite [seconds]   (KASSA_BUNDLE=<file> for another build)
 */
import { sleep } from "./load.mjs"

const statementsByWork = (text) => {
  const out = new Map()
  for (const m of text.matchAll(/^kassa_sql_statements_total\{work="([^"]*)"\} (\S+)$/gm)) out.set(m[1], Number(m[2]))
  return out
}

/**
 * `server`: a started Kassa (`startKassa`) that counts statements; `commits`: an async reader of
 * its database's commit count, on PostgreSQL.
 */
export const idleScenario = async (server, { seconds, commits, settleMs = commits === undefined ? 3_000 : 11_000 }) => {
  const metrics = async () => statementsByWork(await (await fetch(`${server.baseUrl}/metrics`)).text())
  await sleep(settleMs)
  const before = await metrics()
  const commitsBefore = commits === undefined ? undefined : await commits()
  await sleep(seconds * 1000)
  const after = await metrics()
  const commitsAfter = commits === undefined ? undefined : await commits()
  const byWork = {}
  let statements = 0
  for (const [work, n] of after) {
    const d = n - (before.get(work) ?? 0)
    if (d > 0) {
      byWork[work] = d
      if (work !== "metrics") statements += d
    }
  }
  return {
    seconds,
    statements,
    byWork,
    commits: commitsBefore === undefined ? undefined : commitsAfter - commitsBefore
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startDevKassa } = await import("./devServer.mjs")
  const { execFileSync } = await import("node:child_process")
  const dialect = process.argv[2] === "sqlite" ? "sqlite" : "pg"
  const seconds = Number(process.argv[3] ?? 10)
  const dev = await startDevKassa(dialect, { name: "idle", env: { KASSA_COUNT_STATEMENTS: "true" } })
  const commits = dev.database === undefined ? undefined : async () =>
    Number(execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-Atqc",
      `SELECT xact_commit FROM pg_stat_database WHERE datname = '${dev.database}'`]).toString().trim())
  try {
    const r = await idleScenario(dev.server, { seconds, commits })
    console.log(`${dialect}: ${r.statements} statements in ${seconds} s idle${r.commits === undefined ? "" : `, ${r.commits} commits`}`, r.byWork)
  } finally {
    await dev.stop()
  }
}

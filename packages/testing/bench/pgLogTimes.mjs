// Dev helper: PostgreSQL's time per statement text, from its server log, for a dev helper's
// database run with `DEV_PG_DURATIONS=1` (every statement logged with its duration). Lock waits
// show here as statements far slower than their peers.
// node packages/testing/bench/pgLogTimes.mjs <log file> [first line] [top]
// (first line: `wc -l < <log file>` taken before the run, so that only its lines count)
import * as fs from "node:fs"

const [file, fromLine = "1", top = "25"] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: node pgLogTimes.mjs <log file> [first line] [top]")
  process.exit(2)
}
const lines = fs.readFileSync(file, "utf8").split("\n").slice(Number(fromLine) - 1)
const totals = new Map()
for (const line of lines) {
  const m = /duration: ([\d.]+) ms\s+(parse|bind|execute|statement)[^:]*: (.*)/.exec(line)
  if (m === null) continue
  const key = `${m[2].padEnd(9)} ${m[3].slice(0, 110)}`
  const t = totals.get(key) ?? { n: 0, ms: 0, max: 0 }
  t.n++
  t.ms += Number(m[1])
  t.max = Math.max(t.max, Number(m[1]))
  totals.set(key, t)
}
const all = [...totals.values()].reduce((sum, t) => sum + t.ms, 0)
console.log(`${Math.round(all)} ms in ${[...totals.values()].reduce((sum, t) => sum + t.n, 0)} logged steps`)
console.log("total ms   runs    mean µs    max ms  step and statement")
for (const [key, t] of [...totals.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(top))) {
  console.log(`${t.ms.toFixed(1).padStart(8)} ${String(t.n).padStart(6)} ${(t.ms / t.n * 1000).toFixed(1).padStart(10)} ${t.max.toFixed(1).padStart(9)}  ${key}`)
}

/**
 * Preload (`DEV_NODE_ARGS="--import <this file>"`): times every SQLite statement the server runs
 * (better-sqlite3's `prepare` wrapped, so BEGIN and COMMIT too) and, at exit, writes the costliest
 * texts to stderr (the server log) as `SQLITE <runs> <total ms> <µs per run> <text>`.
 */
import { createRequire } from "node:module"

const Database = createRequire(new URL("../../../adapters/package.json", import.meta.url))("better-sqlite3")
const times = new Map()
const prepare = Database.prototype.prepare
Database.prototype.prepare = function(text) {
  const statement = prepare.call(this, text)
  for (const method of ["run", "all", "get"]) {
    const original = statement[method]
    statement[method] = function(...args) {
      const started = process.hrtime.bigint()
      try {
        return original.apply(this, args)
      } finally {
        const entry = times.get(text) ?? { runs: 0, ns: 0n }
        entry.runs++
        entry.ns += process.hrtime.bigint() - started
        times.set(text, entry)
      }
    }
  }
  return statement
}

process.on("exit", () => {
  const total = [...times.values()].reduce((sum, e) => sum + e.ns, 0n)
  process.stderr.write(`SQLITE total ${Number(total) / 1e6} ms\n`)
  for (const [text, { runs, ns }] of [...times].sort((a, b) => Number(b[1].ns - a[1].ns)).slice(0, 20)) {
    process.stderr.write(`SQLITE ${runs} ${(Number(ns) / 1e6).toFixed(0)} ms ${(Number(ns) / runs / 1e3).toFixed(1)} µs ${text.replace(/\s+/g, " ").slice(0, 200)}\n`)
  }
})

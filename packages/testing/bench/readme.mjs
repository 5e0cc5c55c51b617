/**
 * Copies the targets table of a full run's report into the repository's README, between the
 * `<!-- bench:latest -->` and `<!-- /bench:latest -->` lines, with the run's file, date, commit
 * and machine above it.
 *
 *   node packages/testing/bench/readme.mjs [bench/results/<file>.md]   (default: the newest full run)
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot } from "./server.mjs"

const resultsDir = path.join(repoRoot, "bench", "results")
const readmePath = path.join(repoRoot, "README.md")
const begin = "<!-- bench:latest -->"
const end = "<!-- /bench:latest -->"

const newestFullRun = () => {
  const files = fs.readdirSync(resultsDir).filter((f) => f.endsWith(".md") && !f.includes("-quick"))
  if (files.length === 0) throw new Error(`no full run in ${resultsDir}`)
  return path.join(resultsDir, files.sort((a, b) => fs.statSync(path.join(resultsDir, b)).mtimeMs - fs.statSync(path.join(resultsDir, a)).mtimeMs)[0])
}

const file = process.argv[2] !== undefined ? path.resolve(process.argv[2]) : newestFullRun()
const report = fs.readFileSync(file, "utf8").split("\n")
const title = report[0].match(/^# Kassa benchmark, (.+ UTC)/)?.[1]
if (title === undefined || report[0].includes("QUICK")) throw new Error(`${file} is not the report of a full run`)
const commit = report.find((l) => l.startsWith("- Node "))?.match(/; commit (.+)$/)?.[1] ?? "?"
const machine = report.find((l) => l.startsWith("- machine: "))?.slice("- machine: ".length).split(",")[0] ?? "?"
const load = report.find((l) => l.startsWith("- load average"))?.match(/before (\S+)/)?.[1] ?? "?"
const at = report.indexOf("## Targets")
if (at < 0) throw new Error(`${file} has no targets table`)
const table = report.slice(at + 2).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith("|")))

const relative = path.relative(repoRoot, file)
const block = [
  begin,
  `Latest full run: [\`${relative}\`](${relative}), ${title}, commit ${commit}, ${machine} (load average ${load} at the start).`,
  "",
  ...table,
  end
].join("\n")

const readme = fs.readFileSync(readmePath, "utf8")
const from = readme.indexOf(begin)
const to = readme.indexOf(end)
if (from < 0 || to < from) throw new Error(`README.md has no ${begin} … ${end} block`)
fs.writeFileSync(readmePath, readme.slice(0, from) + block + readme.slice(to + end.length))
console.log(`README.md: the targets table of ${relative}`)

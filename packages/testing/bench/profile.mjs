/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by package,
 * with bundle positions mapped back to their sources through the bundle's source map.
 *
 *   node packages/testing/bench/profile.mjs <file.cpuprofile> [top]
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const B64 = new Map([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c, i) => [c, i]))

/** Decodes a source map's `mappings` into per-line arrays of [genCol, src, line, col, name?]. */
const decodeMappings = (mappings) => {
  const lines = []
  let src = 0
  let srcLine = 0
  let srcCol = 0
  let name = 0
  for (const lineText of mappings.split(";")) {
    const segments = []
    let genCol = 0
    if (lineText.length > 0) {
      for (const segText of lineText.split(",")) {
        const values = []
        let value = 0
        let shift = 0
        for (const ch of segText) {
          const digit = B64.get(ch)
          value += (digit & 31) << shift
          if (digit & 32) shift += 5
          else {
            values.push(value & 1 ? -(value >>> 1) : value >>> 1)
            value = 0
            shift = 0
          }
        }
        genCol += values[0]
        if (values.length >= 4) {
          src += values[1]
          srcLine += values[2]
          srcCol += values[3]
          if (values.length >= 5) name += values[4]
          segments.push([genCol, src, srcLine, srcCol])
        }
      }
    }
    lines.push(segments)
  }
  return lines
}

const sourceMaps = new Map()
const loadSourceMap = (url) => {
  if (sourceMaps.has(url)) return sourceMaps.get(url)
  let result
  try {
    const file = url.startsWith("file://") ? fileURLToPath(url) : url
    const map = JSON.parse(fs.readFileSync(`${file}.map`, "utf8"))
    const root = path.resolve(path.dirname(file), map.sourceRoot ?? "")
    result = { sources: map.sources.map((s) => path.resolve(root, s)), lines: decodeMappings(map.mappings) }
  } catch {
    result = undefined
  }
  sourceMaps.set(url, result)
  return result
}

/** `{ source, line }` (1-based line) of a generated position, or undefined. */
export const originalPosition = (url, line0, col0) => {
  const map = loadSourceMap(url)
  const segments = map?.lines[line0]
  if (segments === undefined || segments.length === 0) return undefined
  let lo = 0
  let hi = segments.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (segments[mid][0] <= col0) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  const seg = segments[found === -1 ? 0 : found]
  return { source: map.sources[seg[1]], line: seg[2] + 1 }
}

export const shortSource = (source) => {
  const nm = source.lastIndexOf("node_modules/")
  if (nm >= 0) return source.slice(nm + "node_modules/".length)
  const pk = source.indexOf("packages/")
  if (pk >= 0) return source.slice(pk)
  return source.replace(/^(\.\.\/)+/, "")
}

const packageOf = (where, url, functionName) => {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)"
  if (url.startsWith("node:")) return "node internals"
  if (where.startsWith("packages/")) return `@kassa/${where.split("/")[1]}`
  if (!url.startsWith("file://") || where === url || /\.m?js:\d+$/.test(where)) return "(unmapped bundle code)"
  const m = where.match(/^(@[^/]+\/[^/]+|[^/]+)\//)
  return m ? m[1] : where
}

/** A .cpuprofile with what every summary needs: the time a sample stands for, nodes by id, parents. */
const loadProfile = (file) => {
  const profile = JSON.parse(fs.readFileSync(file, "utf8"))
  const totalMs = (profile.endTime - profile.startTime) / 1000
  const perSample = profile.samples.length > 0 ? totalMs / profile.samples.length : 0
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parentOf = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)
  return { profile, totalMs, perSample, byId, parentOf }
}

/**
 * @param {string} file a .cpuprofile
 * @param {number} [top]
 */
export const summarizeProfile = (file, top = 25) => {
  const { profile, totalMs, perSample, byId, parentOf } = loadProfile(file)
  const counts = new Map()
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1)
  const byFunction = new Map()
  const byPackage = new Map()
  /** The nearest ancestor frame in application code (the bundle), mapped: who asked for this work. */
  const callerOf = (node) => {
    let id = parentOf.get(node.id)
    for (let depth = 0; id !== undefined && depth < 40; depth++) {
      const f = byId.get(id).callFrame
      if (f.url.startsWith("file://")) {
        const pos = originalPosition(f.url, f.lineNumber, f.columnNumber)
        return `${f.functionName || "(anonymous)"} ${pos ? `${shortSource(pos.source)}:${pos.line}` : `${f.url.split("/").pop()}:${f.lineNumber + 1}`}`
      }
      id = parentOf.get(id)
    }
    return undefined
  }
  for (const node of profile.nodes) {
    const hits = counts.get(node.id) ?? 0
    if (hits === 0) continue
    const { functionName, url, lineNumber, columnNumber } = node.callFrame
    const name = functionName || "(anonymous)"
    let where = url === "" ? "" : url.startsWith("node:") ? `${url}:${lineNumber + 1}` : `${url.split("/").pop()}:${lineNumber + 1}`
    let pkgWhere = where
    if (url.startsWith("file://")) {
      const pos = originalPosition(url, lineNumber, columnNumber)
      if (pos !== undefined) {
        pkgWhere = shortSource(pos.source)
        where = `${pkgWhere}:${pos.line}`
      }
    }
    const key = `${name} ${where}`
    const ms = hits * perSample
    const entry = byFunction.get(key) ?? { name, where, ms: 0, callers: new Map() }
    entry.ms += ms
    if (!url.startsWith("file://")) {
      const caller = callerOf(node)
      if (caller !== undefined) entry.callers.set(caller, (entry.callers.get(caller) ?? 0) + ms)
    }
    byFunction.set(key, entry)
    const pkg = packageOf(pkgWhere, url, name)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms)
  }
  const sampledMs = [...byFunction.values()].reduce((s, f) => s + f.ms, 0)
  const busyMs = sampledMs - (byPackage.get("(idle)") ?? 0)
  const functions = [...byFunction.values()].sort((a, b) => b.ms - a.ms).slice(0, top)
  const packages = [...byPackage.entries()].map(([pkg, ms]) => ({ pkg, ms })).sort((a, b) => b.ms - a.ms)
  return { totalMs, sampledMs, busyMs, functions, packages }
}

/**
 * Inclusive time of the application's own frames (sources whose path matches `pattern`): each
 * sample counts once for every distinct such function on its stack. Effect runs a generator's
 * steps from its run loop, so a function's figure holds the synchronous work under it, not the
 * effects it yields.
 */
export const inclusiveProfile = (file, pattern = /^packages\/|^@effect\/(platform|sql)/, top = 40) => {
  const { profile, perSample, byId, parentOf } = loadProfile(file)
  const labelOf = new Map()
  const label = (node) => {
    if (labelOf.has(node.id)) return labelOf.get(node.id)
    const { functionName, url, lineNumber, columnNumber } = node.callFrame
    let result
    if (url.startsWith("file://")) {
      const pos = originalPosition(url, lineNumber, columnNumber)
      const source = pos === undefined ? undefined : shortSource(pos.source)
      if (source !== undefined && pattern.test(source)) result = `${functionName || "(anonymous)"} ${source}:${pos.line}`
    }
    labelOf.set(node.id, result)
    return result
  }
  const stackLabels = new Map()
  const labelsOf = (id) => {
    if (stackLabels.has(id)) return stackLabels.get(id)
    const parent = parentOf.get(id)
    const set = new Set(parent === undefined ? [] : labelsOf(parent))
    const own = label(byId.get(id))
    if (own !== undefined) set.add(own)
    stackLabels.set(id, set)
    return set
  }
  let busy = 0
  const totals = new Map()
  for (const id of profile.samples) {
    if (byId.get(id).callFrame.functionName === "(idle)") continue
    busy += perSample
    for (const l of labelsOf(id)) totals.set(l, (totals.get(l) ?? 0) + perSample)
  }
  return { busyMs: busy, functions: [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, ms]) => ({ name, ms })) }
}

/**
 * Who runs a function: for the samples with a frame at `where` (e.g.
 * `effect/src/internal/context.ts:290`) on their stack, the chains of the nearest `depth` frames
 * above it outside Effect, by time. A runtime function's own name says little; its
 * callers in Kassa, `@effect/platform` or `@effect/sql` say which code asks for it.
 */
export const callersProfile = (file, where, depth = 3, top = 20) => {
  const { profile, perSample, byId, parentOf } = loadProfile(file)
  const labels = new Map()
  const label = (node) => {
    if (!labels.has(node.id)) {
      const { functionName, url, lineNumber, columnNumber } = node.callFrame
      const pos = url.startsWith("file://") ? originalPosition(url, lineNumber, columnNumber) : undefined
      labels.set(node.id, pos === undefined ? undefined : { name: functionName || "(anonymous)", where: `${shortSource(pos.source)}:${pos.line}` })
    }
    return labels.get(node.id)
  }
  const chains = new Map()
  let total = 0
  for (const leaf of profile.samples) {
    let id = leaf
    while (id !== undefined && label(byId.get(id))?.where !== where) id = parentOf.get(id)
    if (id === undefined) continue
    total += perSample
    const chain = []
    for (id = parentOf.get(id); id !== undefined && chain.length < depth; id = parentOf.get(id)) {
      const l = label(byId.get(id))
      if (l !== undefined && !l.where.startsWith("effect/src/")) chain.push(`${l.name} ${l.where}`)
    }
    const key = chain.join(" < ") || "(no caller outside Effect)"
    chains.set(key, (chains.get(key) ?? 0) + perSample)
  }
  return { totalMs: total, chains: [...chains.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([chain, ms]) => ({ chain, ms })) }
}

const f1 = (n) => n.toFixed(1)

/** Markdown for a summary: share of the busy (non-idle) time. */
export const profileMarkdown = (summary) => {
  const pct = (ms) => `${f1((ms / summary.busyMs) * 100)}%`
  const lines = []
  lines.push(`Profile: ${f1(summary.totalMs / 1000)} s wall, ${f1(summary.busyMs / 1000)} s on CPU (not idle). Shares are of the CPU (non-idle) time.`)
  lines.push("")
  lines.push("| self time by package | ms | share |")
  lines.push("|---|---:|---:|")
  for (const p of summary.packages.filter((p) => p.pkg !== "(idle)").slice(0, 15)) lines.push(`| ${p.pkg} | ${f1(p.ms)} | ${pct(p.ms)} |`)
  lines.push("")
  lines.push("| top self-time functions | where | ms | share | called from (nearest application frame, for runtime/native code) |")
  lines.push("|---|---|---:|---:|---|")
  for (const f of summary.functions.filter((f) => f.name !== "(idle)")) {
    const callers = [...f.callers.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([c, ms]) => `\`${c}\` (${Math.round((ms / f.ms) * 100)}%)`).join("; ")
    lines.push(`| \`${f.name}\` | ${f.where || "—"} | ${f1(f.ms)} | ${pct(f.ms)} | ${callers} |`)
  }
  return lines.join("\n")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, topArg] = process.argv.slice(2).filter((a) => !a.startsWith("--"))
  if (!file) {
    console.error("usage: node profile.mjs <file.cpuprofile> [top] [--inclusive]\n       node profile.mjs <file.cpuprofile> [depth] --callers=<source:line>")
    process.exit(2)
  }
  const callers = process.argv.find((a) => a.startsWith("--callers="))?.slice("--callers=".length)
  if (callers !== undefined) {
    const { totalMs, chains } = callersProfile(file, callers, Number(topArg ?? 3))
    console.log(`${f1(totalMs)} ms with ${callers} on the stack`)
    for (const c of chains) console.log(`${f1(c.ms).padStart(8)} ms  ${c.chain}`)
  } else if (process.argv.includes("--inclusive")) {
    const { busyMs, functions } = inclusiveProfile(file, undefined, Number(topArg ?? 40))
    for (const f of functions) console.log(`${f1(f.ms).padStart(8)} ms ${f1((f.ms / busyMs) * 100).padStart(5)}%  ${f.name}`)
  } else console.log(profileMarkdown(summarizeProfile(file, Number(topArg ?? 25))))
}

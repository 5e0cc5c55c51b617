/**
 * Summarises a V8 `.heapprofile` (from `probes/allocations.mjs`): bytes allocated by function, by
 * the nearest frame of Kassa's own packages, and by call chain, with bundle positions mapped back
 * to their sources through the bundle's source map.
 *
 *   node packages/testing/bench/heapProfile.mjs <file.heapprofile> [top] [chain depth]
 */
import * as fs from "node:fs"
import { originalPosition, shortSource } from "./profile.mjs"

const [file, topArg, depthArg] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: node heapProfile.mjs <file.heapprofile> [top] [chain depth]")
  process.exit(2)
}
const top = Number(topArg ?? 25)
const depth = Number(depthArg ?? 3)
const { head } = JSON.parse(fs.readFileSync(file, "utf8"))

const labelOf = ({ functionName, url, lineNumber, columnNumber }) => {
  const name = functionName || "(anonymous)"
  if (url.startsWith("file://")) {
    const pos = originalPosition(url, lineNumber, columnNumber)
    if (pos !== undefined) return `${name} ${shortSource(pos.source)}:${pos.line}`
  }
  return url === "" ? name : `${name} ${url.split("/").pop()}:${lineNumber + 1}`
}

const bySelf = new Map()
const byOwnFrame = new Map()
const byChain = new Map()
let total = 0
const add = (map, key, bytes) => map.set(key, (map.get(key) ?? 0) + bytes)
const walk = (node, stack) => {
  const here = [...stack, labelOf(node.callFrame)]
  if (node.selfSize > 0) {
    total += node.selfSize
    add(bySelf, here.at(-1), node.selfSize)
    add(byOwnFrame, here.findLast((label) => / packages\//.test(label)) ?? "(no Kassa frame)", node.selfSize)
    add(byChain, here.slice(-depth).join(" < "), node.selfSize)
  }
  for (const child of node.children) walk(child, here)
}
walk(head, [])

const show = (title, map) => {
  console.log(`\n| ${title} | MB | share |\n|---|---:|---:|`)
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`| \`${key}\` | ${(bytes / 1048576).toFixed(1)} | ${((100 * bytes) / total).toFixed(1)}% |`)
  }
}
console.log(`Sampled allocations: ${(total / 1048576).toFixed(1)} MB (divide by the requests answered meanwhile for bytes per request).`)
show("allocated in", bySelf)
show("nearest Kassa frame", byOwnFrame)
show(`call chain (${depth} frames)`, byChain)

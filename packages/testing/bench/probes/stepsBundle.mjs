/**
 * Writes `packages/http/dist/server-steps.js` (and its map): the bundle with a counter in Effect's
 * run loop (`FiberRuntime.runLoop`, one step per effect it evaluates) and in `FiberRuntime`'s
 * constructor, read by the `runLoopSteps.mjs` probe. Run `npm run bundle` first, then
 * `node packages/testing/bench/probes/stepsBundle.mjs` and
 * `KASSA_BUNDLE=packages/http/dist/server-steps.js DEV_NODE_ARGS="--import ./packages/testing/bench/probes/runLoopSteps.mjs" node packages/testing/bench/quick.mjs sqlite 8`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../http/dist")
const source = fs.readFileSync(path.join(dist, "server.js"), "utf8")

const patch = (text, find, add) => {
  const at = text.indexOf(find)
  if (at < 0 || text.indexOf(find, at + 1) >= 0) throw new Error(`stepsBundle: expected exactly one "${find.trim()}" in the bundle`)
  return text.slice(0, at + find.length) + add + text.slice(at + find.length)
}

// Every 8th step is sampled by kind: the primitive's tag and the start of its continuation's source.
let text = patch(
  source,
  "        this.currentOpCount += 1;\n",
  `        { const s = globalThis.__kassaSteps; if (s !== undefined && ++s.steps % 8 === 0) { const f = typeof cur.effect_instruction_i1 === "function" ? cur.effect_instruction_i1 : typeof cur.effect_instruction_i0 === "function" ? cur.effect_instruction_i0 : undefined; const k = cur._op + (f === undefined ? "" : " " + String(f).slice(0, 90).replace(/\\s+/g, " ")); s.kinds.set(k, (s.kinds.get(k) ?? 0) + 8) } }\n`
)
text = patch(
  text,
  "  constructor(fiberId2, fiberRefs0, runtimeFlags0) {\n    super();\n",
  "    if (globalThis.__kassaSteps !== undefined) globalThis.__kassaSteps.fibers++;\n"
)
fs.writeFileSync(path.join(dist, "server-steps.js"), text, { mode: 0o755 })
fs.copyFileSync(path.join(dist, "server.js.map"), path.join(dist, "server-steps.js.map"))
console.log(`written ${path.join(dist, "server-steps.js")}`)

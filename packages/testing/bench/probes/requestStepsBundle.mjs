/**
 * Writes `packages/http/dist/server-reqsteps.js` (and its map): the bundle with a step counter on
 * each fiber (`FiberRuntime.runLoop`, one per effect it evaluates) and, for every request the lean
 * router serves (the fiber `lean/Server.ts` forks for it), the steps of that fiber alone, counted
 * when it ends. At exit the server log (stderr) gets a `REQUEST STEPS` line: the requests, the mean
 * and the most frequent counts. Unlike `runLoopSteps.mjs` no background work counts, so the mode
 * is the exact count of a request's own path (its child fibers and the store's shared fibers are
 * not in it). Run `npm run bundle` first, then `node packages/testing/bench/probes/requestStepsBundle.mjs`
 * and `KASSA_BUNDLE=packages/http/dist/server-reqsteps.js node packages/testing/bench/quick.mjs pg 6`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../http/dist")
// (`node requestStepsBundle.mjs server-base`: from `server-base.js`, to `server-base-reqsteps.js`)
const name = process.argv[2] ?? "server"
let text = fs.readFileSync(path.join(dist, `${name}.js`), "utf8")

const patch = (find, add) => {
  const at = text.search(find)
  if (at < 0) throw new Error(`requestStepsBundle: expected "${find}" in the bundle`)
  const found = text.slice(at).match(find)[0]
  if (text.slice(at + found.length).search(find) >= 0) throw new Error(`requestStepsBundle: expected one "${find}" in the bundle`)
  text = text.slice(0, at + found.length) + add + text.slice(at + found.length)
}

patch(/ {2}constructor\(fiberId2, fiberRefs0, runtimeFlags0\) \{\n {4}super\(\);\n/, "    this.__steps = 0;\n")
patch(/ {8}this\.currentOpCount \+= 1;\n/, "        this.__steps++;\n")
patch(
  /const fiber = runFork\d*\(program\);\n/,
  "globalThis.__kassaRequestSteps(fiber);\n"
)
text = text.replace(
  /^(#![^\n]*\n)?/,
  (shebang) =>
    (shebang ?? "") +
    `{ const counts = new Map(); let n = 0, sum = 0;
globalThis.__kassaRequestSteps = (fiber) => fiber.addObserver(() => { n++; sum += fiber.__steps; counts.set(fiber.__steps, (counts.get(fiber.__steps) ?? 0) + 1) });
process.on("exit", () => { const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6); process.stderr.write("REQUEST STEPS " + n + " requests, mean " + (sum / Math.max(1, n)).toFixed(1) + ", most frequent: " + top.map(([k, c]) => k + " (" + c + ")").join(", ") + "\\n") }) }\n`
)
fs.writeFileSync(path.join(dist, `${name}-reqsteps.js`), text)
fs.copyFileSync(path.join(dist, `${name}.js.map`), path.join(dist, `${name}-reqsteps.js.map`))
console.log(`written ${path.join(dist, `${name}-reqsteps.js`)}`)

// Dev helper: the webhook sender's CPU per POST, in process: `Sender.make` of the working tree and
// of a git ref (bundled with esbuild), each sending 20,000 POSTs 32 at a time to a keep-alive
// receiver in a child process, alternating, `rounds` times; prints process.cpuUsage() per POST.
// node packages/testing/bench/senderCost.mjs [ref=main] [rounds=3]
import { execFileSync, fork } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const ref = process.argv[2] ?? "main"
const rounds = Number(process.argv[3] ?? 3)
const senderPath = "packages/adapters/src/webhooks/Sender.ts"

if (process.argv[2] === "--receiver") {
  const http = await import("node:http")
  const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    req.resume()
    req.on("end", () => res.end())
  })
  server.listen(0, "127.0.0.1", () => process.send(server.address().port))
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sender-cost-"))
  const build = (label, senderSource) => {
    // the entry sits next to Sender.ts so that its imports resolve as the sender's own
    const entry = path.join(root, `packages/adapters/src/webhooks/.senderCost-${label}.ts`)
    const sender = path.join(root, `packages/adapters/src/webhooks/.Sender-${label}.ts`)
    fs.writeFileSync(sender, senderSource)
    fs.writeFileSync(entry, `export * as Effect from "effect/Effect"\nexport * as Sender from "./.Sender-${label}.js"\n`)
    try {
      const out = path.join(dir, `${label}.mjs`)
      execFileSync(path.join(root, "node_modules/.bin/esbuild"), [entry, "--bundle", "--platform=node", "--format=esm", `--outfile=${out}`,
        "--log-level=warning", `--alias:@kassa/core=${path.join(root, "packages/core/src")}`], { cwd: root, stdio: "inherit" })
      return out
    } finally {
      fs.rmSync(entry)
      fs.rmSync(sender)
    }
  }
  const bundles = {
    [ref]: build("ref", execFileSync("git", ["show", `${ref}:${senderPath}`], { cwd: root })),
    tree: build("tree", fs.readFileSync(path.join(root, senderPath)))
  }
  const receiver = fork(fileURLToPath(import.meta.url), ["--receiver"])
  const port = await new Promise((resolve) => receiver.once("message", resolve))
  const url = `http://127.0.0.1:${port}/hook`
  const body = Buffer.from(JSON.stringify({ eventType: "InvoiceCreated", invoice: { id: "x".repeat(20), amount: 1000 } }))
  const cost = async (file) => {
    const { Effect, Sender } = await import(file)
    return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const sender = yield* Sender.make({ timeoutMs: 10_000, allowPrivateNetworks: true, maxSockets: 32 })
      const posts = (n) => Effect.forEach(Array.from({ length: n }), () => sender.post(url, body, "d".repeat(344)), { concurrency: 32 })
      yield* posts(2_000)
      const before = process.cpuUsage()
      const results = yield* posts(20_000)
      const used = process.cpuUsage(before)
      if (results.some((r) => r.statusCode !== 200)) throw new Error(JSON.stringify(results.find((r) => r.statusCode !== 200)))
      return (used.user + used.system) / 20_000
    })))
  }
  const figures = Object.fromEntries(Object.keys(bundles).map((k) => [k, []]))
  for (let i = 0; i < rounds; i++) for (const [k, file] of Object.entries(bundles)) figures[k].push(+(await cost(file)).toFixed(1))
  for (const [k, f] of Object.entries(figures)) console.log(`${k.padEnd(8)} µs CPU per POST: ${f.join(", ")}`)
  receiver.kill()
  fs.rmSync(dir, { recursive: true, force: true })
}

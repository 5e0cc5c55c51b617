#!/usr/bin/env node
/**
 * Builds the server bundle (`dist/server.js`, with tsup) unless it is newer than everything it is
 * built from: the sources and package.json of core, adapters and http, the lockfile, the bundle's
 * tsup config and this script. `--force` builds anyway. Then the server's startup snapshot
 * (`dist/server.blob`, from `dist/snapshot.cjs`, which tsup builds beside), unless it is newer
 * than that script and was built by this Node (a snapshot starts only on the Node that built it):
 * `launch.mjs` starts from it when it is there. A snapshot that fails to build is left out; the
 * server then starts from the bundle.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { nodeStamp, shebangFlags, snapshotFits, snapshotOf, stampOf } from "./launch.mjs"

const self = fileURLToPath(import.meta.url)
const httpDir = path.resolve(path.dirname(self), "..")
const root = path.resolve(httpDir, "../..")
const bundle = path.join(httpDir, "dist/server.js")
const snapshotScript = path.join(httpDir, "dist/snapshot.cjs")

/** What the bundle is built from. */
export const inputs = () => [
  ...["core", "adapters", "http"].flatMap((p) => [path.join(root, "packages", p, "src"), path.join(root, "packages", p, "package.json")]),
  path.join(root, "package-lock.json"),
  path.join(httpDir, "tsup.bundle.config.ts"),
  self
]

/** The newest modification time (ms) of the files under `paths` (directories walked); 0 when none exists. */
export const newestMtime = (paths) => {
  let newest = 0
  const visit = (p) => {
    let stat
    try {
      stat = fs.statSync(p)
    } catch {
      return
    }
    if (stat.isDirectory()) for (const entry of fs.readdirSync(p)) visit(path.join(p, entry))
    else newest = Math.max(newest, stat.mtimeMs)
  }
  for (const p of paths) visit(p)
  return newest
}

/** Whether `output` is missing or older than one of `sources`. */
export const isStale = (output, sources) => {
  let built
  try {
    built = fs.statSync(output).mtimeMs
  } catch {
    return true
  }
  return newestMtime(sources) > built
}

/**
 * Builds the startup snapshot of `script` (by default `dist/snapshot.cjs` into `dist/server.blob`)
 * with the Node flags of the bundle's first line, and records which Node built it. Answers
 * whether it was built.
 */
export const buildSnapshot = (script = snapshotScript, blob = snapshotOf(bundle)) => {
  fs.rmSync(stampOf(blob), { force: true })
  // built aside and moved in: a server starting meanwhile reads the old file or the new one whole
  const building = `${blob}.${process.pid}`
  const { status, stderr } = spawnSync(process.execPath, [...shebangFlags(bundle), "--snapshot-blob", building, "--build-snapshot", script], {
    cwd: path.dirname(script),
    encoding: "utf8"
  })
  if (status !== 0) {
    fs.rmSync(building, { force: true })
    fs.rmSync(blob, { force: true })
    process.stderr.write(`the startup snapshot was not built (the server will start from the bundle):\n${stderr}`)
    return false
  }
  fs.renameSync(building, blob)
  fs.writeFileSync(stampOf(blob), JSON.stringify(nodeStamp()))
  return true
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv.includes("--force") || isStale(bundle, inputs())) {
    const tsup = path.join(root, "node_modules/.bin/tsup")
    const { status } = spawnSync(tsup, ["--config", "tsup.bundle.config.ts"], { cwd: httpDir, stdio: "inherit" })
    if (status !== 0) process.exit(status ?? 1)
  }
  if (!snapshotFits(snapshotOf(bundle), snapshotScript)) buildSnapshot()
}

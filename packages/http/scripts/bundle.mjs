#!/usr/bin/env node
/**
 * Builds the server bundle (`dist/server.js`, with tsup) unless it is newer than everything it is
 * built from: the sources and package.json of core, adapters and http, the lockfile, the bundle's
 * tsup config and this script. `--force` builds anyway.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const self = fileURLToPath(import.meta.url)
const httpDir = path.resolve(path.dirname(self), "..")
const root = path.resolve(httpDir, "../..")
const bundle = path.join(httpDir, "dist/server.js")

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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv.includes("--force") || isStale(bundle, inputs())) {
    const tsup = path.join(root, "node_modules/.bin/tsup")
    const { status } = spawnSync(tsup, ["--config", "tsup.bundle.config.ts"], { cwd: httpDir, stdio: "inherit" })
    process.exit(status ?? 1)
  }
}

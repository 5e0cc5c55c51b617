/**
 * How the server starts: `node` with the flags of the bundle's first line, from the bundle's
 * startup snapshot (`server.blob` beside `server.js`) when one built by this Node is there, else
 * from the bundle. The bench and the tests spawn `serverArgs`; `npm start` runs `start.sh`, which
 * does the same after `bundle.mjs` has left a snapshot only where it fits.
 */
import * as fs from "node:fs"

/** The startup snapshot of a bundle: `server.js` → `server.blob`. */
export const snapshotOf = (bundle) => bundle.replace(/\.[cm]?js$/, "") + ".blob"

/** The file that says which Node built a snapshot. */
export const stampOf = (blob) => `${blob}.json`

/** What a snapshot must have been built by to start on this process's Node. */
export const nodeStamp = () => ({ node: process.version, arch: process.arch, execPath: process.execPath })

/** Whether `blob` exists, was built by this Node and, given `script`, is newer than it. */
export const snapshotFits = (blob, script) => {
  try {
    const built = fs.statSync(blob).mtimeMs
    if (script !== undefined && fs.statSync(script).mtimeMs > built) return false
    return JSON.stringify(JSON.parse(fs.readFileSync(stampOf(blob), "utf8"))) === JSON.stringify(nodeStamp())
  } catch {
    return false
  }
}

/** The Node flags a script's first line gives (`#!/usr/bin/env -S node <flags>`): the server's own. */
export const shebangFlags = (script) => {
  const fd = fs.openSync(script, "r")
  try {
    const head = Buffer.alloc(200)
    const line = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).toString().split("\n")[0]
    const match = /^#!\/usr\/bin\/env -S node((?: +--?[\w-]+(?:=\S+)?)*) *$/.exec(line)
    return match === null ? [] : match[1].trim().split(/ +/).filter(Boolean)
  } finally {
    fs.closeSync(fd)
  }
}

/** Flags a start from a snapshot takes: a snapshot loads only with the V8 flags it was built with, and preloads nothing. */
const snapshotTakes = (flag) => /^--cpu-prof(-[\w-]+)?(=.*)?$/.test(flag)

/**
 * The arguments of `node` that start the server of `bundle`, with `nodeArgs` (more Node flags)
 * after the bundle's own: its snapshot when it fits (newer than the bundle, built by this Node)
 * and `nodeArgs` are only the CPU profiler's, else the bundle.
 */
export const serverArgs = (bundle, nodeArgs = []) => {
  const blob = snapshotOf(bundle)
  return snapshotFits(blob, bundle) && nodeArgs.every(snapshotTakes)
    ? [...shebangFlags(bundle), ...nodeArgs, "--snapshot-blob", blob]
    : [...shebangFlags(bundle), ...nodeArgs, bundle]
}

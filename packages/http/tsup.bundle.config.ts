import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { defineConfig, type Options } from "tsup"

type Plugin = NonNullable<Options["esbuildPlugins"]>[number]

/** A plugin that replaces, in the files `filter` matches, each `[from, to]`; the build fails where `from` is missing. */
const patch = (name: string, filter: RegExp, edits: ReadonlyArray<readonly [string, string]>): Plugin => ({
  name,
  setup(build) {
    build.onLoad({ filter }, ({ path }) => {
      let source = readFileSync(path, "utf8")
      for (const [from, to] of edits) {
        if (!source.includes(from)) throw new Error(`${name}: ${path} no longer holds ${JSON.stringify(from)}`)
        source = source.replace(from, to)
      }
      return { contents: source, loader: "js" }
    })
  }
})

// `pg` asks at load whether it runs in a Cloudflare Worker: on Node 20 (no `navigator`) by
// touching the global `Response`, which loads Node's fetch implementation, about 30 ms of every
// cold start. The bundle only ever runs on Node.
const pgOnNode = patch("pg-on-node", /[\\/]pg[\\/]lib[\\/]stream\.js$/, [[
  "function isCloudflareRuntime() {",
  "function isCloudflareRuntime() {\n  return false"
]])

// The startup snapshot holds the heap as module evaluation left it, so what a module computes
// from the moment it loads would be the build's in every start: Effect's origin of its
// nanosecond clock and prom-client's process start time are taken at first use instead.
const snapshotClock = patch("snapshot-clock", /[\\/]effect[\\/]dist[\\/]esm[\\/]internal[\\/]clock\.js$/, [[
  "const origin = /*#__PURE__*/performanceNowNanos() - /*#__PURE__*/processHrtime.bigint();\n  return () => origin + processHrtime.bigint();",
  "let origin;\n  return () => (origin ??= performanceNowNanos() - processHrtime.bigint()) + processHrtime.bigint();"
]])
const snapshotStartTime = patch("snapshot-start-time", /[\\/]prom-client[\\/]lib[\\/]metrics[\\/]processStartTime\.js$/, [
  ["const startInSeconds = Math.round(Date.now() / 1000 - process.uptime());", "let startInSeconds;"],
  ["this.set(labels, startInSeconds);", "this.set(labels, (startInSeconds ??= Math.round(Date.now() / 1000 - process.uptime())));"]
])

// A native addon cannot be in a snapshot: `better-sqlite3`'s own modules are (a start loaded and
// compiled them, about 7 ms), and its addon loads, from the installed package beside the bundle,
// when the SQLite client opens its first database, as `bindings` finds it there.
const addonOnFirstUse = patch("addon-on-first-use", /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/, [[
  "require('bindings')('better_sqlite3.node')",
  `((require) => require("bindings")({
    bindings: "better_sqlite3.node",
    module_root: require("node:path").dirname(require.resolve("better-sqlite3/package.json"))
  }))(process.getBuiltinModule("node:module").createRequire(__filename))`
]])

const deferredBuiltins = ["http", "https", "http2", "inspector", "dgram", "tls"]
const builtinsOnFirstUse: Plugin = {
  name: "builtins-on-first-use",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(node:)?(${deferredBuiltins.join("|")})$`) }, ({ path }) => ({ path: path.replace(/^node:/, ""), namespace: "builtins-on-first-use" }))
    build.onLoad({ filter: /.*/, namespace: "builtins-on-first-use" }, async ({ path }) => {
      const real = await import(`node:${path}`) as Record<string, unknown>
      const keys = Object.keys(real).filter((key) => key !== "default")
      const functions = keys.filter((key) => typeof real[key] === "function" && /^[a-z]/.test(key))
      return {
        loader: "js",
        contents: `let loaded
const load = () => loaded ??= process.getBuiltinModule("node:${path}")
const functions = new Set(${JSON.stringify(functions)})
for (const key of ${JSON.stringify(keys)}) {
  const standIn = functions.has(key) ? function (...args) { return load()[key].apply(this, args) } : undefined
  Object.defineProperty(exports, key, { enumerable: true, get: () => standIn ?? load()[key] })
}`
      }
    })
  }
}

// V8 keeps a script's source in the heap, two bytes a character once one character is beyond
// Latin-1: a few comments (box drawing in the reference data, a dash in pg-protocol) doubled the
// bundle's 2.4 MB of source, in the snapshot and in every start. esbuild writes strings and
// identifiers in ASCII; a line comment's other characters become "-" here, one for one, so the
// source map still fits. Any other place of such a character fails the build.
const asciiSource = (file: string) => {
  const lines = readFileSync(file, "utf8").split("\n")
  lines.forEach((line, i) => {
    if (!/[^\x00-\x7f]/.test(line)) return
    const comment = line.indexOf("//")
    if (comment < 0 || line.slice(0, comment).trim() !== "") {
      throw new Error(`${file}:${i + 1}: a character beyond ASCII outside a line comment`)
    }
    lines[i] = line.slice(0, comment) + line.slice(comment).replace(/[^\x00-\x7f]/g, "-")
  })
  writeFileSync(file, lines.join("\n"))
}

const shared = {
  platform: "node",
  target: "node20",
  bundle: true,
  splitting: false,
  sourcemap: true,
  clean: false,
  treeshake: true,
  outDir: "dist",
  define: { KASSA_VERSION: JSON.stringify(JSON.parse(readFileSync("package.json", "utf8")).version) }
} satisfies Options

export default defineConfig([
  // The server entry as one file: module loading is most of a cold start, so `npm start` runs a
  // bundle. Native addons stay external; CJS dependencies get a `require`. The entry's first line
  // (Node and its flags) stays first, and the file is executable: it is the `kassa` bin.
  {
    ...shared,
    entry: { server: "src/server/main.ts" },
    format: ["esm"],
    noExternal: [/^(?!better-sqlite3|pg-native)/],
    external: ["better-sqlite3", "pg-native"],
    esbuildPlugins: [pgOnNode],
    // Kassa's own packages from their sources (the `@kassa/source` export condition), not their builds.
    esbuildOptions: (options) => {
      options.conditions = ["@kassa/source", "module"]
    },
    onSuccess: async () => {
      asciiSource("dist/server.js")
      chmodSync("dist/server.js", 0o755)
    },
    banner: { js: "import { createRequire as __kassaCreateRequire } from 'node:module'; const require = __kassaCreateRequire(import.meta.url);" }
  },
  // The same server as the one script a startup snapshot is built from (`scripts/bundle.mjs`
  // builds `dist/server.blob` from it): CommonJS, every dependency inside but Node's own modules.
  {
    ...shared,
    entry: { snapshot: "src/server/Snapshot.ts" },
    format: ["cjs"],
    outExtension: () => ({ js: ".cjs" }),
    noExternal: [/^(?!pg-native)/],
    external: ["pg-native"],
    // tsup would otherwise leave every `node:` module to a `require` at load, before these plugins
    removeNodeProtocol: false,
    esbuildPlugins: [pgOnNode, snapshotClock, snapshotStartTime, addonOnFirstUse, builtinsOnFirstUse],
    esbuildOptions: (options) => {
      options.conditions = ["@kassa/source", "module"]
      options.define = { ...options.define, "import.meta.url": "__kassaBundleUrl" }
    },
    banner: { js: "var __kassaBundleUrl = require(\"node:url\").pathToFileURL(__filename).href;" },
    onSuccess: async () => asciiSource("dist/snapshot.cjs")
  }
])

import { chmodSync, readFileSync } from "node:fs"
import { defineConfig, type Options } from "tsup"

// `pg` asks at load whether it runs in a Cloudflare Worker: on Node 20 (no `navigator`) by
// touching the global `Response`, which loads Node's fetch implementation, about 30 ms of every
// cold start. The bundle only ever runs on Node. The build fails if `pg` changes that function.
const pgOnNode: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "pg-on-node",
  setup(build) {
    build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, ({ path }) => {
      const source = readFileSync(path, "utf8")
      const probe = "function isCloudflareRuntime() {"
      if (!source.includes(probe)) throw new Error(`pg-on-node: ${path} no longer defines isCloudflareRuntime()`)
      return { contents: source.replace(probe, `${probe}\n  return false`) }
    })
  }
}

// The server entry as one file: module loading is most of a cold start, so `npm start` runs a
// bundle. Native addons stay external; CJS dependencies get a `require`. The entry's first line
// (Node and its flags) stays first, and the file is executable: it is the `kassa` bin.
export default defineConfig({
  entry: { server: "src/server/main.ts" },
  outDir: "dist",
  format: ["esm"],
  platform: "node",
  target: "node20",
  bundle: true,
  noExternal: [/^(?!better-sqlite3|pg-native)/],
  external: ["better-sqlite3", "pg-native"],
  splitting: false,
  sourcemap: true,
  clean: false,
  treeshake: true,
  esbuildPlugins: [pgOnNode],
  // Kassa's own packages from their sources (the `@kassa/source` export condition), not their builds.
  esbuildOptions: (options) => {
    options.conditions = ["@kassa/source", "module"]
  },
  define: { KASSA_VERSION: JSON.stringify(JSON.parse(readFileSync("package.json", "utf8")).version) },
  onSuccess: async () => chmodSync("dist/server.js", 0o755),
  banner: { js: "import { createRequire as __kassaCreateRequire } from 'node:module'; const require = __kassaCreateRequire(import.meta.url);" }
})

import { chmodSync } from "node:fs"
import { defineConfig } from "tsup"

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
  onSuccess: async () => chmodSync("dist/server.js", 0o755),
  banner: { js: "import { createRequire as __kassaCreateRequire } from 'node:module'; const require = __kassaCreateRequire(import.meta.url);" }
})

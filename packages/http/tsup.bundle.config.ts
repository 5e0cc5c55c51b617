import { defineConfig } from "tsup"

// The server entry as one file: module loading is most of a cold start, so `npm start` runs a
// bundle. Native addons stay external; CJS dependencies get a `require`.
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
  banner: { js: "import { createRequire as __kassaCreateRequire } from 'node:module'; const require = __kassaCreateRequire(import.meta.url);" }
})

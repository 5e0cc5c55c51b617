import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/**/*.ts"],
  outDir: "build/esm",
  format: ["esm"],
  platform: "node",
  target: "node20",
  bundle: false,
  dts: true,
  sourcemap: true,
  clean: true
})

import type { Options } from "tsup"

/**
 * How each package builds for `npm pack`: every module of `src/` to `build/esm/` as ESM, one file
 * per module, so the packages' wildcard subpath exports (`@kassa/core/ports/X`) find the same
 * modules in the build as in the sources. The `.d.ts` beside them come from `tsc -p
 * tsconfig.build.json`: tsup's own declaration bundler turns `export * as X` of type-only modules
 * into values a consumer's type-check rejects (TS2693).
 */
export const library: Options = {
  entry: ["src/**/*.ts"],
  outDir: "build/esm",
  format: ["esm"],
  platform: "node",
  target: "node20",
  bundle: false,
  sourcemap: true,
  clean: true
}

import { defineConfig } from "vitest/config"

export default defineConfig({
  // Kassa's packages resolve to their sources (the `@kassa/source` export condition), so the tests
  // run without a build. Vitest appends its default conditions to this list.
  resolve: { conditions: ["@kassa/source"] },
  ssr: { resolve: { conditions: ["@kassa/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    globalSetup: ["packages/testing/src/globalSetup.ts"],
    setupFiles: ["packages/testing/src/assertions.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})

import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    globalSetup: ["packages/testing/src/globalSetup.ts"],
    setupFiles: ["packages/testing/src/assertions.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})

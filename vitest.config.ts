import { defineConfig } from "vitest/config"

/**
 * The HTTP suites that speak the hot operations' wire (invoices, payments, refunds, payment
 * resources, errors, limits, replay, deadlines): run a second time with those operations served
 * by HttpApi instead of the lean router, so both paths meet the same assertions.
 */
const wireSuites = [
  "Invoices",
  "Payments",
  "Refunds",
  "Tokenization",
  "Edge",
  "Wire",
  "RequestReplay",
  "RequestDeadline"
].map((name) => `packages/http/test/${name}.test.ts`)

// Each project's own settings, whole: a project extending the root would add its `include` to
// the root's, not replace it.
const project = (name: string, include: Array<string>, env: Record<string, string> = {}) => ({
  // Kassa's packages resolve to their sources (the `@kassa/source` export condition), so the tests
  // run without a build. Vitest appends its default conditions to this list.
  resolve: { conditions: ["@kassa/source"] },
  ssr: { resolve: { conditions: ["@kassa/source"] } },
  test: {
    name,
    include,
    env,
    globalSetup: ["packages/testing/src/globalSetup.ts"],
    setupFiles: ["packages/testing/src/assertions.ts"],
    pool: "forks" as const,
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})

export default defineConfig({
  test: {
    projects: [
      project("kassa", ["packages/*/test/**/*.test.ts"]),
      project("framework", wireSuites, { KASSA_HTTP_PATH: "framework" })
    ]
  }
})

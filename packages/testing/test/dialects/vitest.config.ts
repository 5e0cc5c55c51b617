// A user's vitest project: no globalSetup, so Dialects finds PostgreSQL from the environment.
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["@kassa/source"] },
  ssr: { resolve: { conditions: ["@kassa/source"] } },
  test: { root: import.meta.dirname, include: ["*.spec.ts"] }
})

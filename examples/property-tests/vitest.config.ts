import { defineConfig } from "vitest/config"

// No globalSetup: @kassa/testing's Dialects finds PostgreSQL by KASSA_TEST_DATABASE_URL, or on
// 127.0.0.1:5432; without one the tests run on memory and SQLite.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 60_000 }
})

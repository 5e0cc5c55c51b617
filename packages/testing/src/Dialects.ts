/**
 * The SQL dialects a test file runs on. PostgreSQL joins when the global setup found a server
 * (`KASSA_TEST_DATABASE_URL`, default the machine's on 127.0.0.1:5432).
 *
 * @since 0.1.0
 */
import { inject } from "vitest"

/** @since 0.1.0 @category models */
export type Dialect = "sqlite" | "pg"

declare module "vitest" {
  export interface ProvidedContext {
    kassaPostgresUrl: string | null
  }
}

/** The admin URL of the test PostgreSQL server, or null when none answers. @since 0.1.0 */
export const postgresUrl = (): string | null => inject("kassaPostgresUrl")

/** Every dialect this run tests. @since 0.1.0 */
export const dialects = (): ReadonlyArray<Dialect> => (postgresUrl() === null ? ["sqlite"] : ["sqlite", "pg"])

/**
 * Where a storage contract test runs: a SQL dialect, or core's memory adapters.
 *
 * @since 0.1.0 @category models
 */
export type Backend = Dialect | "memory"

/** Every backend this run tests: memory first, then the dialects. @since 0.1.0 */
export const backends = (): ReadonlyArray<Backend> => ["memory", ...dialects()]

/**
 * Vitest global setup: finds the PostgreSQL server the Postgres half runs on. Without one the
 * half is reported as not run; under `CI=true` a missing server fails the run.
 *
 * @since 0.1.0
 */
import pg from "pg"
import type { TestProject } from "vitest/node"
import { defaultUrl } from "./internal/defaultUrl.js"

/** @since 0.1.0 */
export { defaultUrl }

/** @since 0.1.0 */
export default async function setup(project: TestProject) {
  const url = process.env.KASSA_TEST_DATABASE_URL ?? defaultUrl
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    project.provide("kassaPostgresUrl", url)
    console.log(`PostgreSQL: testing on ${url.replace(/\/\/[^@]*@/, "//")}`)
  } catch (error) {
    if (process.env.CI === "true") {
      throw new Error(`PostgreSQL is required under CI=true and does not answer at ${url}: ${String(error)}`)
    }
    project.provide("kassaPostgresUrl", null)
    console.log(`PostgreSQL: not reachable at ${url} (${String(error)}); the PostgreSQL half was NOT run`)
  } finally {
    await client.end().catch(() => undefined)
  }
}

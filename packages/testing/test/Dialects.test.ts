/**
 * `Dialects.dialects()` in a vitest project with no globalSetup (run as a child vitest):
 * PostgreSQL joins when `KASSA_TEST_DATABASE_URL` names a server or the machine's answers on
 * 127.0.0.1:5432; an empty `KASSA_TEST_DATABASE_URL` tests SQLite only; a named server that
 * does not answer fails the run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Dialects } from "@kassa/testing"
import { execFile } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../../..")
const config = path.join(import.meta.dirname, "dialects/vitest.config.ts")

const childRun = (env: Record<string, string | undefined>) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    const merged: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", CI: "false", ...env }
    for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k]
    execFile("npx", ["vitest", "run", "--config", config], { cwd: root, env: merged, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : (typeof error.code === "number" ? error.code : 1), out: stdout + stderr }))
  })

const dialectsOf = (out: string) => JSON.parse(/DIALECTS (\[[^\]]*\])/.exec(out)?.[1] ?? "null")

describe("Dialects without a globalSetup", () => {
  const postgres = Dialects.postgresUrl()

  it("finds the PostgreSQL server of the environment, or the machine's", async () => {
    // the environment this run found its server by: KASSA_TEST_DATABASE_URL, or the probe
    const found = await childRun({})
    assert.deepStrictEqual(dialectsOf(found.out), postgres === null ? ["sqlite"] : ["sqlite", "pg"], found.out)
  }, 150_000)

  it("tests SQLite only when KASSA_TEST_DATABASE_URL is empty", async () => {
    const found = await childRun({ KASSA_TEST_DATABASE_URL: "" })
    assert.deepStrictEqual(dialectsOf(found.out), ["sqlite"], found.out)
  }, 150_000)

  it("fails the run when the named server does not answer", async () => {
    const found = await childRun({ KASSA_TEST_DATABASE_URL: "postgres://postgres@127.0.0.1:1/postgres" })
    assert.notStrictEqual(found.code, 0)
    assert.include(found.out, "PostgreSQL does not answer at postgres://127.0.0.1:1/postgres")
  }, 150_000)
})

import { assert, describe, it } from "@effect/vitest"
import { SpawnedServer } from "@kassa/testing"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { inputs, isStale } from "../scripts/bundle.mjs"

describe("the bundle step of npm start", () => {
  it("rebuilds only when the bundle is missing or older than a source file or the lockfile", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-bundle-"))
    try {
      const src = path.join(dir, "src", "server")
      fs.mkdirSync(src, { recursive: true })
      const source = path.join(src, "main.ts")
      const lockfile = path.join(dir, "package-lock.json")
      const bundle = path.join(dir, "server.js")
      const at = (file: string, seconds: number) => fs.utimesSync(file, seconds, seconds)
      fs.writeFileSync(source, "")
      fs.writeFileSync(lockfile, "{}")
      const sources = [path.join(dir, "src"), lockfile]
      at(source, 1_000)
      at(lockfile, 1_000)
      assert.isTrue(isStale(bundle, sources))
      fs.writeFileSync(bundle, "")
      at(bundle, 2_000)
      assert.isFalse(isStale(bundle, sources))
      at(source, 3_000)
      assert.isTrue(isStale(bundle, sources))
      at(bundle, 4_000)
      at(lockfile, 5_000)
      assert.isTrue(isStale(bundle, sources))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("after a build, the repository's bundle is up to date with everything it is built from", () => {
    SpawnedServer.bundle()
    assert.isFalse(isStale(SpawnedServer.bundlePath, inputs()))
    assert.includeMembers(inputs().map((p) => path.relative(path.resolve(SpawnedServer.bundlePath, "../../../.."), p)), [
      "packages/core/src",
      "packages/adapters/src",
      "packages/http/src",
      "package-lock.json"
    ])
  }, 120_000)

  it("the bundle and the snapshot's script are ASCII (V8 would keep their source two bytes a character), a comment's other characters replaced one for one", () => {
    SpawnedServer.bundle()
    for (const file of [SpawnedServer.bundlePath, path.join(path.dirname(SpawnedServer.bundlePath), "snapshot.cjs")]) {
      const source = fs.readFileSync(file, "utf8")
      assert.notMatch(source, /[^\x00-\x7f]/, file)
      // pg-protocol's comment, its dash made ASCII in place: the line keeps its length
      assert.include(source, "computes Buffer.byteLength ONCE - the previous", file)
    }
  }, 120_000)

  it("the snapshot's script holds better-sqlite3's own modules and loads only its native addon, on first use", () => {
    SpawnedServer.bundle()
    const source = fs.readFileSync(path.join(path.dirname(SpawnedServer.bundlePath), "snapshot.cjs"), "utf8")
    // its modules bundled: the database class and its methods
    assert.include(source, "Database.prototype.pragma =")
    // the addon found by `bindings` in the installed package, when the first database opens
    assert.match(source, /DEFAULT_ADDON = \(\(require\d*\) => require\d*\("bindings"\)\(\{\s*bindings: "better_sqlite3.node"/)
    assert.notInclude(source, '("better-sqlite3")')
  }, 120_000)
})

import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const packages = path.resolve(import.meta.dirname, "../..")

/** Each package's `exports`: subpath → target file or pattern (`null`: closed). */
const exportsOf = (dir: string): Record<string, string | null> =>
  JSON.parse(fs.readFileSync(path.join(packages, dir, "package.json"), "utf8")).exports ?? {}

describe("the packages' exports", () => {
  it("every export of every package points at a file that exists (a pattern at a folder with a matching file)", () => {
    const missing: Array<string> = []
    for (const dir of fs.readdirSync(packages)) {
      for (const [subpath, target] of Object.entries(exportsOf(dir))) {
        if (target === null) continue
        const file = path.join(packages, dir, target)
        const [before, after] = file.split("*") as [string, string | undefined]
        const found = after === undefined
          ? fs.existsSync(file)
          : fs.readdirSync(path.dirname(before), { recursive: true }).some((f) => path.join(path.dirname(before), String(f)).endsWith(after))
        if (!found) missing.push(`${dir} ${subpath} → ${target}`)
      }
    }
    assert.deepStrictEqual(missing, [])
  })

  it("the server package's root serves the root of @kassa/adapters", async () => {
    const { Http } = await import("@kassa/http")
    const { Kassa } = await import("@kassa/adapters")
    assert.isFunction(Http.serve)
    assert.isFunction(Kassa.layer)
  })
})

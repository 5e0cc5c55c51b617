import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const packages = path.resolve(import.meta.dirname, "../..")

type Target = { readonly "@kassa/source": string; readonly types: string; readonly import: string }

/** Each package's `exports`: subpath → its targets by condition (`null`: closed). */
const exportsOf = (dir: string): Record<string, Target | string | null> =>
  JSON.parse(fs.readFileSync(path.join(packages, dir, "package.json"), "utf8")).exports ?? {}

/** Whether a target (a file, or a pattern with one `*`) matches a file of the package. */
const exists = (dir: string, target: string) => {
  const file = path.join(packages, dir, target)
  const [before, after] = file.split("*") as [string, string | undefined]
  return after === undefined
    ? fs.existsSync(file)
    : fs.readdirSync(path.dirname(before), { recursive: true }).some((f) => path.join(path.dirname(before), String(f)).endsWith(after))
}

describe("the packages' exports", () => {
  it("every export's source points at a file that exists (a pattern at a folder with a matching file)", () => {
    const missing: Array<string> = []
    for (const dir of fs.readdirSync(packages)) {
      for (const [subpath, target] of Object.entries(exportsOf(dir))) {
        if (target === null) continue
        const file = typeof target === "string" ? target : target["@kassa/source"]
        if (!exists(dir, file)) missing.push(`${dir} ${subpath} → ${file}`)
      }
    }
    assert.deepStrictEqual(missing, [])
  })

  it("every export's types and import are the build of its source (tsup writes src/X.ts to build/esm/X.js and X.d.ts)", () => {
    for (const dir of fs.readdirSync(packages)) {
      for (const target of Object.values(exportsOf(dir))) {
        if (target === null || typeof target === "string") continue
        const built = target["@kassa/source"].replace(/^\.\/src\//, "./build/esm/").replace(/\.ts$/, "")
        assert.deepStrictEqual({ types: target.types, import: target.import }, { types: `${built}.d.ts`, import: `${built}.js` })
      }
    }
  })

  it("the server package's root serves the root of @kassa/adapters", async () => {
    const { Http } = await import("@kassa/http")
    const { Kassa } = await import("@kassa/adapters")
    assert.isFunction(Http.serve)
    assert.isFunction(Kassa.layer)
  })
})

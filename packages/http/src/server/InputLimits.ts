/**
 * Input refused at the edge before any route runs, so that no handler, schema or database ever
 * meets it: a NUL character anywhere in the path, the query or a JSON body (PostgreSQL cannot
 * store one), and a JSON body nested deeper than `maxBodyDepth`.
 *
 * @since 0.1.0
 */
import { JsonLimits } from "@kassa/core"

/**
 * How deep a JSON body may nest: room for the envelope around a `metadata` of
 * `JsonLimits.maxDepth` levels, which its own schema bounds.
 *
 * @since 0.1.0
 */
export const maxBodyDepth = 64

const nul = /%00/

/** @since 0.1.0 @category models */
export type UrlProblem =
  | { readonly _tag: "Path" }
  | { readonly _tag: "Query"; readonly message: string }

/**
 * What is wrong with a request URL: a NUL in the path (no resource is named so: 404), or in a
 * query parameter (400 naming it).
 *
 * @since 0.1.0
 */
export const urlProblem = (url: string): UrlProblem | undefined => {
  if (!nul.test(url)) return undefined
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  if (nul.test(path)) return { _tag: "Path" }
  for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
    if (key.includes("\u0000") || value.includes("\u0000")) {
      const name = key.includes("\u0000") ? "query parameter name" : key
      return { _tag: "Query", message: `${name}: ${JsonLimits.describe({ path: [], reason: "nul" })}` }
    }
  }
  return undefined
}

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b

/**
 * Whether the JSON text `text` certainly parses to a value within the limits, read off the text
 * alone: JSON writes a NUL only as the escape `\u0000`, and a value nests no deeper than the
 * text has `{` and `[`. Most bodies pass here, without a walk of the parsed value.
 */
const surelyWithin = (text: string): boolean => {
  if (text.includes("\\u0000")) return false
  let opened = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c === OPEN_BRACE || c === OPEN_BRACKET) && ++opened > maxBodyDepth) return false
  }
  return true
}

/**
 * What is wrong with a JSON body (`text`, parsed to `body`), naming the field, or `undefined`.
 *
 * @since 0.1.0
 */
export const bodyProblem = (text: string, body: unknown): string | undefined => {
  if (surelyWithin(text)) return undefined
  const violation = JsonLimits.check(body, maxBodyDepth)
  if (violation === undefined) return undefined
  const where = violation.path.length === 0 ? "body" : JsonLimits.pathText(violation.path)
  return `${where}: ${JsonLimits.describe(violation, maxBodyDepth)}`
}

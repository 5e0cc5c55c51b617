/**
 * The key behind continuation tokens: a message authentication code over a token's position and
 * the conditions of the search that issued it, so a token can be neither forged nor replayed with
 * other conditions. The adapter owns the key (HMAC-SHA256).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"

/** @since 0.1.0 @category tags */
export class SearchTokens extends Context.Tag("kassa/SearchTokens")<SearchTokens, {
  /** The code of `data`, URL-safe. */
  readonly sign: (data: string) => string
  /** Whether `code` is the code of `data` (compared in constant time). */
  readonly verify: (data: string, code: string) => boolean
}>() {}

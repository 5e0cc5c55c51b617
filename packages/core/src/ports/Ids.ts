/**
 * Identifier generation.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @since 0.1.0 @category tags */
export class Ids extends Context.Tag("kassa/Ids")<Ids, {
  /** A new unique, unguessable identifier of at most 40 characters. */
  readonly next: Effect.Effect<string>
}>() {}

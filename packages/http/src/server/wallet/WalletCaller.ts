/**
 * What the wallet handlers share: the caller's party and a list's continuation token read as
 * where its page starts (an unreadable one is 400 `InvalidToken`).
 *
 * @since 0.1.0
 */
import { Errors, Page } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** @since 0.1.0 */
export { merchantParty } from "../Caller.js"

/** @since 0.1.0 */
export const cursorOf = (token: string | undefined) =>
  token === undefined
    ? Effect.succeed(undefined)
    : Option.match(Page.decodeCursor(token), {
      onNone: () => Effect.fail(Errors.InvalidParameter.of("InvalidToken", "continuationToken", "Unknown continuation token")),
      onSome: (cursor) => Effect.succeed(cursor)
    })


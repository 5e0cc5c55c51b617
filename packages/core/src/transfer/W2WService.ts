/**
 * The wallet-to-wallet transfer's facade: create one (`CreateW2WTransfer`) and read it (the
 * sender's party reads it; another party's reads as missing).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import * as CreateW2WTransfer from "./CreateW2WTransfer.js"
import * as TransferContext from "./TransferContext.js"

/** @since 0.1.0 */
export { OPERATION } from "./CreateW2WTransfer.js"
/** @since 0.1.0 */
export { SETTLE_TIMER } from "./TransferContext.js"

/** What builds the service: `W2WService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* TransferContext.make

  const get = Traced.fn("W2WService.get")(function*(partyID: string, id: string) {
    const found = Option.filter(yield* ctx.transfers.findById(id), (t) => t.partyID === partyID)
    if (Option.isNone(found)) return yield* NotFound.of("W2W transfer", id)
    return found.value
  })

  return { create: CreateW2WTransfer.make(ctx), get } as const
})

/** @since 0.1.0 @category services */
export class W2WService extends Effect.Service<W2WService>()("kassa/W2WService", {
  effect: make
}) {}

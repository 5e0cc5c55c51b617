/**
 * Handlers of the wallet interface's W2W transfers.
 *
 * @since 0.1.0
 */
import { W2WService, W2WTransfer } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The W2W group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const transfers = yield* W2WService.W2WService
  return Group.handlers(KassaApi, "W2W")({
    createW2WTransfer: ({ payload }) =>
      located("/wallet/v0/w2w/transfers")(
        Effect.flatMap(merchantParty, (party) => transfers.create(party, payload)).pipe(Effect.map(W2WTransfer.toW2WTransfer)),
        (t) => t.id
      ),
    getW2WTransfer: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => transfers.get(party, path.w2wTransferID)).pipe(Effect.map(W2WTransfer.toW2WTransfer))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "W2W", handlers)

/**
 * Handlers of the wallet interface's deposit lists (the operator makes deposits, reverts and
 * adjustments: `AdminWallets`).
 *
 * @since 0.1.0
 */
import { DepositService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { cursorOf, merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The Deposits group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const deposits = yield* DepositService.DepositService
  const listing = <P extends { readonly continuationToken?: string | undefined }, A>(
    list: (party: string, params: DepositService.ListParams) => Effect.Effect<A>
  ) =>
  ({ urlParams }: { readonly urlParams: P & Omit<DepositService.ListParams, "after"> }) =>
    Effect.gen(function*() {
      const party = yield* merchantParty
      const { continuationToken, ...filters } = urlParams
      return yield* list(party, { ...filters, after: yield* cursorOf(continuationToken) })
    })
  return Group.handlers(KassaApi, "Deposits")({
    listDeposits: listing(deposits.list),
    listDepositReverts: listing(deposits.listReverts),
    listDepositAdjustments: listing(deposits.listAdjustments)
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Deposits", handlers)

/**
 * Handlers of the wallet interface's wallets, their accounts and grants.
 *
 * @since 0.1.0
 */
import { Wallet, WalletService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { cursorOf, merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The Wallets group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const wallets = yield* WalletService.WalletService
  return Group.handlers(KassaApi, "Wallets")({
    listWallets: ({ urlParams }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        return yield* wallets.list(party, {
          partyID: urlParams.partyID,
          identityID: urlParams.identityID,
          currencyID: urlParams.currencyID,
          limit: urlParams.limit,
          after: yield* cursorOf(urlParams.continuationToken)
        })
      }),
    createWallet: ({ payload }) =>
      located("/wallet/v0/wallets")(
        Effect.flatMap(merchantParty, (party) => wallets.create(party, payload)).pipe(Effect.map(Wallet.toWallet)),
        (w) => w.id
      ),
    getWallet: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => wallets.get(party, path.walletID)).pipe(Effect.map(Wallet.toWallet)),
    getWalletByExternalID: ({ urlParams }) =>
      Effect.flatMap(merchantParty, (party) => wallets.getByExternalID(party, urlParams.externalID)).pipe(Effect.map(Wallet.toWallet)),
    getWalletAccount: ({ path }) => Effect.flatMap(merchantParty, (party) => wallets.account(party, path.walletID)),
    issueWalletGrant: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => wallets.issueGrant(party, path.walletID, payload))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Wallets", handlers)

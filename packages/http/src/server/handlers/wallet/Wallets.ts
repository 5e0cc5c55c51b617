/**
 * Handlers of the wallet interface's wallets, their accounts and grants.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Wallet, WalletService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { cursorOf, merchantParty } from "../../wallet/WalletCaller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Wallets", (handlers) =>
  Effect.gen(function*() {
    const wallets = yield* WalletService.WalletService
    return handlers
      .handle("listWallets", ({ urlParams }) =>
        Effect.gen(function*() {
          const party = yield* merchantParty
          return yield* wallets.list(party, {
            partyID: urlParams.partyID,
            identityID: urlParams.identityID,
            currencyID: urlParams.currencyID,
            limit: urlParams.limit,
            after: yield* cursorOf(urlParams.continuationToken)
          })
        }))
      .handle("createWallet", ({ payload }) =>
        located("/wallet/v0/wallets")(
          Effect.flatMap(merchantParty, (party) => wallets.create(party, payload)).pipe(Effect.map(Wallet.toWallet)),
          (w) => w.id
        ))
      .handle("getWallet", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => wallets.get(party, path.walletID)).pipe(Effect.map(Wallet.toWallet)))
      .handle("getWalletByExternalID", ({ urlParams }) =>
        Effect.flatMap(merchantParty, (party) => wallets.getByExternalID(party, urlParams.externalID)).pipe(Effect.map(Wallet.toWallet)))
      .handle("getWalletAccount", ({ path }) => Effect.flatMap(merchantParty, (party) => wallets.account(party, path.walletID)))
      .handle("issueWalletGrant", ({ path, payload }) =>
        Effect.flatMap(merchantParty, (party) => wallets.issueGrant(party, path.walletID, payload)))
  }))

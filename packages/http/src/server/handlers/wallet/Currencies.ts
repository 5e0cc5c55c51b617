/**
 * Handlers of the wallet interface's currencies.
 *
 * @since 0.1.0
 */
import { WalletReference } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import * as Group from "../Group.js"

/** The WalletCurrencies group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.map(WalletReference.WalletReference, (reference) =>
  Group.handlers(KassaApi, "WalletCurrencies")({
    getCurrency: ({ path }) =>
      Effect.map(reference.currency(path.currencyID), ({ sign, ...currency }) =>
        sign === undefined ? currency : { ...currency, sign })
  }))

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "WalletCurrencies", handlers)

/**
 * Handlers of the wallet interface's currencies.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { WalletReference } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletCurrencies", (handlers) =>
  Effect.map(WalletReference.WalletReference, (reference) =>
    handlers.handle("getCurrency", ({ path }) =>
      Effect.map(reference.currency(path.currencyID), ({ sign, ...currency }) =>
        sign === undefined ? currency : { ...currency, sign }))))

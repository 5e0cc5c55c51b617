/**
 * Handlers of the card-token interface (payres).
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { BankCards } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { merchantParty } from "../../Caller.js"
import { located } from "../../wallet/Location.js"

const card = located("/payres/v0/bank-cards")

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WithdrawalResources", (handlers) =>
  Effect.map(BankCards.BankCards, (cards) =>
    handlers
      .handle("storeBankCard", ({ payload }) =>
        card(
          Effect.flatMap(merchantParty, (party) => cards.store(party, payload)).pipe(
            Effect.map(({ authData, ...stored }) => (authData === undefined ? stored : { ...stored, authData }))
          ),
          (stored) => stored.token
        ))
      .handle("getBankCard", ({ path }) => Effect.flatMap(merchantParty, (party) => cards.get(party, path.token)))))

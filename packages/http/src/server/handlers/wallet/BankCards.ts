/**
 * Handlers of the card-token interface (payres).
 *
 * @since 0.1.0
 */
import { BankCards } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { merchantParty } from "../../Caller.js"
import { located } from "../../wallet/Location.js"
import * as Group from "../Group.js"

const card = located("/payres/v0/bank-cards")

/** The WithdrawalResources group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.map(BankCards.BankCards, (cards) =>
  Group.handlers(KassaApi, "WithdrawalResources")({
    storeBankCard: ({ payload }) =>
      card(
        Effect.flatMap(merchantParty, (party) => cards.store(party, payload)).pipe(
          Effect.map(({ authData, ...stored }) => (authData === undefined ? stored : { ...stored, authData }))
        ),
        (stored) => stored.token
      ),
    getBankCard: ({ path }) => Effect.flatMap(merchantParty, (party) => cards.get(party, path.token))
  }))

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "WithdrawalResources", handlers)

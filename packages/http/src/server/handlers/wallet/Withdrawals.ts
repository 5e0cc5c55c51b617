/**
 * Handlers of the wallet interface's destinations, quotes and withdrawals.
 *
 * @since 0.1.0
 */
import { Destination, DestinationService, Withdrawal, WithdrawalService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { cursorOf, merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The Withdrawals group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const destinations = yield* DestinationService.DestinationService
  const withdrawals = yield* WithdrawalService.WithdrawalService
  return Group.handlers(KassaApi, "Withdrawals")({
    listDestinations: ({ urlParams }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        const { continuationToken, ...filters } = urlParams
        return yield* destinations.list(party, { ...filters, after: yield* cursorOf(continuationToken) })
      }),
    createDestination: ({ payload }) =>
      located("/wallet/v0/destinations")(
        Effect.flatMap(merchantParty, (party) => destinations.create(party, payload)).pipe(Effect.map(Destination.toDestination)),
        (d) => d.id
      ),
    getDestination: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => destinations.get(party, path.destinationID)).pipe(Effect.map(Destination.toDestination)),
    getDestinationByExternalID: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => destinations.getByExternalID(party, path.externalID)).pipe(
        Effect.map(Destination.toDestination)
      ),
    issueDestinationGrant: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => destinations.issueGrant(party, path.destinationID, payload)),
    createQuote: ({ payload }) => Effect.flatMap(merchantParty, (party) => withdrawals.quote(party, payload)),
    listWithdrawals: ({ urlParams }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        const { continuationToken, ...filters } = urlParams
        return yield* withdrawals.list(party, { ...filters, after: yield* cursorOf(continuationToken) })
      }),
    createWithdrawal: ({ payload }) =>
      located("/wallet/v0/withdrawals")(
        Effect.flatMap(merchantParty, (party) => withdrawals.create(party, payload)).pipe(Effect.map(Withdrawal.toWithdrawal)),
        (w) => w.id
      ),
    getWithdrawal: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => withdrawals.get(party, path.withdrawalID)).pipe(Effect.map(Withdrawal.toWithdrawal)),
    getWithdrawalByExternalID: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => withdrawals.getByExternalID(party, path.externalID)).pipe(
        Effect.map(Withdrawal.toWithdrawal)
      ),
    pollWithdrawalEvents: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => withdrawals.events(party, path.withdrawalID, urlParams)),
    getWithdrawalEvents: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => withdrawals.event(party, path.withdrawalID, path.eventID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Withdrawals", handlers)

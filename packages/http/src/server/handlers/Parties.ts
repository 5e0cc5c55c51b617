/**
 * Handlers of the Parties group.
 *
 * @since 0.1.0
 */
import { PartyService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The Parties group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const parties = yield* PartyService.PartyService
  return Group.handlers(KassaApi, "Parties")({
    getMyParty: () => Effect.flatMap(merchantParty, parties.get),
    activateMyParty: () => Effect.flatMap(merchantParty, (id) => parties.setStanding(id, "activate").pipe(Effect.asVoid)),
    suspendMyParty: () => Effect.flatMap(merchantParty, (id) => parties.setStanding(id, "suspend").pipe(Effect.asVoid)),
    getPartyByID: ({ path }) => Effect.flatMap(namedParty(path.partyID), parties.get),
    activatePartyByID: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (id) => parties.setStanding(id, "activate").pipe(Effect.asVoid)),
    suspendPartyByID: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (id) => parties.setStanding(id, "suspend").pipe(Effect.asVoid))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Parties", handlers)

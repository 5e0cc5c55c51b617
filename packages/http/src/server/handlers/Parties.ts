/**
 * Handlers of the Parties group.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { PartyService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Parties", (handlers) =>
  Effect.gen(function*() {
    const parties = yield* PartyService.PartyService
    return handlers
      .handle("getMyParty", () => Effect.flatMap(merchantParty, parties.get))
      .handle("activateMyParty", () => Effect.flatMap(merchantParty, (id) => parties.setStanding(id, "activate").pipe(Effect.asVoid)))
      .handle("suspendMyParty", () => Effect.flatMap(merchantParty, (id) => parties.setStanding(id, "suspend").pipe(Effect.asVoid)))
      .handle("getPartyByID", ({ path }) => Effect.flatMap(namedParty(path.partyID), parties.get))
      .handle("activatePartyByID", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (id) => parties.setStanding(id, "activate").pipe(Effect.asVoid)))
      .handle("suspendPartyByID", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (id) => parties.setStanding(id, "suspend").pipe(Effect.asVoid)))
  }))

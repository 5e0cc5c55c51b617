/**
 * Parties: the caller's own party and the party-scoped variants.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Party } from "@kassa/core"
import * as Schema from "effect/Schema"
import { PartyIdParam } from "./Params.js"
import { Authentication } from "./Security.js"

const PartyPath = Schema.Struct({ partyID: PartyIdParam })

/** @since 0.1.0 @category groups */
export class PartiesGroup extends HttpApiGroup.make("Parties")
  .add(HttpApiEndpoint.get("getMyParty", "/processing/me").addSuccess(Party.Party))
  .add(HttpApiEndpoint.put("activateMyParty", "/processing/me/activate"))
  .add(HttpApiEndpoint.put("suspendMyParty", "/processing/me/suspend"))
  .add(HttpApiEndpoint.get("getPartyByID", "/processing/parties/:partyID").setPath(PartyPath).addSuccess(Party.Party))
  .add(HttpApiEndpoint.put("activatePartyByID", "/processing/parties/:partyID/activate").setPath(PartyPath))
  .add(HttpApiEndpoint.put("suspendPartyByID", "/processing/parties/:partyID/suspend").setPath(PartyPath))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The caller's party: read it, suspend and activate it.")
{}

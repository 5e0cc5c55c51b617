/**
 * Contracts of the caller's party.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Contract } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Id, PartyIdParam } from "./Params.js"
import { Authentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const ContractAdjustment = Schema.Struct({
  id: Schema.String,
  createdAt: Schema.DateFromString,
  validSince: Schema.optional(Schema.DateFromString),
  validUntil: Schema.optional(Schema.DateFromString)
}).annotations({ identifier: "ContractAdjustment" })

const ContractPath = Schema.Struct({ contractID: Id })
const PartyContractPath = Schema.Struct({ partyID: PartyIdParam, contractID: Id })

/** @since 0.1.0 @category groups */
export class ContractsGroup extends HttpApiGroup.make("Contracts")
  .add(HttpApiEndpoint.get("getContracts", "/processing/contracts").addSuccess(Schema.Array(Contract.Contract)))
  .add(HttpApiEndpoint.get("getContractByID", "/processing/contracts/:contractID").setPath(ContractPath).addSuccess(Contract.Contract))
  .add(
    HttpApiEndpoint.get("getContractAdjustments", "/processing/contracts/:contractID/adjustments")
      .setPath(ContractPath)
      .addSuccess(Schema.Array(ContractAdjustment))
  )
  .add(
    HttpApiEndpoint.get("getContractAdjustmentByID", "/processing/contracts/:contractID/adjustments/:adjustmentID")
      .setPath(Schema.Struct({ contractID: Id, adjustmentID: Id }))
      .addSuccess(ContractAdjustment)
  )
  .add(
    HttpApiEndpoint.get("getContractsForParty", "/processing/parties/:partyID/contracts")
      .setPath(Schema.Struct({ partyID: PartyIdParam }))
      .addSuccess(Schema.Array(Contract.Contract))
  )
  .add(
    HttpApiEndpoint.get("getContractByIDForParty", "/processing/parties/:partyID/contracts/:contractID")
      .setPath(PartyContractPath)
      .addSuccess(Contract.Contract)
  )
  .add(
    HttpApiEndpoint.get("getContractAdjustmentsForParty", "/processing/parties/:partyID/contracts/:contractID/adjustments")
      .setPath(PartyContractPath)
      .addSuccess(Schema.Array(ContractAdjustment))
  )
  .add(
    HttpApiEndpoint.get(
      "getContractAdjustmentByIDForParty",
      "/processing/parties/:partyID/contracts/:contractID/adjustments/:adjustmentID"
    ).setPath(Schema.Struct({ partyID: PartyIdParam, contractID: Id, adjustmentID: Id })).addSuccess(ContractAdjustment)
  )
  .middleware(Authentication)
{}

/**
 * Handlers of the Contracts group.
 *
 * @since 0.1.0
 */
import { ContractService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The Contracts group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const contracts = yield* ContractService.ContractService
  return Group.handlers(KassaApi, "Contracts")({
    getContracts: () => Effect.flatMap(merchantParty, contracts.list),
    getContractByID: ({ path }) => Effect.flatMap(merchantParty, (p) => contracts.get(p, path.contractID)),
    getContractAdjustments: ({ path }) =>
      Effect.flatMap(merchantParty, (p) => contracts.adjustments(p, path.contractID)),
    getContractAdjustmentByID: ({ path }) =>
      Effect.flatMap(merchantParty, (p) => contracts.adjustment(p, path.contractID, path.adjustmentID)),
    getContractsForParty: ({ path }) => Effect.flatMap(namedParty(path.partyID), contracts.list),
    getContractByIDForParty: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (p) => contracts.get(p, path.contractID)),
    getContractAdjustmentsForParty: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (p) => contracts.adjustments(p, path.contractID)),
    getContractAdjustmentByIDForParty: ({ path }) =>
      Effect.flatMap(namedParty(path.partyID), (p) => contracts.adjustment(p, path.contractID, path.adjustmentID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Contracts", handlers)

/**
 * Handlers of the Contracts group.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { ContractService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Contracts", (handlers) =>
  Effect.gen(function*() {
    const contracts = yield* ContractService.ContractService
    return handlers
      .handle("getContracts", () => Effect.flatMap(merchantParty, contracts.list))
      .handle("getContractByID", ({ path }) => Effect.flatMap(merchantParty, (p) => contracts.get(p, path.contractID)))
      .handle("getContractAdjustments", ({ path }) =>
        Effect.flatMap(merchantParty, (p) => contracts.adjustments(p, path.contractID)))
      .handle("getContractAdjustmentByID", ({ path }) =>
        Effect.flatMap(merchantParty, (p) => contracts.adjustment(p, path.contractID, path.adjustmentID)))
      .handle("getContractsForParty", ({ path }) => Effect.flatMap(namedParty(path.partyID), contracts.list))
      .handle("getContractByIDForParty", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (p) => contracts.get(p, path.contractID)))
      .handle("getContractAdjustmentsForParty", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (p) => contracts.adjustments(p, path.contractID)))
      .handle("getContractAdjustmentByIDForParty", ({ path }) =>
        Effect.flatMap(namedParty(path.partyID), (p) => contracts.adjustment(p, path.contractID, path.adjustmentID)))
  }))

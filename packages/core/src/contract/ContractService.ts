/**
 * Reads of a party's contracts. Contract adjustments are made by the platform's moderation,
 * which Kassa does not run: a contract has none, and asking for one is answered as not found.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import { ContractID, PartyID } from "../Ids.js"
import * as Traced from "../internal/traced.js"
import { ContractRepository } from "../ports/ContractRepository.js"

/** What builds the service: `ContractService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const contracts = yield* ContractRepository

  const get = Traced.fn("ContractService.get")(function*(partyID: string, id: string) {
    const found = yield* contracts.findById(PartyID.make(partyID), ContractID.make(id))
    if (Option.isNone(found)) return yield* NotFound.of("Contract", id)
    return found.value
  })

  return {
    list: (partyID: string) => contracts.listByParty(PartyID.make(partyID)),
    get,
    adjustments: (partyID: string, id: string) => Effect.as(get(partyID, id), [] as ReadonlyArray<never>),
    adjustment: (partyID: string, id: string, adjustmentID: string) =>
      Effect.zipRight(get(partyID, id), Effect.fail(NotFound.of("Contract adjustment", adjustmentID)))
  } as const
})

/** @since 0.1.0 @category services */
export class ContractService extends Effect.Service<ContractService>()("kassa/ContractService", {
  effect: make
}) {}

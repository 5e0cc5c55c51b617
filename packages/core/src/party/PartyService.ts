/**
 * Use cases of the party: read it, suspend and activate it (the merchant), block and unblock it
 * (the platform).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Standing from "../Standing.js"
import { BusinessError, NotFound } from "../Errors.js"
import type { PartyID } from "../Ids.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { PartyRepository } from "../ports/PartyRepository.js"
import { Transactions } from "../ports/Transactions.js"

/** What builds the service: `PartyService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const parties = yield* PartyRepository
  const tx = yield* Transactions

  const get = Traced.fn("PartyService.get")(function*(id: PartyID) {
    const found = yield* parties.findById(id)
    if (Option.isNone(found)) return yield* NotFound.of("Party", id)
    return found.value
  })

  const setStanding = Traced.fn("PartyService.setStanding")(
    function*(id: PartyID, command: Standing.StandingCommand) {
      return yield* Optimistic.command(tx.withTransaction, { read: get(id), update: parties.update, what: `party ${id}` }, ({
        current: party,
        save
      }) => {
        const next = Standing.decide(party, command)
        if (Either.isLeft(next)) return Effect.fail(BusinessError.of("invalidRequest", "Party is blocked by the platform"))
        if (next.right.isBlocked === party.isBlocked && next.right.isSuspended === party.isSuspended) return Effect.succeed(party)
        return save({ ...party, ...next.right })
      })
    }
  )

  /**
   * Fails with `invalidPartyStatus` unless the party is active: the precondition of every
   * operation that changes the party's business.
   */
  const requireActive = Traced.fn("PartyService.requireActive")(function*(id: PartyID) {
    const party = yield* get(id)
    if (!Standing.isActive(party)) {
      return yield* BusinessError.of("invalidPartyStatus", party.isBlocked ? "Party is blocked" : "Party is suspended")
    }
    return party
  })

  return { get, setStanding, requireActive } as const
})

/** @since 0.1.0 @category services */
export class PartyService extends Effect.Service<PartyService>()("kassa/PartyService", {
  effect: make
}) {}

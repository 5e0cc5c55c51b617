/**
 * What the destination's modules work with, resolved once by the facade, and the destination's
 * authorization: right after it is created (and from a durable timer after a crash) the payout
 * provider is asked whether withdrawals may go to its card; when it says so the destination
 * becomes `Authorized`, else it stays `Unauthorized`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as WithdrawalMethods from "../identity/WithdrawalMethods.js"
import * as Idempotent from "../internal/idempotent.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Settlement from "../movement/Settlement.js"
import { BankCards } from "../payres/BankCards.js"
import { CardVault } from "../ports/CardVault.js"
import { DestinationRepository } from "../ports/DestinationRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency } from "../ports/Idempotency.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { Ids } from "../ports/Ids.js"
import { Jwt } from "../ports/Jwt.js"
import { PayoutProvider } from "../ports/PayoutProvider.js"
import { ProviderTermsRepository } from "../ports/ProviderTermsRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { KassaSettings } from "../Settings.js"
import type { DestinationRecord } from "./Destination.js"
import * as DestinationEvents from "./DestinationEvents.js"

/** The timer that authorizes a destination if the step after its creation was lost. @since 0.1.0 */
export const AUTHORIZE_TIMER = "destination.authorize"

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const destinations = yield* DestinationRepository
  const vault = yield* CardVault
  const provider = yield* PayoutProvider
  const tx = yield* Transactions
  const events = yield* EventLog
  const load = (id: string) =>
    Effect.flatMap(destinations.findById(id), (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Destination", id))))

  const authorize = (id: string) =>
    Effect.gen(function*() {
      const d = yield* load(id)
      if (d.status === "Authorized") return
      const card = yield* vault.getCard(d.vaultToken)
      if (Option.isNone(card) || !(yield* provider.authorize(card.value))) return
      yield* Optimistic.command(tx.withTransaction, { read: load(id), update: destinations.update, what: `destination ${id}` }, ({
        current,
        save,
        unchanged
      }) =>
        current.status === "Authorized"
          ? unchanged
          : Effect.flatMap(save({ ...current, status: "Authorized" } satisfies DestinationRecord), (saved) =>
            events.append(DestinationEvents.statusChanged(saved))))
    })

  const processing = yield* Settlement.processing({ timers: yield* Timers, tx, settings: yield* KassaSettings }, AUTHORIZE_TIMER, authorize)

  return {
    destinations,
    identities: yield* IdentityRepository,
    bankCards: yield* BankCards,
    methods: WithdrawalMethods.make(yield* ProviderTermsRepository),
    jwt: yield* Jwt,
    ids: yield* Ids,
    tx,
    events,
    externalIDs: Idempotent.make(yield* Idempotency),
    load,
    processing
  }
})

/** @since 0.1.0 @category models */
export type DestinationContext = Effect.Effect.Success<typeof make>

/**
 * What the withdrawal's modules work with, resolved once by the facade, its settling and its
 * payout. The payout runs in the background right after the withdrawal is created and from a
 * durable timer after a crash: it counts the attempt, asks the payout provider, and settles the
 * withdrawal with the answer (the plan committed on success, rolled back on failure). When the
 * provider is unavailable the timer stays and tries again after the recovery delay, up to
 * `MAX_ATTEMPTS` tries; then the withdrawal fails `authorization_failed` > `temporarily_unavailable`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as WithdrawalMethods from "../identity/WithdrawalMethods.js"
import * as Idempotent from "../internal/idempotent.js"
import * as Optimistic from "../internal/optimistic.js"
import { MovementCommand, type SubFailure } from "../movement/Movement.js"
import * as Settlement from "../movement/Settlement.js"
import { CardVault } from "../ports/CardVault.js"
import { DestinationRepository } from "../ports/DestinationRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency } from "../ports/Idempotency.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { Ids } from "../ports/Ids.js"
import { Jwt } from "../ports/Jwt.js"
import { Ledger } from "../ports/Ledger.js"
import { PayoutProvider } from "../ports/PayoutProvider.js"
import { ProviderTermsRepository } from "../ports/ProviderTermsRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { WalletRepository } from "../ports/WalletRepository.js"
import { WithdrawalRepository } from "../ports/WithdrawalRepository.js"
import { KassaSettings } from "../Settings.js"
import { WalletService } from "../wallet/WalletService.js"
import { withStatusEvent, type WithdrawalRecord } from "./Withdrawal.js"
import { appendSince, lastEventID } from "./WithdrawalEvents.js"

/** @since 0.1.0 */
export const PAYOUT_TIMER = "withdrawal.payout"
/** How many times a payout is tried while the provider is unavailable. @since 0.1.0 */
export const MAX_ATTEMPTS = 3

/** @since 0.1.0 */
export const temporarilyUnavailable: SubFailure = { code: "authorization_failed", subError: { code: "temporarily_unavailable" } }
/** The card behind the destination is gone from the vault. @since 0.1.0 */
export const unknownFailure: SubFailure = { code: "authorization_failed", subError: { code: "unknown" } }

/** The ledger plan of a withdrawal. @since 0.1.0 */
export const planOf = (w: Pick<WithdrawalRecord, "id">) => `withdrawal/${w.id}`

/** The provider asked to try again later. @since 0.1.0 @category errors */
export class PayoutRetry extends Data.TaggedError("PayoutRetry")<{ readonly id: string; readonly attempt: number }> {}

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const withdrawals = yield* WithdrawalRepository
  const destinations = yield* DestinationRepository
  const ledger = yield* Ledger
  const tx = yield* Transactions
  const vault = yield* CardVault
  const provider = yield* PayoutProvider
  const walletService = yield* WalletService
  const events = yield* EventLog
  const load = (id: string) =>
    Effect.flatMap(withdrawals.findById(id), (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Withdrawal", id))))
  // A status change records its event, and logs it with the change.
  const update = (next: WithdrawalRecord, expected: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const recorded = withStatusEvent(next, new Date(now))
      return Effect.tap(withdrawals.update(recorded, expected), (ok) => (ok ? appendSince(events, recorded, lastEventID(next)) : Effect.void))
    })

  const settle = (id: string, command: MovementCommand) =>
    Settlement.settle(tx, ledger, {
      read: load(id),
      update,
      what: `withdrawal ${id}`,
      plan: planOf({ id }),
      moved: (w) =>
        w.status === "Failed" && w.walletGrant !== undefined
          ? walletService.releaseGrant(w.walletGrant, w.walletID, { amount: w.amount + w.fee, currency: w.currency })
          : Effect.void
    }, command)

  const payout = (id: string) =>
    Effect.gen(function*() {
      const w = yield* load(id)
      if (w.status !== "Pending") return
      const destination = yield* destinations.findById(w.destinationID)
      const card = Option.isSome(destination) ? yield* vault.getCard(destination.value.vaultToken) : Option.none()
      if (Option.isNone(card)) return yield* Effect.asVoid(settle(id, MovementCommand.Fail({ failure: unknownFailure })))
      const attempted = yield* Optimistic.command(tx.withTransaction, { read: load(id), update: withdrawals.update, what: `withdrawal ${id}` }, ({
        current,
        save,
        unchanged
      }) => current.status !== "Pending" ? Effect.as(unchanged, current) : save({ ...current, attempts: current.attempts + 1 }))
      if (attempted.status !== "Pending") return
      const result = yield* provider.payout({
        operationID: id,
        attempt: attempted.attempts,
        card: card.value,
        amount: w.payout.amount,
        currency: w.payout.currency
      })
      if (result._tag === "Succeeded") return yield* Effect.asVoid(settle(id, MovementCommand.Succeed()))
      if (result._tag === "Failed") return yield* Effect.asVoid(settle(id, MovementCommand.Fail({ failure: result.failure })))
      if (attempted.attempts >= MAX_ATTEMPTS) {
        return yield* Effect.asVoid(settle(id, MovementCommand.Fail({ failure: temporarilyUnavailable })))
      }
      return yield* new PayoutRetry({ id, attempt: attempted.attempts })
    })

  const processing = yield* Settlement.processing({ timers: yield* Timers, tx, settings: yield* KassaSettings }, PAYOUT_TIMER, payout)

  return {
    withdrawals,
    destinations,
    wallets: yield* WalletRepository,
    identities: yield* IdentityRepository,
    walletService,
    ledger,
    tx,
    events,
    jwt: yield* Jwt,
    payouts: provider,
    methods: WithdrawalMethods.make(yield* ProviderTermsRepository),
    ids: yield* Ids,
    externalIDs: Idempotent.make(yield* Idempotency),
    load,
    settle,
    processing
  }
})

/** @since 0.1.0 @category models */
export type WithdrawalContext = Effect.Effect.Success<typeof make>

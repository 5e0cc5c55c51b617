/**
 * createWithdrawal: from a wallet to a destination, the caller's own or another party's when the
 * request carries its grant (`walletGrant`, `destinationGrant`). The checks of the reference
 * platform come first, each with its 422 message; then, in one transaction, the wallet's plan
 * (body to the payout provider's account, fee to the system's) is held and the wallet's
 * available balance checked: when the held debits exceed it the plan is rolled back and the
 * withdrawal is recorded Failed `account_limit_exceeded` > `amount`, so `available` never goes
 * below zero however many withdrawals run at once. Otherwise it is Pending and paid out in the
 * background (`WithdrawalContext`). Idempotent by `externalID`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allows } from "../destination/CreateDestination.js"
import { InvalidOperation } from "../Errors.js"
import * as Provider from "../identity/Provider.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Traced from "../internal/traced.js"
import { decide, insufficientFunds, MovementCommand } from "../movement/Movement.js"
import { holdChecked } from "../movement/Settlement.js"
import type { Posting } from "../ports/Ledger.js"
import * as Ref from "../Ref.js"
import { accountKey } from "../wallet/WalletAccount.js"
import type { WithdrawalParams, WithdrawalRecord } from "./Withdrawal.js"
import { planOf, type WithdrawalContext } from "./WithdrawalContext.js"
import { feeOf, termsOf } from "./WithdrawalTerms.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.withdrawal"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WithdrawalContext) => {
  const { destinations, externalIDs, identities, ids, jwt, ledger, load, processing, tx, walletService, wallets, withdrawals } = ctx

  const destinationGranted = (token: string | undefined, id: string) =>
    token === undefined ? Effect.succeed(false) : jwt.verify(token).pipe(
      Effect.map((claims) => claims.kind === "destination-grant" && claims.destinationID === id),
      Effect.orElseSucceed(() => false)
    )

  return Traced.fn("WithdrawalService.create")(function*(partyID: string, params: WithdrawalParams) {
    const { amount, currency } = params.body
    if (!Number.isSafeInteger(amount) || amount <= 0) return yield* InvalidOperation.of("Invalid cash amount")
    const wallet = Option.filter(yield* wallets.findById(params.wallet), (w) => w.partyID === partyID || params.walletGrant !== undefined)
    if (Option.isNone(wallet)) return yield* InvalidOperation.of("No such wallet")
    const destination = Option.filter(
      yield* destinations.findById(params.destination),
      (d) => d.partyID === partyID || params.destinationGrant !== undefined
    )
    if (Option.isNone(destination)) return yield* InvalidOperation.of("No such destination")
    const [w, d] = [wallet.value, destination.value]
    const byGrant = w.partyID !== partyID
    if (d.partyID !== partyID && !(yield* destinationGranted(params.destinationGrant, d.id))) {
      return yield* InvalidOperation.of("Destination unauthorized")
    }
    if (w.isBlocked) return yield* InvalidOperation.of("Wallet inaccessible")
    if (d.status !== "Authorized" || d.isBlocked) return yield* InvalidOperation.of("Destination unauthorized")
    const walletIdentity = yield* identities.findById(w.identityID)
    const destinationIdentity = yield* identities.findById(d.identityID)
    const provider = Option.flatMap(walletIdentity, (i) => Provider.find(i.provider))
    if (
      Option.isNone(walletIdentity) || Option.isNone(destinationIdentity) || Option.isNone(provider) ||
      walletIdentity.value.provider !== destinationIdentity.value.provider
    ) return yield* InvalidOperation.of("This wallet and destination cannot be used together")
    if (walletIdentity.value.isBlocked) return yield* InvalidOperation.of("Wallet inaccessible")
    const terms = termsOf(provider.value.id)
    if (currency !== w.currency || currency !== d.currency) return yield* InvalidOperation.of("Invalid currency")
    if (Option.isNone(terms) || !terms.value.currencies.includes(currency)) return yield* InvalidOperation.of("Forbidden currency")
    if (amount < terms.value.minAmount || amount > terms.value.maxAmount) return yield* InvalidOperation.of("Invalid cash amount")
    if (!allows(provider.value, d.resource.paymentSystem)) {
      return yield* InvalidOperation.of("Destination uses resource no longer allowed")
    }
    if (params.quoteToken !== undefined) return yield* InvalidOperation.of("Quote token expired")
    const fee = feeOf(terms.value, amount)
    const withdrawal = yield* externalIDs.create({
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ wallet: w.id, destination: d.id, body: params.body, metadata: params.metadata ?? null }),
      ref: Ref.Id,
      load: ({ id }) => load(id)
    }, (claim) =>
      tx.withTransaction(Effect.gen(function*() {
        const id = yield* ids.next
        yield* claim({ id })
        const total = { amount: amount + fee, currency }
        if (byGrant && !(yield* walletService.spendGrant(params.walletGrant!, w.id, total))) {
          return yield* InvalidOperation.of("Wallet unauthorized")
        }
        const createdAt = new Date(yield* Clock.currentTimeMillis)
        const pending: WithdrawalRecord = {
          id,
          partyID,
          walletID: w.id,
          identityID: w.identityID,
          destinationID: d.id,
          amount,
          currency,
          fee,
          ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          ...(byGrant ? { walletGrant: params.walletGrant } : {}),
          status: "Pending",
          attempts: 0,
          events: [{ eventID: 1, occuredAt: createdAt, status: "Pending" }],
          createdAt,
          version: 1
        }
        const debited = yield* ledger.account(accountKey(w))
        const postings: Array<Posting> = [
          { from: debited, to: yield* ledger.account({ kind: "provider", currency }), amount, currency, description: "withdrawal body" }
        ]
        if (fee > 0) {
          postings.push({ from: debited, to: yield* ledger.account({ kind: "system", currency }), amount: fee, currency, description: "withdrawal fee" })
        }
        const plan = planOf(pending)
        if (yield* holdChecked(ledger, plan, postings, debited)) {
          yield* withdrawals.insert(pending)
          yield* processing.schedule(id)
          return pending
        }
        yield* ledger.rollback(plan)
        if (byGrant) yield* walletService.releaseGrant(params.walletGrant!, w.id, total)
        const state = decide(pending, MovementCommand.Fail({ failure: insufficientFunds })).state
        const failed: WithdrawalRecord = {
          ...pending,
          ...state,
          events: [...pending.events, { eventID: 2, occuredAt: createdAt, status: "Failed", failure: insufficientFunds }]
        }
        yield* withdrawals.insert(failed)
        return failed
      })))
    if (withdrawal.status === "Pending") yield* processing.kick(withdrawal.id)
    return withdrawal
  })
}

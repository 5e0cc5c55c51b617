/**
 * createWithdrawal: from a wallet to a destination, the caller's own or another party's when the
 * request carries its grant (`walletGrant`, `destinationGrant`); into the destination's currency
 * when a quote (`quoteToken`) says at what rate. The checks of the reference platform come
 * first, each with its 422 message; then, in one transaction, the wallet's plan (body to the
 * payout provider's account, fee to the system's) is held and the wallet's available balance
 * checked: when the held debits exceed it the plan is rolled back and the withdrawal is recorded
 * Failed `account_limit_exceeded` > `amount`, so `available` never goes below zero however many
 * withdrawals run at once. Otherwise it is Pending and paid out in the background
 * (`WithdrawalContext`). Idempotent by `externalID`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import { createById } from "../internal/idempotent.js"
import * as Traced from "../internal/traced.js"
import { decide, insufficientFunds, MovementCommand } from "../movement/Movement.js"
import { holdChecked } from "../movement/Settlement.js"
import type { Posting } from "../ports/Ledger.js"
import type { Cash } from "../wallet/Wallet.js"
import { accountKey } from "../wallet/WalletAccount.js"
import type { WithdrawalParams, WithdrawalRecord } from "./Withdrawal.js"
import * as WithdrawalChecks from "./WithdrawalChecks.js"
import { appendSince } from "./WithdrawalEvents.js"
import { planOf, type WithdrawalContext } from "./WithdrawalContext.js"
import { feeOf } from "./WithdrawalTerms.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.withdrawal"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WithdrawalContext) => {
  const { events, jwt, ledger, load, processing, walletService, withdrawals } = ctx
  const checks = WithdrawalChecks.make(ctx)

  /** What the quote pays out, once it is the caller's, for this wallet, destination and body. */
  const quoted = (partyID: string, params: WithdrawalParams) =>
    Effect.gen(function*() {
      const claims = yield* Effect.either(jwt.verify(params.quoteToken!))
      if (claims._tag === "Left" || claims.right.kind !== "withdrawal-quote") return yield* InvalidOperation.of("Quote token expired")
      const q = claims.right
      if (q.sub !== partyID) return yield* InvalidOperation.of("Withdrawal owner differs from quote`s one")
      if (q.walletID !== params.wallet) return yield* InvalidOperation.of("Withdrawal wallet differs from quote`s one")
      if (q.destinationID !== undefined && q.destinationID !== params.destination) {
        return yield* InvalidOperation.of("Withdrawal destination differs from quote`s one")
      }
      if (q.cashFrom.amount !== params.body.amount || q.cashFrom.currency !== params.body.currency) {
        return yield* InvalidOperation.of("Withdrawal body differs from quote`s one")
      }
      return q.cashTo
    })

  return Traced.fn("WithdrawalService.create")(function*(partyID: string, params: WithdrawalParams) {
    const { amount, currency } = params.body
    if (!Number.isSafeInteger(amount) || amount <= 0) return yield* InvalidOperation.of("Invalid cash amount")
    const w = yield* checks.wallet(partyID, params.wallet, params.walletGrant)
    const d = yield* checks.destination(partyID, params.destination, params.destinationGrant)
    const byGrant = w.partyID !== partyID
    const { terms } = yield* checks.together(w, d)
    const payout: Cash = params.quoteToken === undefined ? params.body : yield* quoted(partyID, params)
    if (currency !== w.currency || payout.currency !== d.currency) return yield* InvalidOperation.of("Invalid currency")
    if (!terms.currencies.includes(currency) || !terms.currencies.includes(payout.currency)) return yield* InvalidOperation.of("Forbidden currency")
    if (amount < terms.minAmount || amount > terms.maxAmount) return yield* InvalidOperation.of("Invalid cash amount")
    const fee = feeOf(terms, amount)
    const withdrawal = yield* createById(ctx, {
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () =>
        canonicalJson({ wallet: w.id, destination: d.id, body: params.body, payout, metadata: params.metadata ?? null }),
      load
    }, (id) =>
      Effect.gen(function*() {
        const total = { amount: amount + fee, currency }
        if (byGrant && !(yield* walletService.spendGrant(params.walletGrant!, w.id, total))) {
          return yield* InvalidOperation.of("Wallet unauthorized")
        }
        const createdAt = new Date(yield* Clock.currentTimeMillis)
        const pending: WithdrawalRecord = {
          id,
          partyID,
          walletPartyID: w.partyID,
          walletID: w.id,
          identityID: w.identityID,
          destinationID: d.id,
          amount,
          currency,
          fee,
          payout,
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
          yield* appendSince(events, pending, 0)
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
        yield* appendSince(events, failed, 0)
        return failed
      }))
    if (withdrawal.status === "Pending") yield* processing.kick(withdrawal.id)
    return withdrawal
  })
}

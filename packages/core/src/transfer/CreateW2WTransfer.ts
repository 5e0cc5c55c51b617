/**
 * createW2WTransfer: from one of the caller's wallets to any wallet of the same currency. In
 * one transaction the plan (sender → receiver) is held and the sender's available balance
 * checked: when the held debits exceed it the plan is rolled back and the transfer is recorded
 * Failed `account_limit_exceeded`, so `available` never goes below zero however many transfers
 * run at once. Otherwise it is Pending and succeeds in the background, the plan committed.
 * Idempotent by `externalID`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import { createById } from "../internal/idempotent.js"
import * as Traced from "../internal/traced.js"
import { decide, insufficientFunds, MovementCommand } from "../movement/Movement.js"
import { holdChecked } from "../movement/Settlement.js"
import { accountKey } from "../wallet/WalletAccount.js"
import type { W2WTransferParams, W2WTransferRecord } from "./W2WTransfer.js"
import { planOf, type TransferContext } from "./TransferContext.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.w2w"

/** @since 0.1.0 @category constructors */
export const make = (ctx: TransferContext) => {
  const { ledger, load, processing, transfers, wallets } = ctx
  return Traced.fn("W2WService.create")(function*(partyID: string, params: W2WTransferParams) {
    if (params.body.amount <= 0 || !Number.isSafeInteger(params.body.amount)) return yield* InvalidOperation.of("Bad transfer amount")
    const sender = Option.filter(yield* wallets.findById(params.sender), (w) => w.partyID === partyID)
    if (Option.isNone(sender)) return yield* InvalidOperation.of("No such wallet sender")
    const receiver = yield* wallets.findById(params.receiver)
    if (Option.isNone(receiver)) return yield* InvalidOperation.of("No such wallet receiver")
    const [from, to] = [sender.value, receiver.value]
    if (from.isBlocked || to.isBlocked) return yield* InvalidOperation.of("Wallet inaccessible")
    if (params.body.currency !== from.currency) return yield* InvalidOperation.of("Currency not allowed")
    if (to.currency !== from.currency) return yield* InvalidOperation.of("Inconsistent currency")
    if (from.id === to.id) return yield* InvalidOperation.of("Sender and receiver are one wallet")
    const transfer = yield* createById(ctx, {
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ sender: from.id, receiver: to.id, body: params.body }),
      load
    }, (id) =>
      Effect.gen(function*() {
        const pending: W2WTransferRecord = {
          id,
          partyID,
          senderID: from.id,
          receiverID: to.id,
          amount: params.body.amount,
          currency: from.currency,
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          status: "Pending",
          createdAt: new Date(yield* Clock.currentTimeMillis),
          version: 1
        }
        const debited = yield* ledger.account(accountKey(from))
        const credited = yield* ledger.account(accountKey(to))
        const plan = planOf(pending)
        const covered = yield* holdChecked(ledger, plan, [
          { from: debited, to: credited, amount: pending.amount, currency: pending.currency, description: "w2w transfer" }
        ], debited)
        if (covered) {
          yield* transfers.insert(pending)
          yield* processing.schedule(id)
          return pending
        }
        yield* ledger.rollback(plan)
        const failed: W2WTransferRecord = { ...pending, ...decide(pending, MovementCommand.Fail({ failure: insufficientFunds })).state }
        yield* transfers.insert(failed)
        return failed
      }))
    if (transfer.status === "Pending") yield* processing.kick(transfer.id)
    return transfer
  })
}

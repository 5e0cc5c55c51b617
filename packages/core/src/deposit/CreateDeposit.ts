/**
 * The operator's deposit: money from a source into a wallet. It starts Pending with its plan
 * (source → wallet) held, and succeeds in the background, the plan committed. Idempotent by
 * `externalID` in the operator's namespace of the wallet's party.
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
import { accountKey, sourceKey } from "../wallet/WalletAccount.js"
import type { DepositParams, DepositRecord } from "./Deposit.js"
import { type DepositContext, depositPlan } from "./DepositContext.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.deposit"
/** The namespace of the operator's externalIDs. @since 0.1.0 */
export const OPERATOR_NAMESPACE = "operator"

/** @since 0.1.0 @category constructors */
export const make = (ctx: DepositContext) => {
  const { deposits, ledger, load, processing, wallets } = ctx
  return Traced.fn("DepositService.create")(function*(params: DepositParams) {
    const wallet = yield* wallets.findById(params.wallet)
    if (Option.isNone(wallet)) return yield* InvalidOperation.of("No such wallet")
    const w = wallet.value
    if (w.isBlocked) return yield* InvalidOperation.of("Wallet inaccessible")
    if (params.body.currency !== w.currency) return yield* InvalidOperation.of("Inconsistent currency")
    const deposit = yield* createById(ctx, {
      partyID: w.partyID,
      namespace: OPERATOR_NAMESPACE,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ wallet: w.id, source: params.source, body: params.body }),
      load
    }, (id) =>
      Effect.gen(function*() {
        const d: DepositRecord = {
          id,
          partyID: w.partyID,
          walletID: w.id,
          identityID: w.identityID,
          sourceID: params.source,
          amount: params.body.amount,
          currency: w.currency,
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          ...(params.desc === undefined ? {} : { description: params.desc }),
          status: "Pending",
          reverted: 0,
          createdAt: new Date(yield* Clock.currentTimeMillis),
          version: 1
        }
        yield* deposits.insert(d)
        const from = yield* ledger.account(sourceKey(w.currency))
        const to = yield* ledger.account(accountKey(w))
        yield* ledger.hold(depositPlan(d), { id: 1, postings: [{ from, to, amount: d.amount, currency: d.currency, description: "deposit" }] })
        yield* processing.deposit.schedule(id)
        return d
      }))
    if (deposit.status === "Pending") yield* processing.deposit.kick(deposit.id)
    return deposit
  })
}

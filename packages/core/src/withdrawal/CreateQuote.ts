/**
 * createQuote: prices a withdrawal from a wallet (and to a destination, when named) at the
 * documented rates (`Quote`), after the checks a withdrawal makes, and signs the quote as a
 * token that binds the party, wallet, destination and both amounts until it expires.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { InvalidOperation } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import { price, QUOTE_LIFETIME_MS, type QuoteParams } from "./Quote.js"
import * as WithdrawalChecks from "./WithdrawalChecks.js"
import type { WithdrawalContext } from "./WithdrawalContext.js"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WithdrawalContext) => {
  const { ids, jwt } = ctx
  const checks = WithdrawalChecks.make(ctx)

  const walletGranted = (token: string, walletID: string) =>
    jwt.verify(token).pipe(
      Effect.map((claims) => claims.kind === "wallet-grant" && claims.walletID === walletID),
      Effect.orElseSucceed(() => false)
    )

  return Traced.fn("WithdrawalService.quote")(function*(partyID: string, params: QuoteParams) {
    const { cash, currencyFrom, currencyTo } = params
    if (!Number.isSafeInteger(cash.amount) || cash.amount <= 0) return yield* InvalidOperation.of("Invalid cash amount")
    if (cash.currency !== currencyFrom && cash.currency !== currencyTo) return yield* InvalidOperation.of("Invalid currency")
    const w = yield* checks.wallet(partyID, params.walletID, params.walletGrant)
    if (w.partyID !== partyID && !(yield* walletGranted(params.walletGrant!, w.id))) return yield* InvalidOperation.of("Wallet unauthorized")
    const d = params.destinationID === undefined ? undefined : yield* checks.destination(partyID, params.destinationID, params.destinationGrant)
    const { terms } = yield* checks.together(w, d)
    if (currencyFrom !== w.currency || (d !== undefined && d.currency !== currencyTo)) return yield* InvalidOperation.of("Invalid currency")
    const priced = price(currencyFrom, currencyTo, cash)
    if (!terms.currencies.includes(currencyFrom) || !terms.currencies.includes(currencyTo) || priced === undefined) {
      return yield* InvalidOperation.of("Forbidden currency")
    }
    const { cashFrom, cashTo } = priced
    if (cashFrom.amount < terms.minAmount || cashFrom.amount > terms.maxAmount || cashTo.amount <= 0) {
      return yield* InvalidOperation.of("Invalid cash amount")
    }
    const now = yield* Clock.currentTimeMillis
    const expiresOn = new Date(now + QUOTE_LIFETIME_MS)
    const quoteToken = yield* jwt.issue({
      kind: "withdrawal-quote",
      sub: partyID,
      jti: yield* ids.next,
      walletID: w.id,
      ...(d === undefined ? {} : { destinationID: d.id }),
      cashFrom,
      cashTo
    }, expiresOn)
    return { cashFrom, cashTo, createdAt: new Date(now), expiresOn, quoteToken }
  })
}

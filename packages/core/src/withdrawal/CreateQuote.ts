/**
 * createQuote: prices a withdrawal from a wallet (and to a destination, when named) at the
 * documented rates (`Quote`), after the checks a withdrawal makes, and signs the quote as a
 * token that binds the party, wallet, destination and both amounts until it expires. Idempotent
 * by `externalID`: the quote is its token, so the token is what the key records, and a repeated
 * request answers the first quote read back from it (an expired one: "Quote token expired").
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Traced from "../internal/traced.js"
import * as Ref from "../Ref.js"
import { price, QUOTE_LIFETIME_MS, type QuoteParams } from "./Quote.js"
import * as WithdrawalChecks from "./WithdrawalChecks.js"
import type { WithdrawalContext } from "./WithdrawalContext.js"

/** The idempotency operation of a quote's `externalID`. @since 0.1.0 */
export const OPERATION = "wallet.quote"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WithdrawalContext) => {
  const { externalIDs, ids, jwt } = ctx
  const checks = WithdrawalChecks.make(ctx)

  const walletGranted = (token: string, walletID: string) =>
    jwt.verify(token).pipe(
      Effect.map((claims) => claims.kind === "wallet-grant" && claims.walletID === walletID),
      Effect.orElseSucceed(() => false)
    )

  /** The quote a token of this kind stands for. */
  const read = (quoteToken: string) =>
    Effect.gen(function*() {
      const claims = yield* Effect.either(jwt.verify(quoteToken))
      if (claims._tag === "Left" || claims.right.kind !== "withdrawal-quote" || claims.right.exp === undefined) {
        return yield* InvalidOperation.of("Quote token expired")
      }
      const q = claims.right
      return { cashFrom: q.cashFrom, cashTo: q.cashTo, createdAt: new Date(q.iat * 1000), expiresOn: new Date(claims.right.exp! * 1000), quoteToken }
    })

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
    // whole seconds, as the token carries them, so a replay answers the same times
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000) * 1000
    const expiresOn = new Date(now + QUOTE_LIFETIME_MS)
    return yield* externalIDs.create({
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () =>
        canonicalJson({ walletID: w.id, destinationID: d?.id ?? null, currencyFrom, currencyTo, cash }),
      ref: Ref.Id,
      load: ({ id }) => read(id)
    }, (claim) =>
      Effect.gen(function*() {
        const quoteToken = yield* jwt.issue({
          kind: "withdrawal-quote",
          sub: partyID,
          jti: yield* ids.next,
          walletID: w.id,
          ...(d === undefined ? {} : { destinationID: d.id }),
          cashFrom,
          cashTo
        }, expiresOn)
        yield* claim({ id: quoteToken })
        return { cashFrom, cashTo, createdAt: new Date(now), expiresOn, quoteToken }
      }))
  })
}

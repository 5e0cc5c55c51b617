/**
 * Wallet grants: a signed, expiring right to spend up to an `asset` from a wallet one does not
 * own. `issue` (issueWalletGrant) signs one for the owner; `check` is what an operation spending
 * with a grant asks of it (the token's signature and expiry, its wallet, currency and amount).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation, NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import type { Cash, WalletGrantParams } from "./Wallet.js"
import type { WalletContext } from "./WalletContext.js"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WalletContext) => {
  const { find, ids, jwt } = ctx

  const issue = Traced.fn("WalletService.issueGrant")(function*(partyID: string, walletID: string, params: WalletGrantParams) {
    const wallet = yield* find(partyID, walletID)
    if (Option.isNone(wallet)) return yield* NotFound.of("Wallet", walletID)
    if (params.validUntil.getTime() <= (yield* Clock.currentTimeMillis)) {
      return yield* InvalidOperation.of("Invalid expiration: already expired")
    }
    if (params.asset.currency !== wallet.value.currency) return yield* InvalidOperation.of("Inconsistent currency")
    if (!Number.isSafeInteger(params.asset.amount) || params.asset.amount < 1) return yield* InvalidOperation.of("Invalid cash amount")
    const token = yield* jwt.issue({
      kind: "wallet-grant",
      sub: partyID,
      jti: yield* ids.next,
      walletID,
      amount: params.asset.amount,
      currency: params.asset.currency
    }, params.validUntil)
    return { token, asset: params.asset, validUntil: params.validUntil }
  })

  /**
   * Whether `token` lets its bearer spend `cash` from `walletID` now: an invalid or expired
   * token, another wallet's, or more than its asset is "Wallet unauthorized"'s case, answered
   * here as `false` for the spending operation to word.
   */
  const check = (token: string, walletID: string, cash: Cash) =>
    jwt.verify(token).pipe(
      Effect.map((claims) =>
        claims.kind === "wallet-grant" && claims.walletID === walletID && claims.currency === cash.currency &&
        cash.amount <= claims.amount
      ),
      Effect.orElseSucceed(() => false)
    )

  return { issue, check } as const
}

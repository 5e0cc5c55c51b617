/**
 * Wallet grants: a signed, expiring right to spend up to an `asset`, in total, from a wallet one
 * does not own. `issue` (issueWalletGrant) signs one for the owner and records it; an operation
 * spending with a grant (a withdrawal from another party's wallet) `spend`s from it inside its own
 * transaction, and `release`s what it took when it fails. Spends are serialised on the grant's
 * version, so concurrent ones never take more than its asset together.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation, NotFound } from "../Errors.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import type { Cash, WalletGrantParams, WalletGrantRecord } from "./Wallet.js"
import type { WalletContext } from "./WalletContext.js"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WalletContext) => {
  const { find, grants, ids, jwt, tx } = ctx

  const issue = Traced.fn("WalletService.issueGrant")(function*(partyID: string, walletID: string, params: WalletGrantParams) {
    const wallet = yield* find(partyID, walletID)
    if (Option.isNone(wallet)) return yield* NotFound.of("Wallet", walletID)
    const now = yield* Clock.currentTimeMillis
    if (params.validUntil.getTime() <= now) return yield* InvalidOperation.of("Invalid expiration: already expired")
    if (params.asset.currency !== wallet.value.currency) return yield* InvalidOperation.of("Inconsistent currency")
    if (!Number.isSafeInteger(params.asset.amount) || params.asset.amount < 1) return yield* InvalidOperation.of("Invalid cash amount")
    const id = yield* ids.next
    yield* grants.insert({
      id,
      partyID,
      walletID,
      amount: params.asset.amount,
      currency: params.asset.currency,
      validUntil: params.validUntil,
      spent: 0,
      createdAt: new Date(now),
      version: 1
    })
    const token = yield* jwt.issue({
      kind: "wallet-grant",
      sub: partyID,
      jti: id,
      walletID,
      amount: params.asset.amount,
      currency: params.asset.currency
    }, params.validUntil)
    return { token, asset: params.asset, validUntil: params.validUntil }
  })

  /** The grant `token` names when it is valid now and for `walletID`. */
  const grantOf = (token: string, walletID: string) =>
    jwt.verify(token).pipe(
      Effect.map((claims) => (claims.kind === "wallet-grant" && claims.walletID === walletID ? Option.some(claims.jti) : Option.none())),
      Effect.orElseSucceed(() => Option.none<string>())
    )

  const load = (id: string) =>
    Effect.flatMap(grants.findById(id), (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.dieMessage(`grant ${id} was never recorded`)))

  /**
   * Takes `cash` from what the grant leaves, inside the caller's transaction; answers whether it
   * could (a token invalid, expired or for another wallet, another currency, or more than the
   * grant leaves cannot: "Wallet unauthorized" is the spending operation's word for it).
   */
  const spend = (token: string, walletID: string, cash: Cash) =>
    Effect.flatMap(grantOf(token, walletID), (id) =>
      Option.isNone(id) ? Effect.succeed(false) : Optimistic.command(tx.withTransaction, {
        read: load(id.value),
        update: grants.update,
        what: `wallet grant ${id.value}`
      }, ({ current, save, unchanged }) => {
        const ok = current.currency === cash.currency && cash.amount > 0 && current.spent + cash.amount <= current.amount
        return ok ? Effect.as(save({ ...current, spent: current.spent + cash.amount }), true) : Effect.as(unchanged, false)
      }))

  /** Gives back what a failed operation spent with the grant `token` names. */
  const release = (token: string, walletID: string, cash: Cash) =>
    Effect.flatMap(grantOf(token, walletID), (id) =>
      Option.isNone(id) ? Effect.void : Optimistic.command(tx.withTransaction, {
        read: load(id.value),
        update: grants.update,
        what: `wallet grant ${id.value}`
      }, ({ current, save }) => Effect.asVoid(save({ ...current, spent: Math.max(0, current.spent - cash.amount) } satisfies WalletGrantRecord))))

  return { issue, spend, release } as const
}

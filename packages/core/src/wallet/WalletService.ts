/**
 * The wallet's facade for handlers and embedders: create one (`CreateWallet`), read them, its
 * account's balance, grants (`WalletGrants`) and the operator's blocking.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Optimistic from "../internal/optimistic.js"
import * as PartyReads from "../internal/partyReads.js"
import * as Traced from "../internal/traced.js"
import type * as Page from "../Page.js"
import * as CreateWallet from "./CreateWallet.js"
import { toWallet, type WalletRecord } from "./Wallet.js"
import { accountKey, toWalletAccount } from "./WalletAccount.js"
import * as WalletContext from "./WalletContext.js"
import * as WalletGrants from "./WalletGrants.js"

/** @since 0.1.0 */
export { OPERATION } from "./CreateWallet.js"

/** @since 0.1.0 @category models */
export interface ListParams {
  readonly partyID?: string | undefined
  readonly identityID?: string | undefined
  readonly currencyID?: string | undefined
  readonly limit: number
  readonly after?: Page.Cursor | undefined
}

/** What builds the service: `WalletService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* WalletContext.make
  const { externalIDs, ledger, wallets } = ctx
  const grants = WalletGrants.make(ctx)
  const { get, getByExternalID, list } = PartyReads.make({
    service: "WalletService",
    what: "Wallet",
    operation: CreateWallet.OPERATION,
    externalIDs,
    findById: wallets.findById,
    list: wallets.list,
    show: toWallet
  })

  const account = Traced.fn("WalletService.account")(function*(partyID: string, id: string) {
    const wallet = yield* get(partyID, id)
    const balance = yield* ledger.balance(yield* ledger.account(accountKey(wallet)))
    return toWalletAccount(wallet.currency, Option.getOrUndefined(balance))
  })

  /** The operator blocks or unblocks a wallet: a blocked one neither sends nor receives. */
  const setBlocked = Traced.fn("WalletService.setBlocked")(function*(id: string, isBlocked: boolean) {
    return yield* Optimistic.command(ctx.tx.withTransaction, { read: ctx.load(id), update: wallets.update, what: `wallet ${id}` }, ({
      current,
      save
    }) => save({ ...current, isBlocked } satisfies WalletRecord))
  })

  return {
    create: CreateWallet.make(ctx),
    get,
    getByExternalID,
    list,
    account,
    issueGrant: grants.issue,
    spendGrant: grants.spend,
    releaseGrant: grants.release,
    setBlocked
  } as const
})

/** @since 0.1.0 @category services */
export class WalletService extends Effect.Service<WalletService>()("kassa/WalletService", {
  effect: make
}) {}

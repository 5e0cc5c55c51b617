/**
 * createWallet: a wallet of one of the caller's identities, in a currency its provider's terms
 * support, with its ledger account opened in the same transaction. Idempotent by `externalID`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation } from "../Errors.js"
import * as NamedIdentity from "../identity/NamedIdentity.js"
import * as Provider from "../identity/Provider.js"
import { canonicalJson } from "../internal/canonical.js"
import { createById } from "../internal/idempotent.js"
import * as Traced from "../internal/traced.js"
import type { WalletParams, WalletRecord } from "./Wallet.js"
import { accountKey } from "./WalletAccount.js"
import type { WalletContext } from "./WalletContext.js"

/** The idempotency operation of a wallet's `externalID`. @since 0.1.0 */
export const OPERATION = "wallet.wallet"

/** @since 0.1.0 @category constructors */
export const make = (ctx: WalletContext) => {
  const { identities, ledger, load, wallets } = ctx
  const named = NamedIdentity.make(identities)
  return Traced.fn("WalletService.create")(function*(partyID: string, params: WalletParams) {
    const identity = yield* named.usable(partyID, params.identity)
    const provider = Provider.find(identity.provider)
    if (Option.isNone(provider) || !provider.value.currencies.includes(params.currency)) {
      return yield* InvalidOperation.of("Currency not supported")
    }
    return yield* createById(ctx, {
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () =>
        canonicalJson({ name: params.name, identity: params.identity, currency: params.currency, metadata: params.metadata ?? null }),
      load
    }, (id) =>
      Effect.gen(function*() {
        const wallet: WalletRecord = {
          id,
          partyID,
          identityID: params.identity,
          name: params.name,
          currency: params.currency,
          isBlocked: false,
          ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          createdAt: new Date(yield* Clock.currentTimeMillis),
          version: 1
        }
        yield* wallets.insert(wallet)
        yield* ledger.account(accountKey(wallet))
        return wallet
      }))
  })
}

/**
 * The checks createQuote and createWithdrawal share, each refusal in the interface's words: the
 * wallet (the caller's, or another party's with its grant), the destination (likewise, and
 * authorized), that both belong to identities of one provider whose terms allow the card, and
 * that the payout provider knows the card's issuer.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { DestinationRecord } from "../destination/Destination.js"
import { InvalidOperation } from "../Errors.js"
import * as Provider from "../identity/Provider.js"
import type { WalletRecord } from "../wallet/Wallet.js"
import type { WithdrawalContext } from "./WithdrawalContext.js"
import { termsOf } from "./WithdrawalTerms.js"

/** @since 0.1.0 @category constructors */
export const make = (ctx: Pick<WithdrawalContext, "destinations" | "identities" | "jwt" | "methods" | "payouts" | "wallets">) => {
  const { destinations, identities, jwt, methods, payouts, wallets } = ctx

  /** The wallet when the caller may withdraw from it (a grant's spending is checked when it is spent). */
  const wallet = (partyID: string, id: string, grant: string | undefined) =>
    Effect.gen(function*() {
      const found = Option.filter(yield* wallets.findById(id), (w) => w.partyID === partyID || grant !== undefined)
      if (Option.isNone(found)) return yield* InvalidOperation.of("No such wallet")
      return found.value
    })

  const destinationGranted = (token: string | undefined, id: string) =>
    token === undefined ? Effect.succeed(false) : jwt.verify(token).pipe(
      Effect.map((claims) => claims.kind === "destination-grant" && claims.destinationID === id),
      Effect.orElseSucceed(() => false)
    )

  /** The destination when the caller may withdraw to it. */
  const destination = (partyID: string, id: string, grant: string | undefined) =>
    Effect.gen(function*() {
      const found = Option.filter(yield* destinations.findById(id), (d) => d.partyID === partyID || grant !== undefined)
      if (Option.isNone(found)) return yield* InvalidOperation.of("No such destination")
      if (found.value.partyID !== partyID && !(yield* destinationGranted(grant, id))) return yield* InvalidOperation.of("Destination unauthorized")
      return found.value
    })

  /** The provider and terms both belong to, once both are usable. */
  const together = (w: WalletRecord, d: DestinationRecord | undefined) =>
    Effect.gen(function*() {
      if (w.isBlocked) return yield* InvalidOperation.of("Wallet inaccessible")
      if (d !== undefined && (d.status !== "Authorized" || d.isBlocked)) return yield* InvalidOperation.of("Destination unauthorized")
      const walletIdentity = yield* identities.findById(w.identityID)
      if (Option.isNone(walletIdentity) || walletIdentity.value.isBlocked) return yield* InvalidOperation.of("Wallet inaccessible")
      const provider = Provider.find(walletIdentity.value.provider)
      const terms = termsOf(walletIdentity.value.provider)
      if (Option.isNone(provider) || Option.isNone(terms)) return yield* InvalidOperation.of("Wallet inaccessible")
      if (d !== undefined) {
        const destinationIdentity = yield* identities.findById(d.identityID)
        if (Option.isNone(destinationIdentity) || destinationIdentity.value.provider !== provider.value.id) {
          return yield* InvalidOperation.of("This wallet and destination cannot be used together")
        }
        if (!(yield* methods.allows(provider.value, d.resource.paymentSystem))) return yield* InvalidOperation.of("Destination uses resource no longer allowed")
        if (!(yield* payouts.knowsIssuer(d.resource.bin))) return yield* InvalidOperation.of("Unknown card issuer")
      }
      return { provider: provider.value, terms: terms.value }
    })

  return { wallet, destination, together } as const
}

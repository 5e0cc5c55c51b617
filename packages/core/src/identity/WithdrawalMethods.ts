/**
 * A provider's withdrawal methods as its terms stand now: the payment systems of its reference
 * data (`Provider`) less those the operator has forbidden since. Destinations are created, and
 * quotes and withdrawals made, only to cards of a payment system allowed now; a destination made
 * before the operator forbade its payment system is refused "Destination uses resource no
 * longer allowed".
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import type { ProviderTermsRepository } from "../ports/ProviderTermsRepository.js"
import * as Provider from "./Provider.js"

/** @since 0.1.0 @category constructors */
export const make = (terms: ProviderTermsRepository["Type"]) => {
  const of = (provider: Provider.Provider) =>
    Effect.map(terms.forbidden(provider.id), (forbidden): ReadonlyArray<Provider.WithdrawalMethod> =>
      provider.withdrawalMethods.map((m) => ({ ...m, paymentSystems: m.paymentSystems.filter((s) => !forbidden.includes(s)) })))

  /** Whether the provider pays out to cards of `paymentSystem` now. */
  const allows = (provider: Provider.Provider, paymentSystem: string) =>
    Effect.map(of(provider), (methods) => methods.some((m) => m.method === "WithdrawalMethodBankCard" && m.paymentSystems.includes(paymentSystem)))

  /** The operator forbids one of the provider's payment systems, or allows it again. */
  const set = (providerID: string, paymentSystem: string, allowed: boolean) =>
    Effect.gen(function*() {
      const provider = Provider.find(providerID)
      if (Option.isNone(provider)) return yield* NotFound.of("Provider", providerID)
      if (!provider.value.withdrawalMethods.some((m) => m.paymentSystems.includes(paymentSystem))) {
        return yield* NotFound.of("Payment system", paymentSystem)
      }
      yield* terms.setForbidden(providerID, paymentSystem, !allowed)
    })

  return { of, allows, set } as const
}

/** @since 0.1.0 @category models */
export type WithdrawalMethods = ReturnType<typeof make>

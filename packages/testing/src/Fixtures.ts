/**
 * Fixtures: onboarded parties with shops and keys, made through the domain's own services.
 *
 * @since 0.1.0
 */
import { ApiKeyService, Onboarding } from "@kassa/core"
import * as Effect from "effect/Effect"

let counter = 0

/** @since 0.1.0 @category models */
export interface Merchant {
  readonly partyID: string
  readonly shopID: string
  readonly shopIDs: ReadonlyArray<string>
  readonly contractID: string
  readonly apiKey: string
}

/**
 * A party with a contract on the test payment institution and two RUB shops of a test
 * category.
 *
 * @since 0.1.0
 */
export const merchant = (overrides: Partial<Onboarding.OnboardingParams> = {}) =>
  Effect.gen(function*() {
    const onboarding = yield* Onboarding.Onboarding
    const n = ++counter
    const result = yield* onboarding.onboard({
      email: `merchant${n}@kassa.test`,
      name: `Merchant ${n}`,
      paymentInstitutionID: 1,
      shops: [
        { name: `Shop ${n}-1`, url: `https://shop${n}.kassa.test`, categoryID: 1, currency: "RUB" },
        { name: `Shop ${n}-2`, url: `https://shop${n}-2.kassa.test`, categoryID: 1, currency: "RUB" }
      ],
      ...overrides
    })
    return result satisfies Merchant
  }).pipe(Effect.orDie)

/** An operator token. @since 0.1.0 */
export const operatorToken = Effect.flatMap(ApiKeyService.ApiKeyService, (keys) => keys.issueOperator()).pipe(
  Effect.map((k) => k.token)
)

/**
 * A payer paying with a payment resource (a card token and its session), as a payment's
 * parameters name it.
 *
 * @since 0.1.0
 */
export const resourcePayer = (resource: { readonly paymentToolToken: string; readonly paymentSession: string }) => ({
  payerType: "PaymentResourcePayer" as const,
  paymentToolToken: resource.paymentToolToken,
  paymentSession: resource.paymentSession,
  contactInfo: { email: "payer@kassa.test" }
})

/**
 * Onboarding: the platform admits a merchant. One command creates the party, its contract
 * with a payment institution, its shops and a first API key, all or nothing.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ApiKeyService } from "../auth/ApiKeyService.js"
import { Contractor } from "../contract/Contract.js"
import { Email } from "../Email.js"
import { BusinessError } from "../Errors.js"
import { ContractID, PartyID, ShopID } from "../Ids.js"
import { Currency } from "../Money.js"
import * as Traced from "../internal/traced.js"
import { ContractRepository } from "../ports/ContractRepository.js"
import { Ids } from "../ports/Ids.js"
import { PartyRepository } from "../ports/PartyRepository.js"
import { ReferenceData } from "../ports/ReferenceData.js"
import { ShopRepository } from "../ports/ShopRepository.js"
import { Transactions } from "../ports/Transactions.js"

/** @since 0.1.0 @category models */
export const ShopParams = Schema.Struct({
  id: Schema.optional(ShopID),
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)),
  categoryID: Schema.Int,
  currency: Currency
})
/** @since 0.1.0 */
export type ShopParams = typeof ShopParams.Type

/** @since 0.1.0 @category models */
export const OnboardingParams = Schema.Struct({
  partyID: Schema.optional(PartyID),
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  email: Email,
  paymentInstitutionID: Schema.optionalWith(Schema.Int, { default: () => 1 }),
  contractor: Schema.optional(Contractor),
  shops: Schema.Array(ShopParams).pipe(Schema.minItems(1), Schema.maxItems(100))
})
/** @since 0.1.0 */
export type OnboardingParams = typeof OnboardingParams.Type

/** @since 0.1.0 @category models */
export const Onboarded = Schema.Struct({
  partyID: PartyID,
  contractID: ContractID,
  shopID: ShopID,
  shopIDs: Schema.Array(ShopID),
  apiKey: Schema.String
})
/** @since 0.1.0 */
export type Onboarded = typeof Onboarded.Type

/** What builds the service: `Onboarding.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const parties = yield* PartyRepository
  const contracts = yield* ContractRepository
  const shops = yield* ShopRepository
  const reference = yield* ReferenceData
  const ids = yield* Ids
  const keys = yield* ApiKeyService
  const tx = yield* Transactions

  const onboard = Traced.fn("Onboarding.onboard")(
    function*(params: OnboardingParams) {
      const invalid = (message: string) => BusinessError.of("invalidChangeset", message)
      const pi = yield* reference.paymentInstitution(params.paymentInstitutionID)
      if (Option.isNone(pi)) return yield* invalid(`Unknown payment institution: ${params.paymentInstitutionID}`)
      for (const shop of params.shops) {
        const category = yield* reference.category(shop.categoryID)
        if (Option.isNone(category)) return yield* invalid(`Unknown category: ${shop.categoryID}`)
        if (category.value.type !== pi.value.realm) {
          return yield* invalid(`Category ${shop.categoryID} is not a ${pi.value.realm} category`)
        }
        if (!pi.value.terms.categories.includes(shop.categoryID)) {
          return yield* invalid(`Category ${shop.categoryID} is not available under the contract`)
        }
        if (!pi.value.terms.currencies.includes(shop.currency)) {
          return yield* invalid(`Currency ${shop.currency} is not available under the contract`)
        }
      }
      const shopIDs = params.shops.map((s) => s.id).filter((id) => id !== undefined)
      if (new Set(shopIDs).size !== shopIDs.length) return yield* invalid("Shop ids must be unique")

      const now = new Date(yield* Clock.currentTimeMillis)
      const partyID = params.partyID ?? PartyID.make(yield* ids.next)
      if (Option.isSome(yield* parties.findById(partyID))) return yield* invalid(`Party already exists: ${partyID}`)
      yield* parties.insert({
        id: partyID,
        name: params.name ?? params.email,
        email: params.email,
        isBlocked: false,
        isSuspended: false,
        createdAt: now,
        version: 1
      })
      const contractID = ContractID.make(yield* ids.next)
      yield* contracts.insert({
        id: contractID,
        partyID,
        createdAt: now,
        status: "active",
        validSince: now,
        contractor: params.contractor ?? { contractorType: "RegisteredUser", email: params.email },
        paymentInstitutionID: pi.value.id
      })
      const created: Array<ShopID> = []
      for (const shop of params.shops) {
        const id = shop.id ?? ShopID.make(yield* ids.next)
        yield* shops.insert({
          id,
          partyID,
          createdAt: now,
          isBlocked: false,
          isSuspended: false,
          currency: shop.currency,
          categoryID: shop.categoryID,
          location: { locationType: "ShopLocationUrl", url: shop.url },
          details: shop.description === undefined
            ? { name: shop.name }
            : { name: shop.name, description: shop.description },
          contractID,
          version: 1
        })
        created.push(id)
      }
      const key = yield* keys.issue(partyID)
      return { partyID, contractID, shopID: created[0]!, shopIDs: created, apiKey: key.token } satisfies Onboarded
    },
    (effect) => tx.withTransaction(effect)
  )

  return { onboard } as const
})

/** @since 0.1.0 @category services */
export class Onboarding extends Effect.Service<Onboarding>()("kassa/Onboarding", {
  effect: make,
  dependencies: [ApiKeyService.Default]
}) {}

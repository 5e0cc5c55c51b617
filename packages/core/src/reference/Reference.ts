/**
 * Reference data: categories, countries, trade blocs, payment institutions with their terms,
 * payout schedules and service providers. A versioned data set the platform ships.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Currency } from "../Money.js"

const CountryCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/))

/** @since 0.1.0 @category models */
export const Category = Schema.Struct({
  name: Schema.String,
  categoryID: Schema.Int,
  description: Schema.optional(Schema.String)
})
/** @since 0.1.0 */
export type Category = typeof Category.Type

/** A category as stored: test or live. @since 0.1.0 @category models */
export interface CategoryRecord extends Category {
  readonly type: "test" | "live"
}

/** @since 0.1.0 @category models */
export const Country = Schema.Struct({
  id: CountryCode,
  name: Schema.String,
  tradeBlocs: Schema.optional(Schema.Array(Schema.String))
})
/** @since 0.1.0 */
export type Country = typeof Country.Type

/** @since 0.1.0 @category models */
export const TradeBloc = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.optional(Schema.String)
})
/** @since 0.1.0 */
export type TradeBloc = typeof TradeBloc.Type

/** @since 0.1.0 @category models */
export const Realm = Schema.Literal("test", "live")
/** @since 0.1.0 */
export type Realm = typeof Realm.Type

/** @since 0.1.0 @category models */
export const PaymentInstitution = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  description: Schema.optional(Schema.String),
  residences: Schema.Array(CountryCode),
  realm: Realm
})
/** @since 0.1.0 */
export type PaymentInstitution = typeof PaymentInstitution.Type

/** The interface's payment terms. @since 0.1.0 @category models */
export const PaymentTerms = Schema.Struct({
  currencies: Schema.Array(Currency),
  categories: Schema.Array(Schema.Int)
})
/** @since 0.1.0 */
export type PaymentTerms = typeof PaymentTerms.Type

/** @since 0.1.0 @category models */
export const PayoutMethod = Schema.Literal("BankAccount", "InternationalBankAccount")
/** @since 0.1.0 */
export type PayoutMethod = typeof PayoutMethod.Type

/** A cash limit for one currency: `min` inclusive, `max` exclusive, minor units. @since 0.1.0 */
export interface CashLimit {
  readonly currency: string
  readonly min: number
  readonly max: number
}

/**
 * A payment method a payment institution's terms allow, in the interface's shape.
 *
 * @since 0.1.0 @category models
 */
export interface PaymentMethodTerms {
  readonly method: "BankCard" | "PaymentTerminal" | "DigitalWallet" | "CryptoWallet" | "MobileCommerce"
  readonly paymentSystems?: ReadonlyArray<string>
  readonly tokenProviders?: ReadonlyArray<string>
  readonly providers?: ReadonlyArray<string>
  readonly cryptoCurrencies?: ReadonlyArray<string>
  readonly operators?: ReadonlyArray<string>
}

/**
 * The platform's fees: `rateBasisPoints` of a payment (rounded half up) plus `fixed`, and a fixed
 * fee per refund, in minor units.
 *
 * @since 0.1.0 @category models
 */
export interface FeeTerms {
  readonly payment: { readonly rateBasisPoints: number; readonly fixed: number }
  readonly refund: { readonly fixed: number }
}

/** The payment fee of an amount. @since 0.1.0 */
export const paymentFee = (fees: FeeTerms, amount: number): number =>
  Math.min(
    amount,
    Number((BigInt(amount) * BigInt(fees.payment.rateBasisPoints) + 5000n) / 10000n) + fees.payment.fixed
  )

/**
 * A payment institution as stored, with the full terms the domain enforces.
 *
 * @since 0.1.0 @category models
 */
export interface PaymentInstitutionRecord extends PaymentInstitution {
  readonly terms: {
    readonly currencies: ReadonlyArray<string>
    readonly categories: ReadonlyArray<number>
    readonly cashLimits: ReadonlyArray<CashLimit>
    readonly paymentMethods: ReadonlyArray<PaymentMethodTerms>
    readonly allocationAllowed: boolean
    readonly holdLifetimeSeconds: number
    readonly fees: FeeTerms
  }
  readonly payoutMethods: ReadonlyArray<PayoutMethod>
  readonly payoutSchedules: ReadonlyArray<number>
}

/** @since 0.1.0 @category models */
export const Schedule = Schema.Struct({
  scheduleID: Schema.Int,
  name: Schema.String,
  description: Schema.optional(Schema.String)
})
/** @since 0.1.0 */
export type Schedule = typeof Schedule.Type

/** @since 0.1.0 @category models */
export const ServiceProvider = Schema.Struct({
  id: Schema.String,
  brandName: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
/** @since 0.1.0 */
export type ServiceProvider = typeof ServiceProvider.Type

const Names = Schema.Array(Schema.String)

/** A payment method as the interface answers it. @since 0.1.0 @category schemas */
export const PaymentMethod = Schema.Union(
  Schema.Struct({ method: Schema.Literal("BankCard"), paymentSystems: Names, tokenProviders: Schema.optional(Names) }),
  Schema.Struct({ method: Schema.Literal("PaymentTerminal"), providers: Names }),
  Schema.Struct({ method: Schema.Literal("DigitalWallet"), providers: Names }),
  Schema.Struct({ method: Schema.Literal("CryptoWallet"), cryptoCurrencies: Names }),
  Schema.Struct({ method: Schema.Literal("MobileCommerce"), operators: Names })
).annotations({ identifier: "PaymentMethod" })
/** @since 0.1.0 */
export type PaymentMethod = typeof PaymentMethod.Type

/** Whether terms offer bank cards of a payment system. @since 0.1.0 */
export const cardAllowed = (methods: ReadonlyArray<PaymentMethodTerms>, paymentSystem: string): boolean =>
  (methods.find((m) => m.method === "BankCard")?.paymentSystems ?? []).includes(paymentSystem)

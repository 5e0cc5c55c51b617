/**
 * Row shapes of Kassa's shipped, versioned reference data set.
 *
 * These modules are plain data: a database migration loads the arrays into
 * tables and the API serves them (categories, countries, trade blocs, payment
 * institutions and their terms, payout schedules, service providers).
 */

export interface CountryRow { readonly id: string; readonly name: string; readonly tradeBlocs: ReadonlyArray<string> }
export interface TradeBlocRow { readonly id: string; readonly name: string; readonly description?: string }
export interface CategoryRow { readonly categoryID: number; readonly name: string; readonly description?: string; readonly type: "test" | "live" }
export interface CashLimitRow { readonly currency: string; readonly min: number; readonly max: number } // minor units, inclusive min, exclusive max
export interface PaymentMethodRow { readonly method: "BankCard" | "PaymentTerminal" | "DigitalWallet" | "CryptoWallet" | "MobileCommerce"; readonly paymentSystems?: ReadonlyArray<string>; readonly tokenProviders?: ReadonlyArray<string>; readonly providers?: ReadonlyArray<string>; readonly cryptoCurrencies?: ReadonlyArray<string>; readonly operators?: ReadonlyArray<string> }
/** Fees the platform charges the merchant: a rate in basis points plus a fixed part per payment, a fixed part per refund (minor units). */
export interface FeeTermsRow { readonly payment: { readonly rateBasisPoints: number; readonly fixed: number }; readonly refund: { readonly fixed: number } }
export interface PaymentInstitutionRow {
  readonly id: number; readonly name: string; readonly description?: string
  readonly residences: ReadonlyArray<string>; readonly realm: "test" | "live"
  readonly terms: { readonly currencies: ReadonlyArray<string>; readonly categories: ReadonlyArray<number>; readonly cashLimits: ReadonlyArray<CashLimitRow>; readonly paymentMethods: ReadonlyArray<PaymentMethodRow>; readonly allocationAllowed: boolean; readonly holdLifetimeSeconds: number; readonly fees: FeeTermsRow }
  readonly payoutMethods: ReadonlyArray<"BankAccount" | "InternationalBankAccount">
  readonly payoutSchedules: ReadonlyArray<number>
}
export interface ScheduleRow { readonly scheduleID: number; readonly name: string; readonly description?: string }
export interface ServiceProviderRow { readonly id: string; readonly brandName: string; readonly category: string; readonly metadata: Readonly<Record<string, unknown>> }
export const REFERENCE_DATA_VERSION = "2026.11.1"

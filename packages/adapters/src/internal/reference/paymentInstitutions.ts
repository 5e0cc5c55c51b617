import type { PaymentInstitutionRow } from "./types.js"

/**
 * Payment institutions and their terms.
 *
 * Invariants (kept by hand):
 * - every residence is an alpha-3 id from countries.ts;
 * - every category exists in categories.ts and has the institution's realm
 *   (test institutions → categories 1..5, live institutions → 100+);
 * - every payout schedule exists in schedules.ts;
 * - every currency in `cashLimits` is one of `currencies` and vice versa;
 * - cash limits are minor units, `min` inclusive, `max` exclusive; test realm
 *   limits are min 1, max 1 000 000 000 for every currency.
 */

const SEVEN_DAYS_SECONDS = 7 * 24 * 3600

/** The platform's fees: 3.5 % of a payment (rounded half up), a fixed 100 per refund. */
const TEST_FEES = { payment: { rateBasisPoints: 350, fixed: 0 }, refund: { fixed: 100 } } as const
/** Live fees: 2.8 % of a payment, a fixed 1 000 per refund. */
const LIVE_FEES = { payment: { rateBasisPoints: 280, fixed: 0 }, refund: { fixed: 1000 } } as const

const TEST_CATEGORIES: ReadonlyArray<number> = [1, 2, 3, 4, 5]

const EU_MEMBERS: ReadonlyArray<string> = [
  "AUT", "BEL", "BGR", "HRV", "CYP", "CZE", "DEU", "DNK", "ESP", "EST", "FIN", "FRA", "GRC", "HUN",
  "IRL", "ITA", "LTU", "LUX", "LVA", "MLT", "NLD", "POL", "PRT", "ROU", "SVK", "SVN", "SWE"
]

const EAEU_MEMBERS: ReadonlyArray<string> = ["RUS", "BLR", "KAZ", "ARM", "KGZ"]

export const paymentInstitutions: ReadonlyArray<PaymentInstitutionRow> = [
  {
    id: 1,
    name: "Kassa Test",
    description: "Test payment institution for residents of Russia and other EAEU countries. No real money is moved.",
    residences: EAEU_MEMBERS,
    realm: "test",
    terms: {
      currencies: ["RUB", "USD", "EUR", "KZT", "BYN"],
      categories: TEST_CATEGORIES,
      cashLimits: [
        { currency: "RUB", min: 1, max: 1_000_000_000 },
        { currency: "USD", min: 1, max: 1_000_000_000 },
        { currency: "EUR", min: 1, max: 1_000_000_000 },
        { currency: "KZT", min: 1, max: 1_000_000_000 },
        { currency: "BYN", min: 1, max: 1_000_000_000 }
      ],
      paymentMethods: [
        {
          method: "BankCard",
          paymentSystems: [
            "visa", "mastercard", "visaelectron", "maestro", "forbrugsforeningen", "dankort", "amex",
            "dinersclub", "discover", "unionpay", "jcb", "nspkmir", "elo", "rupay"
          ],
          tokenProviders: ["applepay", "googlepay", "samsungpay"]
        },
        { method: "PaymentTerminal", providers: ["euroset"] },
        { method: "DigitalWallet", providers: ["qiwi"] }
      ],
      allocationAllowed: true,
      holdLifetimeSeconds: SEVEN_DAYS_SECONDS,
      fees: TEST_FEES
    },
    payoutMethods: ["BankAccount", "InternationalBankAccount"],
    payoutSchedules: [1, 2, 3]
  },
  {
    id: 2,
    name: "Kassa Test International",
    description:
      "Test payment institution for residents of the EU, the EFTA states, the United Kingdom, the United States and Canada. Allocation (split payments) is not allowed. No real money is moved.",
    residences: [...EU_MEMBERS, "CHE", "ISL", "LIE", "NOR", "GBR", "USA", "CAN"],
    realm: "test",
    terms: {
      currencies: ["USD", "EUR", "GBP"],
      categories: TEST_CATEGORIES,
      cashLimits: [
        { currency: "USD", min: 1, max: 1_000_000_000 },
        { currency: "EUR", min: 1, max: 1_000_000_000 },
        { currency: "GBP", min: 1, max: 1_000_000_000 }
      ],
      paymentMethods: [
        {
          method: "BankCard",
          paymentSystems: ["visa", "mastercard", "visaelectron", "maestro", "amex", "dinersclub", "discover", "jcb", "unionpay"],
          tokenProviders: ["applepay", "googlepay"]
        }
      ],
      allocationAllowed: false,
      holdLifetimeSeconds: SEVEN_DAYS_SECONDS,
      fees: TEST_FEES
    },
    payoutMethods: ["InternationalBankAccount"],
    payoutSchedules: [1, 2, 3]
  },
  {
    id: 100,
    name: "Kassa Live RU",
    description: "Live payment institution for residents of the Russian Federation; settles in Russian roubles.",
    residences: ["RUS"],
    realm: "live",
    terms: {
      currencies: ["RUB"],
      categories: [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114],
      // 1.00 RUB (inclusive) .. 600 000.00 RUB (exclusive)
      cashLimits: [{ currency: "RUB", min: 100, max: 60_000_000 }],
      paymentMethods: [
        { method: "BankCard", paymentSystems: ["nspkmir", "visa", "mastercard", "maestro", "unionpay"] },
        { method: "PaymentTerminal", providers: ["euroset"] },
        { method: "DigitalWallet", providers: ["qiwi"] }
      ],
      allocationAllowed: true,
      holdLifetimeSeconds: SEVEN_DAYS_SECONDS,
      fees: LIVE_FEES
    },
    payoutMethods: ["BankAccount"],
    payoutSchedules: [1, 2, 3, 4]
  },
  {
    id: 101,
    name: "Kassa Live EAEU",
    description:
      "Live payment institution for residents of the Eurasian Economic Union (Armenia, Belarus, Kazakhstan, Kyrgyzstan, Russia).",
    residences: EAEU_MEMBERS,
    realm: "live",
    terms: {
      currencies: ["RUB", "BYN", "KZT", "AMD", "KGS"],
      categories: [100, 101, 102, 103, 104, 106, 107, 108, 109, 110, 111, 112, 113],
      cashLimits: [
        // 1.00 RUB .. 600 000.00 RUB
        { currency: "RUB", min: 100, max: 60_000_000 },
        // 1.00 BYN .. 20 000.00 BYN
        { currency: "BYN", min: 100, max: 2_000_000 },
        // 1.00 KZT .. 3 000 000.00 KZT
        { currency: "KZT", min: 100, max: 300_000_000 },
        // 100.00 AMD .. 2 500 000.00 AMD
        { currency: "AMD", min: 10_000, max: 250_000_000 },
        // 10.00 KGS .. 500 000.00 KGS
        { currency: "KGS", min: 1_000, max: 50_000_000 }
      ],
      paymentMethods: [
        {
          method: "BankCard",
          paymentSystems: ["nspkmir", "visa", "mastercard", "visaelectron", "maestro", "unionpay"],
          tokenProviders: ["googlepay", "samsungpay"]
        },
        { method: "PaymentTerminal", providers: ["euroset"] }
      ],
      allocationAllowed: true,
      holdLifetimeSeconds: SEVEN_DAYS_SECONDS,
      fees: LIVE_FEES
    },
    payoutMethods: ["BankAccount", "InternationalBankAccount"],
    payoutSchedules: [1, 2, 3]
  }
]

/** The reference data the service tests run on: one test institution, one test category. */
import type { ReferenceSet } from "@kassa/core/memory/MemoryReferenceData"

export const HOLD_LIFETIME_SECONDS = 3 * 86_400

/** 2.5 % of a payment plus 10; a refund costs 5. */
export const FEES = { payment: { rateBasisPoints: 250, fixed: 10 }, refund: { fixed: 5 } }

export const referenceSet: ReferenceSet = {
  categories: [{ categoryID: 1, name: "Test goods", type: "test" }],
  countries: [{ id: "RUS", name: "Russia" }],
  tradeBlocs: [],
  paymentInstitutions: [{
    id: 1,
    name: "Test institution",
    residences: ["RUS"],
    realm: "test",
    terms: {
      currencies: ["RUB"],
      categories: [1],
      cashLimits: [{ currency: "RUB", min: 1, max: 100_000_000 }],
      paymentMethods: [{ method: "BankCard", paymentSystems: ["visa", "mastercard"] }],
      allocationAllowed: true,
      holdLifetimeSeconds: HOLD_LIFETIME_SECONDS,
      fees: FEES
    },
    payoutMethods: [],
    payoutSchedules: []
  }],
  schedules: [],
  serviceProviders: []
}

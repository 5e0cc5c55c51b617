import type { CategoryRow } from "./types.js"

/**
 * Shop categories. Ids 1..5 are test-realm categories (used by test payment
 * institutions), ids 100+ are live-realm categories modelled on common
 * merchant category groups.
 */
export const categories: ReadonlyArray<CategoryRow> = [
  // ── test realm ──────────────────────────────────────────────────────────
  {
    categoryID: 1,
    name: "Basic test category",
    description: "General-purpose test category for integration and sandbox shops. No real money is moved.",
    type: "test"
  },
  {
    categoryID: 2,
    name: "Test category with holds",
    description: "Test category for shops exercising two-step (hold, then capture or cancel) payment flows.",
    type: "test"
  },
  {
    categoryID: 3,
    name: "Test category with recurrent payments",
    description: "Test category for shops exercising recurrent payments and saved customer payment tools.",
    type: "test"
  },
  {
    categoryID: 4,
    name: "Test category with refunds",
    description: "Test category for shops exercising full and partial refunds.",
    type: "test"
  },
  {
    categoryID: 5,
    name: "Test category with marketplace allocation",
    description: "Test category for marketplace shops that split payments between several shops (allocation).",
    type: "test"
  },
  // ── live realm ──────────────────────────────────────────────────────────
  {
    categoryID: 100,
    name: "Retail",
    description: "Physical goods sold online: clothing, electronics, household goods, cosmetics.",
    type: "live"
  },
  {
    categoryID: 101,
    name: "Digital goods",
    description: "Software, e-books, music, video and other digitally delivered goods.",
    type: "live"
  },
  {
    categoryID: 102,
    name: "Travel",
    description: "Air and rail tickets, hotels, tours and travel agencies.",
    type: "live"
  },
  {
    categoryID: 103,
    name: "Food delivery",
    description: "Restaurant and grocery delivery, meal kits, cafes with online ordering.",
    type: "live"
  },
  {
    categoryID: 104,
    name: "Education",
    description: "Online courses, schools, universities, tutoring and training services.",
    type: "live"
  },
  {
    categoryID: 105,
    name: "Gaming",
    description: "Video games, in-game purchases and game platforms (no gambling).",
    type: "live"
  },
  {
    categoryID: 106,
    name: "Charity",
    description: "Donations to registered non-profit and charitable organisations.",
    type: "live"
  },
  {
    categoryID: 107,
    name: "Utilities",
    description: "Electricity, water, gas, heating and housing services payments.",
    type: "live"
  },
  {
    categoryID: 108,
    name: "Financial services",
    description: "Loan repayments, insurance premiums and other regulated financial services.",
    type: "live"
  },
  {
    categoryID: 109,
    name: "Marketplace",
    description: "Multi-vendor platforms that accept payments on behalf of several sellers.",
    type: "live"
  },
  {
    categoryID: 110,
    name: "Subscriptions and SaaS",
    description: "Recurring subscriptions: software as a service, streaming, memberships.",
    type: "live"
  },
  {
    categoryID: 111,
    name: "Entertainment and events",
    description: "Cinema, concert, theatre and sports event tickets.",
    type: "live"
  },
  {
    categoryID: 112,
    name: "Telecommunications",
    description: "Mobile, internet and TV service top-ups and bills.",
    type: "live"
  },
  {
    categoryID: 113,
    name: "Transport",
    description: "Taxi, car sharing, public transport, parking and fuel.",
    type: "live"
  },
  {
    categoryID: 114,
    name: "Healthcare",
    description: "Clinics, pharmacies, telemedicine and laboratory services.",
    type: "live"
  }
]

import * as Effect from "effect/Effect"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Reference from "../reference/index.js"

/**
 * @internal
 * The reference data set, version `REFERENCE_DATA_VERSION`. A later data version comes as a
 * new migration that upserts its differences.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE ref_categories (category_id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT, type TEXT NOT NULL)`,
    `CREATE TABLE ref_trade_blocs (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT)`,
    `CREATE TABLE ref_countries (id TEXT PRIMARY KEY, name TEXT NOT NULL, trade_blocs TEXT NOT NULL)`,
    `CREATE TABLE ref_payment_institutions (
      id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT, residences TEXT NOT NULL, realm TEXT NOT NULL,
      terms TEXT NOT NULL, payout_methods TEXT NOT NULL, payout_schedules TEXT NOT NULL)`,
    `CREATE TABLE ref_schedules (schedule_id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT)`,
    `CREATE TABLE ref_service_providers (id TEXT PRIMARY KEY, brand_name TEXT NOT NULL, category TEXT NOT NULL, metadata TEXT NOT NULL)`,
    `CREATE TABLE ref_versions (version TEXT PRIMARY KEY)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)

  const insertAll = <A extends Record<string, unknown>>(table: string, rows: ReadonlyArray<A>) =>
    rows.length === 0 ? Effect.void : sql`INSERT INTO ${sql(table)} ${sql.insert(rows)}`

  yield* insertAll("ref_categories", Reference.categories.map((c) => ({
    categoryId: c.categoryID, name: c.name, description: c.description ?? null, type: c.type
  })))
  yield* insertAll("ref_trade_blocs", Reference.tradeBlocs.map((b) => ({
    id: b.id, name: b.name, description: b.description ?? null
  })))
  yield* insertAll("ref_countries", Reference.countries.map((c) => ({
    id: c.id, name: c.name, tradeBlocs: JSON.stringify(c.tradeBlocs)
  })))
  yield* insertAll("ref_payment_institutions", Reference.paymentInstitutions.map((p) => ({
    id: p.id,
    name: p.name,
    description: p.description ?? null,
    residences: JSON.stringify(p.residences),
    realm: p.realm,
    terms: JSON.stringify(p.terms),
    payoutMethods: JSON.stringify(p.payoutMethods),
    payoutSchedules: JSON.stringify(p.payoutSchedules)
  })))
  yield* insertAll("ref_schedules", Reference.schedules.map((s) => ({
    scheduleId: s.scheduleID, name: s.name, description: s.description ?? null
  })))
  yield* insertAll("ref_service_providers", Reference.serviceProviders.map((p) => ({
    id: p.id, brandName: p.brandName, category: p.category, metadata: JSON.stringify(p.metadata)
  })))
  yield* sql`INSERT INTO ref_versions ${sql.insert({ version: Reference.REFERENCE_DATA_VERSION })}`
})

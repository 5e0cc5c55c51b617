/**
 * The numbered migrations of both dialects, statically imported so they survive bundling.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import kernel from "./internal/migrations/0001_kernel.js"
import referenceData from "./internal/migrations/0002_reference_data.js"
import invoices from "./internal/migrations/0003_invoices.js"
import invoiceTemplates from "./internal/migrations/0004_invoice_templates.js"
import cardVault from "./internal/migrations/0005_card_vault.js"
import ledger from "./internal/migrations/0006_ledger.js"
import payments from "./internal/migrations/0007_payments.js"
import webhooks from "./internal/migrations/0008_webhooks.js"
import refunds from "./internal/migrations/0009_refunds_chargebacks.js"
import search from "./internal/migrations/0010_search.js"
import customers from "./internal/migrations/0011_customers.js"
import searchPayers from "./internal/migrations/0012_search_payers.js"
import searchTriggerConditions from "./internal/migrations/0013_search_trigger_conditions.js"
import eventHeads from "./internal/migrations/0014_event_heads.js"
import outboxPruned from "./internal/migrations/0015_outbox_pruned.js"
import searchPayersDeferred from "./internal/migrations/0016_search_payers_deferred.js"
import idempotencyNamespaces from "./internal/migrations/0017_idempotency_namespaces.js"
import partyWebhookKeys from "./internal/migrations/0018_party_webhook_keys.js"
import requestReplays from "./internal/migrations/0019_request_replays.js"
import outboxDispatchedAtDropped from "./internal/migrations/0020_outbox_dispatched_at_dropped.js"
import wallets from "./internal/migrations/0021_wallets.js"
import bankCardTokens from "./internal/migrations/0022_bank_card_tokens.js"
import walletGrants from "./internal/migrations/0023_wallet_grants.js"
import withdrawals from "./internal/migrations/0024_withdrawals.js"
import walletWebhooks from "./internal/migrations/0025_wallet_webhooks.js"
import reports from "./internal/migrations/0026_reports.js"
import providerTerms from "./internal/migrations/0027_provider_terms.js"
import withdrawalWalletParty from "./internal/migrations/0028_withdrawal_wallet_party.js"
import withdrawalsByWalletParty from "./internal/migrations/0029_withdrawals_by_wallet_party.js"
import sqliteEventOutbox from "./internal/migrations/0030_sqlite_event_outbox.js"
import redundantIndexesDropped from "./internal/migrations/0031_redundant_indexes_dropped.js"
import sqliteSearchDeltasSequenceDropped from "./internal/migrations/0032_sqlite_search_deltas_sequence_dropped.js"
import { IntColumn, reader } from "./internal/rows.js"

const all = {
  "0001_kernel": kernel,
  "0002_reference_data": referenceData,
  "0003_invoices": invoices,
  "0004_invoice_templates": invoiceTemplates,
  "0005_card_vault": cardVault,
  "0006_ledger": ledger,
  "0007_payments": payments,
  "0008_webhooks": webhooks,
  "0009_refunds_chargebacks": refunds,
  "0010_search": search,
  "0011_customers": customers,
  "0012_search_payers": searchPayers,
  "0013_search_trigger_conditions": searchTriggerConditions,
  "0014_event_heads": eventHeads,
  "0015_outbox_pruned": outboxPruned,
  "0016_search_payers_deferred": searchPayersDeferred,
  "0017_idempotency_namespaces": idempotencyNamespaces,
  "0018_party_webhook_keys": partyWebhookKeys,
  "0019_request_replays": requestReplays,
  "0020_outbox_dispatched_at_dropped": outboxDispatchedAtDropped,
  "0021_wallets": wallets,
  "0022_bank_card_tokens": bankCardTokens,
  "0023_wallet_grants": walletGrants,
  "0024_withdrawals": withdrawals,
  "0025_wallet_webhooks": walletWebhooks,
  "0026_reports": reports,
  "0027_provider_terms": providerTerms,
  "0028_withdrawal_wallet_party": withdrawalWalletParty,
  "0029_withdrawals_by_wallet_party": withdrawalsByWalletParty,
  "0030_sqlite_event_outbox": sqliteEventOutbox,
  "0031_redundant_indexes_dropped": redundantIndexesDropped,
  "0032_sqlite_search_deltas_sequence_dropped": sqliteSearchDeltasSequenceDropped
}

const migrations = Migrator.fromRecord(all)

/** The number of the newest migration. @since 0.1.0 */
export const latest = Math.max(...Object.keys(all).map((id) => Number.parseInt(id, 10)))

const latestApplied = reader(Schema.Struct({ latest: Schema.NullOr(IntColumn) }), (r) => r.latest ?? 0)

/**
 * The number of the newest migration the store has run (0 before any).
 *
 * @since 0.1.0 @category effects
 */
export const applied = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`SELECT MAX(migration_id) AS latest FROM kassa_migrations`.pipe(
    Effect.map((rows) => rows.length === 0 ? 0 : latestApplied.one(rows[0]))
  ))

/**
 * Runs the pending migrations. Fails (and the server does not start) when one fails.
 *
 * @since 0.1.0 @category effects
 */
export const run = Migrator.make({})({ loader: migrations, table: "kassa_migrations" })

/**
 * Runs the pending migrations numbered up to `last`: a store as an earlier version left it (to
 * test what a later migration does to existing data).
 *
 * @since 0.1.0 @category effects
 */
export const runUpTo = (last: number) =>
  Migrator.make({})({
    loader: Effect.map(migrations, (all) => all.filter(([id]) => id <= last)),
    table: "kassa_migrations"
  })

/** What the start's migrations did: the ones applied now, and how many the store has in all. @since 0.1.0 @category models */
export interface Report {
  readonly applied: ReadonlyArray<string>
  readonly total: number
}

/** @since 0.1.0 @category tags */
export class Applied extends Context.Tag("kassa/Migrations/Applied")<Applied, Report>() {}

/**
 * Whether the store has run exactly these migrations, by number and name, in one read outside a
 * transaction. A store without the migrations' table, with another list, or that does not answer
 * is not: the migrator then checks it as always, in its transaction (on PostgreSQL, under its lock).
 */
const current = (all: ReadonlyArray<readonly [number, string, unknown]>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly migration_id: unknown; readonly name: unknown }>`SELECT migration_id, name FROM kassa_migrations ORDER BY migration_id`
      .withoutTransform
  ).pipe(
    Effect.map((rows) =>
      rows.length === all.length && rows.every((row, i) => Number(row.migration_id) === all[i]![0] && row.name === all[i]![1])
    ),
    Effect.orElseSucceed(() => false)
  )

/**
 * Runs the pending migrations and tells which it applied. A store that has run every migration
 * of this version (a restart) is told so by one read; any other goes through the migrator.
 *
 * @since 0.1.0 @category layers
 */
export const layer = Layer.effect(
  Applied,
  Effect.gen(function*() {
    const all = yield* migrations
    const applied = (yield* current(all)) ? [] : yield* run
    return { applied: applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`), total: all.length }
  }).pipe(Effect.orDie)
)

/**
 * @internal What the wallet side's repositories share: the page and list filters as SQL, and the
 * columns of what an identity owns (its wallets and destinations).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { PageRequest } from "@kassa/core/Page"
import type { DepositFilter } from "@kassa/core/deposit/Deposit"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, IntColumn, JsonColumn, opt, OptionalText, StoredMetadata } from "./rows.js"

/** The stored fields a wallet and a destination share. */
export const ownedRow = {
  id: Schema.String,
  partyId: Schema.String,
  identityId: Schema.String,
  name: Schema.String,
  currency: Schema.String,
  isBlocked: BoolColumn,
  metadata: Schema.optionalWith(JsonColumn(StoredMetadata), { nullable: true, exact: true }),
  externalId: OptionalText,
  createdAt: DateColumn,
  version: IntColumn
}

/** Those columns, to select. */
export const ownedColumns = "id, party_id, identity_id, name, currency, is_blocked, metadata, external_id, created_at, version"

/** Those fields as the record names them. */
export const owned = (r: Schema.Struct.Type<typeof ownedRow>) => ({
  id: r.id,
  partyID: r.partyId,
  identityID: r.identityId,
  name: r.name,
  currency: r.currency,
  isBlocked: r.isBlocked,
  ...opt("metadata", r.metadata),
  ...opt("externalID", r.externalId),
  createdAt: r.createdAt,
  version: r.version
})

/** The party's wallets or destinations, of an identity and a currency when asked. */
export const ownedWhere = (
  sql: SqlClient.SqlClient,
  filter: { readonly partyID: string; readonly identityID?: string | undefined; readonly currencyID?: string | undefined }
) => [
  sql`party_id = ${filter.partyID}`,
  ...(filter.identityID === undefined ? [] : [sql`identity_id = ${filter.identityID}`]),
  ...(filter.currencyID === undefined ? [] : [sql`currency = ${filter.currencyID}`])
]

/** `created_at, id` after the page's cursor, if any. */
export const after = (sql: SqlClient.SqlClient, page: PageRequest) =>
  page.after === undefined
    ? []
    : [sql`(created_at > ${page.after.createdAt.getTime()} OR (created_at = ${page.after.createdAt.getTime()} AND id > ${page.after.id}))`]

/** Every filter of the deposit lists (`id` names the deposit in `deposits`, `deposit_id` elsewhere). */
export const depositWhere = (sql: SqlClient.SqlClient, filter: DepositFilter, depositColumn: "id" | "deposit_id") => [
  sql`party_id = ${filter.partyID}`,
  ...(filter.walletID === undefined ? [] : [sql`wallet_id = ${filter.walletID}`]),
  ...(filter.identityID === undefined ? [] : [sql`identity_id = ${filter.identityID}`]),
  ...(filter.depositID === undefined ? [] : [sql`${sql(depositColumn)} = ${filter.depositID}`]),
  ...(filter.sourceID === undefined ? [] : [sql`source_id = ${filter.sourceID}`]),
  ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
  ...(filter.createdAtFrom === undefined ? [] : [sql`created_at >= ${filter.createdAtFrom.getTime()}`]),
  ...(filter.createdAtTo === undefined ? [] : [sql`created_at <= ${filter.createdAtTo.getTime()}`]),
  ...(filter.amountFrom === undefined ? [] : [sql`amount >= ${filter.amountFrom}`]),
  ...(filter.amountTo === undefined ? [] : [sql`amount <= ${filter.amountTo}`]),
  ...(filter.currencyID === undefined ? [] : [sql`currency = ${filter.currencyID}`]),
  ...(filter.revertStatus === undefined
    ? []
    : [filter.revertStatus === "None" ? sql`reverted = 0` : filter.revertStatus === "Full" ? sql`reverted >= amount` : sql`reverted > 0 AND reverted < amount`])
]

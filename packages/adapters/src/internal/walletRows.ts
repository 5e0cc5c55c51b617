/** @internal What the wallet side's repositories share: the page and list filters as SQL. */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { PageRequest } from "@kassa/core/Page"
import type { DepositFilter } from "@kassa/core/deposit/Deposit"

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

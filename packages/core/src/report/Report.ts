/**
 * A report of an identity's withdrawals over a time range: made `pending`, built by a durable
 * timer into its files, then `created`. The one type, `withdrawalRegistry`, is a CSV of the
 * withdrawals created in the range (`fromTime` ≤ createdAt ≤ `toTime`), in creation order.
 *
 * @since 0.1.0
 */
import type { WithdrawalRecord } from "../withdrawal/Withdrawal.js"

/** @since 0.1.0 @category models */
export type ReportType = "withdrawalRegistry"

/** @since 0.1.0 @category models */
export type ReportStatus = "pending" | "created" | "canceled"

/** A built file of a report; its bytes are read by `ReportRepository.findFile`. @since 0.1.0 @category models */
export interface ReportFile {
  readonly id: string
  readonly content: string
}

/** @since 0.1.0 @category models */
export interface ReportRecord {
  /** Given by the storage, in creation order. */
  readonly id: number
  readonly partyID: string
  readonly identityID: string
  readonly type: ReportType
  readonly fromTime: Date
  readonly toTime: Date
  readonly status: ReportStatus
  /** The ids of its files (none while pending). */
  readonly files: ReadonlyArray<string>
  readonly createdAt: Date
}

/** A stored file with its report's owner. @since 0.1.0 @category models */
export interface StoredReportFile extends ReportFile {
  readonly reportID: number
  readonly partyID: string
}

/** `getReports`' filter: the party's reports of the identity whose range lies within [fromTime, toTime]. @since 0.1.0 */
export interface ReportFilter {
  readonly partyID: string
  readonly identityID: string
  readonly fromTime: Date
  readonly toTime: Date
  readonly type?: ReportType | undefined
}

/** Whether a report passes `filter` (the memory adapter's reading). @since 0.1.0 */
export const matches = (r: ReportRecord, f: ReportFilter): boolean =>
  r.partyID === f.partyID && r.identityID === f.identityID && r.fromTime.getTime() >= f.fromTime.getTime() &&
  r.toTime.getTime() <= f.toTime.getTime() && (f.type === undefined || r.type === f.type)

/** The report as the wire shows it. @since 0.1.0 */
export const toReport = (r: ReportRecord) => ({
  id: r.id,
  createdAt: r.createdAt,
  fromTime: r.fromTime,
  toTime: r.toTime,
  status: r.status,
  type: r.type,
  files: r.files.map((id) => ({ id }))
})

/** The registry's columns, in order. @since 0.1.0 */
export const REGISTRY_COLUMNS = ["id", "createdAt", "wallet", "destination", "amount", "fee", "currency", "status"] as const

const field = (value: string) => /[",\r\n]/.test(value) ? `"${value.replaceAll("\"", "\"\"")}"` : value

/** The `withdrawalRegistry` CSV (RFC 4180, CRLF, a header row; amounts in minor units). @since 0.1.0 */
export const registryCsv = (withdrawals: ReadonlyArray<WithdrawalRecord>): string =>
  [
    REGISTRY_COLUMNS.join(","),
    ...withdrawals.map((w) =>
      [w.id, w.createdAt.toISOString(), w.walletID, w.destinationID, String(w.amount), String(w.fee), w.currency, w.status].map(field)
        .join(",")
    )
  ].join("\r\n") + "\r\n"

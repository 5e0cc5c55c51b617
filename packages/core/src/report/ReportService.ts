/**
 * Wallet reports: made `pending` for one of the party's identities and a time range, built by
 * the durable timer `REPORT_TIMER` (the identity's withdrawals in the range as CSV), then
 * `created` with their files. A file is downloaded through a signed link that lives
 * `LINK_TTL_MS` (`{publicUrl}/downloads/{token}`): `link` signs it for the file's owner, `open` reads the file behind a link
 * (refused once expired or forged, with no API key needed).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidParameter, NotFound, Unauthorized } from "../Errors.js"
import * as NamedIdentity from "../identity/NamedIdentity.js"
import * as Traced from "../internal/traced.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { Ids } from "../ports/Ids.js"
import { Jwt } from "../ports/Jwt.js"
import { ReportRepository } from "../ports/ReportRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { WithdrawalRepository } from "../ports/WithdrawalRepository.js"
import { KassaSettings } from "../Settings.js"
import type { WithdrawalRecord } from "../withdrawal/Withdrawal.js"
import { registryCsv, type ReportRecord, type ReportType, type StoredReportFile } from "./Report.js"

/** @since 0.1.0 */
export const REPORT_TIMER = "report.build"
/** How long a download link works. @since 0.1.0 */
export const LINK_TTL_MS = 60_000

const PAGE = 500

/** @since 0.1.0 @category models */
export interface ReportParams {
  readonly reportType: ReportType
  readonly fromTime: Date
  readonly toTime: Date
}

/** What builds the service: `ReportService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const reports = yield* ReportRepository
  const withdrawals = yield* WithdrawalRepository
  const identities = yield* IdentityRepository
  const timers = yield* Timers
  const ids = yield* Ids
  const jwt = yield* Jwt
  const tx = yield* Transactions
  const settings = yield* KassaSettings

  const range = (fromTime: Date, toTime: Date) =>
    fromTime.getTime() < toTime.getTime()
      ? Effect.void
      : Effect.fail(InvalidParameter.of("NotInRange", "toTime", "toTime must be later than fromTime"))

  const named = NamedIdentity.make(identities)

  const inRange = (r: ReportRecord) =>
    Effect.gen(function*() {
      const all: Array<WithdrawalRecord> = []
      for (;;) {
        const after = all.length === 0 ? undefined : all[all.length - 1]
        const page = yield* withdrawals.list(
          { partyID: r.partyID, identityID: r.identityID, createdAtFrom: r.fromTime, createdAtTo: r.toTime },
          { limit: PAGE, after }
        )
        all.push(...page.slice(0, PAGE))
        if (page.length <= PAGE) return all
      }
    })

  yield* timers.register(REPORT_TIMER, (timer) =>
    Effect.gen(function*() {
      const found = yield* reports.findById(Number(timer.subject))
      if (Option.isNone(found) || found.value.status !== "pending") return
      const content = registryCsv(yield* inRange(found.value))
      yield* reports.complete(found.value.id, [{ id: yield* ids.next, content }])
    }))

  const create = Traced.fn("ReportService.create")(function*(partyID: string, identityID: string, params: ReportParams) {
    yield* range(params.fromTime, params.toTime)
    yield* named.usable(partyID, identityID)
    const now = new Date(yield* Clock.currentTimeMillis)
    return yield* tx.withTransaction(Effect.gen(function*() {
      const report = yield* reports.create({
        partyID,
        identityID,
        type: params.reportType,
        fromTime: params.fromTime,
        toTime: params.toTime,
        status: "pending",
        files: [],
        createdAt: now
      })
      yield* timers.schedule({ kind: REPORT_TIMER, subject: String(report.id), dueAt: now, payload: null })
      return report
    }))
  })

  const get = Traced.fn("ReportService.get")(function*(partyID: string, identityID: string, id: number) {
    const found = Option.filter(yield* reports.findById(id), (r) => r.partyID === partyID && r.identityID === identityID)
    if (Option.isNone(found)) return yield* NotFound.of("Report", String(id))
    return found.value
  })

  const list = Traced.fn("ReportService.list")(function*(
    partyID: string,
    identityID: string,
    filter: { readonly fromTime: Date; readonly toTime: Date; readonly type?: ReportType | undefined }
  ) {
    yield* range(filter.fromTime, filter.toTime)
    yield* named.owned(partyID, identityID)
    return yield* reports.list({ ...filter, partyID, identityID })
  })

  const file = (partyID: string, fileID: string) =>
    Effect.flatMap(reports.findFile(fileID), (o): Effect.Effect<StoredReportFile, NotFound> =>
      Option.isSome(o) && o.value.partyID === partyID ? Effect.succeed(o.value) : Effect.fail(NotFound.of("File", fileID)))

  /** A signed link to the party's file (served at `/downloads/:token`), and when it expires. */
  const link = Traced.fn("ReportService.link")(function*(partyID: string, fileID: string) {
    yield* file(partyID, fileID)
    const expiresAt = new Date((yield* Clock.currentTimeMillis) + LINK_TTL_MS)
    const token = yield* jwt.issue({ kind: "file-download", sub: partyID, jti: yield* ids.next, fileID }, expiresAt)
    return { url: `${settings.publicUrl}/downloads/${token}`, token, expiresAt }
  })

  /** The file behind a link's token: Unauthorized if the token is expired, forged or not a link. */
  const open = Traced.fn("ReportService.open")(function*(token: string) {
    const claims = yield* jwt.verify(token)
    if (claims.kind !== "file-download") return yield* new Unauthorized({ message: "Not a download link" })
    return yield* file(claims.sub, claims.fileID)
  })

  return { create, get, list, link, open } as const
})

/** @since 0.1.0 @category services */
export class ReportService extends Effect.Service<ReportService>()("kassa/ReportService", {
  effect: make
}) {}

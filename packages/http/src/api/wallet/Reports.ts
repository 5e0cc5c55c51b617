/**
 * Reports of an identity's withdrawals, and the download of their files.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { InvalidOperationParameters, NotFound } from "./Errors.js"
import { Id, Int64, PartyIdQuery } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const ReportType = Schema.Literal("withdrawalRegistry")

/** `createReport`'s body. @since 0.1.0 @category schemas */
export const ReportParams = Schema.Struct({ reportType: ReportType, fromTime: Time.DateTime, toTime: Time.DateTime })

/** @since 0.1.0 @category schemas */
export const Report = Schema.Struct({
  id: Schema.Int,
  createdAt: Time.DateTime,
  fromTime: Time.DateTime,
  toTime: Time.DateTime,
  status: Schema.Literal("pending", "created", "canceled"),
  type: ReportType,
  files: Schema.Array(Schema.Struct({ id: Schema.String }))
}).annotations({ identifier: "Report" })

/** A file's short-lived link. @since 0.1.0 @category schemas */
export const FileDownload = Schema.Struct({ url: Schema.String, expiresAt: Time.DateTime }).annotations({
  identifier: "FileDownload"
})

const IdentityPath = Schema.Struct({ identityID: Id })

/** @since 0.1.0 @category groups */
export class ReportsGroup extends HttpApiGroup.make("WalletReports")
  .add(
    HttpApiEndpoint.post("createReport", "/identities/:identityID/reports")
      .setPath(IdentityPath)
      .setUrlParams(Schema.Struct({ partyID: PartyIdQuery }))
      .setPayload(ReportParams)
      .addSuccess(Report, { status: 201 })
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getReports", "/identities/:identityID/reports")
      .setPath(IdentityPath)
      .setUrlParams(Schema.Struct({
        partyID: PartyIdQuery,
        fromTime: Time.DateTime,
        toTime: Time.DateTime,
        type: Schema.optional(ReportType)
      }))
      .addSuccess(Schema.Array(Report))
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getReport", "/identities/:identityID/reports/:reportID")
      .setPath(Schema.Struct({ identityID: Id, reportID: Int64 }))
      .setUrlParams(Schema.Struct({ partyID: PartyIdQuery }))
      .addSuccess(Report)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Reports")
{}

/** @since 0.1.0 @category groups */
export class DownloadsGroup extends HttpApiGroup.make("Downloads")
  .add(
    HttpApiEndpoint.post("downloadFile", "/files/:fileID/download")
      .setPath(Schema.Struct({ fileID: Id }))
      .addSuccess(FileDownload, { status: 201 })
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Downloads")
{}

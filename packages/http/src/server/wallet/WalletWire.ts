/**
 * The wallet and card-token interfaces' wire rules, written once for both (the API-level
 * middleware, `WireContract`, hands their requests' failures here):
 *
 * - a schema violation → 400 `BadRequest {errorType, name, description}`: `SchemaViolated` naming
 *   the body parameter for the body, else the parameter's own kind (`NotFound` when missing,
 *   `WrongLength`, `NoMatch`, `NotInRange`, `WrongSize`, `WrongType`); the value sent is never
 *   repeated (card data);
 * - core's errors through one table: `InvalidParameter` 400, `Unauthorized` 401 and `NotFound`
 *   404 without a body, `ExternalIdConflict` 409 `{externalID, id, message}`, `Conflict` 409
 *   `{id, message}`, `InvalidOperation`, `InvalidBankCard` (and any other business refusal) 422
 *   `{message}`.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Errors } from "@kassa/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"
import { PayresApi, WalletApi } from "../../api/wallet/WalletApi.js"

const JSON_TYPE = "application/json; charset=utf-8"

const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status, contentType: JSON_TYPE })

/** Whether a path is the wallet's or the card-token interface's. @since 0.1.0 */
export const isWalletPath = (path: string): boolean => path.startsWith("/wallet/v0/") || path.startsWith("/payres/v0/")

/** 400 `BadRequest`. @since 0.1.0 */
export const badRequest = (errorType: Errors.ParameterErrorType, name: string, description: string) =>
  json(400, { errorType, name, description })

/** A body the edge refused before decoding (malformed JSON, too large, too deep). @since 0.1.0 */
export const invalidBody = (description: string) => badRequest("SchemaViolated", "body", description)

type Tagged = { readonly _tag: string } & Record<string, unknown>

const isTagged = (u: unknown): u is Tagged =>
  typeof u === "object" && u !== null && typeof (u as { _tag?: unknown })._tag === "string"

/**
 * The answer to one of core's errors, or `undefined` for anything else (a defect).
 *
 * @since 0.1.0
 */
export const answer = (error: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  if (!isTagged(error)) return undefined
  switch (error._tag) {
    case "InvalidParameter":
      return json(400, { errorType: error.errorType, name: error.name, description: error.description })
    case "Unauthorized":
      return HttpServerResponse.empty({ status: 401 })
    case "NotFound":
      return HttpServerResponse.empty({ status: 404 })
    case "ExternalIdConflict":
      return json(409, { externalID: error.externalID, id: error.id, message: error.message })
    case "Conflict":
      return json(409, { id: error.id, message: error.message })
    case "BusinessError":
      return error.code === "invalidRequest" || error.code === "invalidDeadline"
        ? badRequest("SchemaViolated", "body", String(error.message))
        : json(422, { message: error.message })
    case "InvalidOperation":
    case "InvalidBankCard":
    case "LimitExceeded":
      return json(422, { message: error.message })
    default:
      return undefined
  }
}

/** The spec's name of each operation's body parameter. */
const bodyNames: Record<string, string> = {
  createDestination: "destination",
  createIdentity: "identity",
  createQuote: "withdrawalQuoteParams",
  createReport: "ReportParams",
  createW2WTransfer: "transferParams",
  createWallet: "wallet",
  createWebhook: "webhookParams",
  createWithdrawal: "withdrawal",
  issueDestinationGrant: "request",
  issueWalletGrant: "request",
  startIdentityChallenge: "challenge",
  storeBankCard: "bankCard"
}

const fieldNames = (schema: Option.Option<{ readonly ast: AST.AST }>): Array<string> =>
  Option.match(schema, {
    onNone: () => [],
    onSome: (s) => AST.getPropertySignatures(s.ast).map((p) => String(p.name))
  })

/** Each operation's path and query parameter names: an issue naming none of them is the body's. */
const parameters: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const names = new Map<string, ReadonlySet<string>>()
  for (const api of [WalletApi, PayresApi] as ReadonlyArray<HttpApi.HttpApi.Any>) {
    HttpApi.reflect(api as any, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        names.set(endpoint.name, new Set([...fieldNames(endpoint.pathSchema), ...fieldNames(endpoint.urlParamsSchema)]))
      }
    })
  }
  return names
})()

/** What an issue's message says went wrong, as the interface names it. */
const kindOf = (tag: string, message: string): Errors.ParameterErrorType =>
  tag === "Missing" || message === "is missing"
    ? "NotFound"
    : /character\(s\)/.test(message)
    ? "WrongLength"
    : /item\(s\)/.test(message)
    ? "WrongSize"
    : /matching the pattern|Expected "/.test(message)
    ? "NoMatch"
    : /between|greater than|less than/.test(message)
    ? "NotInRange"
    : "WrongType"

/** An issue's message without what it says after "actual": the value sent. */
const expectation = (message: string): string => {
  const actual = message.indexOf(", actual ")
  return actual === -1 ? message : message.slice(0, actual)
}

/**
 * 400 `BadRequest` for a decode failure of `operation`'s request: the first issue decides.
 *
 * @since 0.1.0
 */
export const decodeFailure = (operation: string, error: HttpApiError.HttpApiDecodeError) => {
  const issue = error.issues[0]
  if (issue === undefined) return badRequest("SchemaViolated", bodyNames[operation] ?? "body", "Invalid request")
  const head = issue.path[0]
  const path = issue.path.map(String).join(".")
  const described = expectation(issue.message)
  if (head !== undefined && parameters.get(operation)?.has(String(head)) === true) {
    return badRequest(kindOf(issue._tag, issue.message), String(head), described)
  }
  return badRequest(
    "SchemaViolated",
    bodyNames[operation] ?? "body",
    path.length > 0 ? `${path}: ${described}` : described
  )
}

/**
 * The wallet interfaces' answer to what went wrong, or the cause as it is (the general rules
 * answer it: unknown routes, defects).
 *
 * @since 0.1.0
 */
export const recover = (operation: string) => (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) {
    const defect = Cause.dieOption(cause)
    return Option.isSome(defect) && HttpServerError.isServerError(defect.value) &&
        defect.value._tag === "RequestError" && defect.value.reason === "Decode"
      ? Effect.succeed(invalidBody("Malformed JSON body"))
      : Effect.failCause(cause)
  }
  const f = failure.value
  if (f instanceof HttpApiError.HttpApiDecodeError) return Effect.succeed(decodeFailure(operation, f))
  const answered = answer(f)
  return answered === undefined ? Effect.failCause(cause) : Effect.succeed(answered)
}

/**
 * Shapes the generated OpenAPI document into the contract's: operation ids are the
 * specification's (no group prefix), every interface operation documents its `X-Request-ID`
 * and `X-Request-Deadline` headers, and the framework's decode error, which the server never
 * sends (it answers `invalidRequest`), is not listed.
 *
 * @since 0.1.0
 */
import type * as OpenApi from "@effect/platform/OpenApi"

const envelope = [
  {
    name: "X-Request-ID",
    in: "header",
    required: true,
    schema: { type: "string", minLength: 1, maxLength: 32 },
    description: "Unique request id"
  },
  {
    name: "X-Request-Deadline",
    in: "header",
    required: false,
    schema: { type: "string", minLength: 1, maxLength: 40 },
    description: "Processing deadline: RFC 3339 date-time or a relative value (150000ms, 540s, 3.5m)"
  }
]

/**
 * The wallet interfaces answer 400 as `BadRequest` and 404 without a body: the payments
 * interface's bodies, declared for the whole API, are not theirs.
 */
const walletResponses = (responses: Record<string, any>) => {
  const badRequest = responses["400"]?.content?.["application/json"]
  if (badRequest !== undefined) badRequest.schema = { $ref: "#/components/schemas/BadRequest" }
  if (responses["404"] !== undefined) responses["404"] = { description: "Not found" }
}

/** @since 0.1.0 */
export const contractOpenApi = (spec: Record<string, any>): Record<string, any> => {
  for (const [path, item] of Object.entries<Record<string, any>>(spec.paths ?? {})) {
    for (const op of Object.values<any>(item)) {
      if (typeof op !== "object" || op === null || typeof op.operationId !== "string") continue
      op.operationId = op.operationId.slice(op.operationId.indexOf(".") + 1)
      if (path.startsWith("/v2/") || path.startsWith("/wallet/v0/")) op.parameters = [...envelope, ...(op.parameters ?? [])]
      if (path.startsWith("/payres/v0/")) op.parameters = [envelope[0], ...(op.parameters ?? [])]
      if (path.startsWith("/wallet/v0/") || path.startsWith("/payres/v0/")) walletResponses(op.responses ?? {})
      for (const response of Object.values<any>(op.responses ?? {})) {
        const schema = response?.content?.["application/json"]?.schema
        if (schema?.anyOf) {
          schema.anyOf = schema.anyOf.filter((s: any) => s.$ref !== "#/components/schemas/HttpApiDecodeError")
          if (schema.anyOf.length === 1) response.content["application/json"].schema = schema.anyOf[0]
        }
      }
    }
  }
  const schemas = spec.components?.schemas
  if (schemas) for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete schemas[name]
  return spec
}

/** @since 0.1.0 */
export type Transform = typeof contractOpenApi & ((spec: OpenApi.OpenAPISpec) => OpenApi.OpenAPISpec)

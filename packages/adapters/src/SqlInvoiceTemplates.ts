/**
 * `InvoiceTemplateRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { InvoiceTemplateRecord } from "@kassa/core/invoice-template/InvoiceTemplate"
import { InvoiceTemplateRepository } from "@kassa/core/ports/InvoiceTemplateRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { date, int, json, optString, toJson } from "./internal/rows.js"

const dataOf = (t: InvoiceTemplateRecord) => ({
  name: t.name,
  description: t.description,
  lifetime: t.lifetime,
  details: t.details,
  metadata: t.metadata,
  randomizeAmount: t.randomizeAmount
})

const fromRow = (r: any): InvoiceTemplateRecord => {
  const d = json<ReturnType<typeof dataOf>>(r.data)
  return {
    id: r.id,
    partyID: r.partyId,
    shopID: r.shopId,
    externalID: optString(r.externalId),
    name: d.name,
    description: d.description,
    createdAt: date(r.createdAt),
    lifetime: d.lifetime,
    details: d.details,
    metadata: d.metadata,
    randomizeAmount: d.randomizeAmount,
    version: int(r.version)
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  InvoiceTemplateRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      findById: (partyID, id) =>
        sql`SELECT * FROM invoice_templates WHERE id = ${id} AND party_id = ${partyID} AND deleted_at IS NULL`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))),
          Effect.orDie
        ),
      insert: (t) =>
        sql`INSERT INTO invoice_templates ${
          sql.insert({
            id: t.id,
            partyId: t.partyID,
            shopId: t.shopID,
            externalId: t.externalID ?? null,
            createdAt: t.createdAt.getTime(),
            deletedAt: null,
            data: toJson(dataOf(t)),
            version: t.version
          })
        }`.pipe(Effect.asVoid, Effect.orDie),
      update: (t, expected) =>
        sql`UPDATE invoice_templates SET data = ${toJson(dataOf(t))}, version = ${t.version}
            WHERE id = ${t.id} AND version = ${expected} AND deleted_at IS NULL RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      delete: (partyID, id, at) =>
        sql`UPDATE invoice_templates SET deleted_at = ${at.getTime()}
            WHERE id = ${id} AND party_id = ${partyID} AND deleted_at IS NULL RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    }
  })
)

/**
 * `InvoiceTemplateRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { InvoiceTemplate, type InvoiceTemplateRecord } from "@kassa/core/invoice-template/InvoiceTemplate"
import { InvoiceTemplateRepository } from "@kassa/core/ports/InvoiceTemplateRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, OptionalText, reader, StoredMetadata, toJson } from "./internal/rows.js"
import * as Repository from "./internal/repository.js"

const dataOf = (t: InvoiceTemplateRecord) => ({
  name: t.name,
  description: t.description,
  lifetime: t.lifetime,
  details: t.details,
  metadata: t.metadata,
  randomizeAmount: t.randomizeAmount
})

const fields = InvoiceTemplate.fields

/** An `invoice_templates` row. */
const TemplateRow = Schema.Struct({
  id: Schema.String,
  partyId: Schema.String,
  shopId: Schema.String,
  externalId: OptionalText,
  createdAt: DateColumn,
  data: JsonColumn(Schema.Struct({
    name: fields.name,
    description: fields.description,
    lifetime: fields.lifetime,
    details: fields.details,
    metadata: Schema.optional(StoredMetadata),
    randomizeAmount: fields.randomizeAmount
  })),
  version: IntColumn
})

const templates = reader(TemplateRow, ({ data: d, ...r }): InvoiceTemplateRecord => ({
  id: r.id,
  partyID: r.partyId,
  shopID: r.shopId,
  externalID: r.externalId,
  name: d.name,
  description: d.description,
  createdAt: r.createdAt,
  lifetime: d.lifetime,
  details: d.details,
  metadata: d.metadata,
  randomizeAmount: d.randomizeAmount,
  version: r.version
}))

/** The columns `TemplateRow` reads. */
const columns = "id, party_id, shop_id, external_id, created_at, data, version"

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  InvoiceTemplateRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      findById: (partyID, id) =>
        sql`SELECT ${sql.literal(columns)} FROM invoice_templates WHERE id = ${id} AND party_id = ${partyID} AND deleted_at IS NULL`.pipe(
          Effect.map(templates.first),
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

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

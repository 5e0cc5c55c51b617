/**
 * `CustomerRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import {
  type BindingRecord,
  BindingError,
  BindingStatus,
  type CustomerRecord,
  CustomerStatus,
  PaymentResource
} from "@kassa/core/customer/Customer"
import { ContactInfo } from "@kassa/core/payment/Payment"
import { CustomerRepository } from "@kassa/core/ports/CustomerRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalDate, OptionalText, reader, StoredMetadata, toJson } from "./internal/rows.js"
import { StoredTool } from "./internal/storedTool.js"
import * as Repository from "./internal/repository.js"

/** A `customers` row. */
const CustomerRow = Schema.Struct({
  id: Schema.String,
  partyId: Schema.String,
  shopId: Schema.String,
  externalId: OptionalText,
  createdAt: DateColumn,
  deletedAt: OptionalDate,
  status: CustomerStatus,
  data: JsonColumn(Schema.Struct({ contactInfo: ContactInfo, metadata: StoredMetadata })),
  version: IntColumn
})

const customers = reader(CustomerRow, ({ data: d, ...r }): CustomerRecord => ({
  id: r.id,
  ...opt("externalID", r.externalId),
  shopID: r.shopId,
  partyID: r.partyId,
  contactInfo: d.contactInfo,
  status: r.status,
  metadata: d.metadata,
  createdAt: r.createdAt,
  deletedAt: r.deletedAt,
  version: r.version
}))

const bindingData = (b: BindingRecord) => ({
  paymentResource: b.paymentResource,
  error: b.error,
  tool: b.tool,
  vaultSession: b.vaultSession,
  recurrentToken: b.recurrentToken,
  interactionCompleted: b.interactionCompleted
})

/** A `customer_bindings` row. */
const BindingRow = Schema.Struct({
  customerId: Schema.String,
  id: Schema.String,
  partyId: Schema.String,
  externalId: OptionalText,
  createdAt: DateColumn,
  status: BindingStatus,
  interactionId: OptionalText,
  data: JsonColumn(Schema.Struct({
    paymentResource: PaymentResource,
    error: Schema.optional(BindingError),
    tool: StoredTool,
    vaultSession: Schema.optional(Schema.String),
    recurrentToken: Schema.optional(Schema.String),
    interactionCompleted: Schema.optional(Schema.Boolean)
  })),
  version: IntColumn
})

const bindings = reader(BindingRow, ({ data: d, ...r }): BindingRecord => ({
  id: r.id,
  ...opt("externalID", r.externalId),
  paymentResource: d.paymentResource,
  status: r.status,
  ...opt("error", d.error),
  customerID: r.customerId,
  partyID: r.partyId,
  createdAt: r.createdAt,
  tool: d.tool,
  vaultSession: d.vaultSession,
  recurrentToken: d.recurrentToken,
  interactionID: r.interactionId,
  ...opt("interactionCompleted", d.interactionCompleted),
  version: r.version
}))

/** The columns the rows read, named (a statement prepared with `*` breaks when a column is added). */
const customerColumns = "id, party_id, shop_id, external_id, created_at, deleted_at, status, data, version"
const bindingColumns = "customer_id, id, party_id, external_id, created_at, status, interaction_id, data, version"

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  CustomerRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const customer = sql.literal(customerColumns)
    const binding = sql.literal(bindingColumns)
    return {
      findById: (partyID, id) =>
        sql`SELECT ${customer} FROM customers WHERE id = ${id} AND party_id = ${partyID}`.pipe(Effect.map(customers.first), Effect.orDie),
      insert: (c) =>
        sql`INSERT INTO customers ${
          sql.insert({
            id: c.id,
            partyId: c.partyID,
            shopId: c.shopID,
            externalId: c.externalID ?? null,
            createdAt: c.createdAt.getTime(),
            deletedAt: c.deletedAt === undefined ? null : c.deletedAt.getTime(),
            status: c.status,
            data: toJson({ contactInfo: c.contactInfo, metadata: c.metadata }),
            version: c.version
          })
        }`.pipe(Effect.asVoid, Effect.orDie),
      update: (c, expected) =>
        sql`UPDATE customers SET status = ${c.status},
            deleted_at = ${c.deletedAt === undefined ? null : c.deletedAt.getTime()}, version = ${c.version}
            WHERE id = ${c.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      findBinding: (customerID, id) =>
        sql`SELECT ${binding} FROM customer_bindings WHERE customer_id = ${customerID} AND id = ${id}`.pipe(
          Effect.map(bindings.first),
          Effect.orDie
        ),
      findBindingByInteraction: (interactionID) =>
        sql`SELECT ${binding} FROM customer_bindings WHERE interaction_id = ${interactionID}`.pipe(Effect.map(bindings.first), Effect.orDie),
      listBindings: (customerID) =>
        sql`SELECT ${binding} FROM customer_bindings WHERE customer_id = ${customerID} ORDER BY created_at, id`.pipe(
          Effect.map(bindings.all),
          Effect.orDie
        ),
      insertBinding: (b) =>
        sql`INSERT INTO customer_bindings ${
          sql.insert({
            customerId: b.customerID,
            id: b.id,
            partyId: b.partyID,
            externalId: b.externalID ?? null,
            createdAt: b.createdAt.getTime(),
            status: b.status,
            interactionId: b.interactionID ?? null,
            data: toJson(bindingData(b)),
            version: b.version
          })
        }`.pipe(Effect.asVoid, Effect.orDie),
      updateBinding: (b, expected) =>
        sql`UPDATE customer_bindings SET status = ${b.status}, interaction_id = ${b.interactionID ?? null},
            data = ${toJson(bindingData(b))}, version = ${b.version}
            WHERE customer_id = ${b.customerID} AND id = ${b.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

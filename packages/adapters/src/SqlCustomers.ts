/**
 * `CustomerRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { BindingRecord, CustomerRecord } from "@kassa/core/customer/Customer"
import { CustomerRepository } from "@kassa/core/ports/CustomerRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { date, int, json, opt, optDate, optString, toJson } from "./internal/rows.js"

const customerFromRow = (r: any): CustomerRecord => {
  const d = json<any>(r.data)
  return {
    id: r.id,
    ...opt("externalID", optString(r.externalId)),
    shopID: r.shopId,
    partyID: r.partyId,
    contactInfo: d.contactInfo,
    status: r.status,
    metadata: d.metadata,
    createdAt: date(r.createdAt),
    deletedAt: optDate(r.deletedAt),
    version: int(r.version)
  }
}

const bindingData = (b: BindingRecord) => ({
  paymentResource: b.paymentResource,
  error: b.error,
  tool: b.tool,
  vaultSession: b.vaultSession,
  recurrentToken: b.recurrentToken,
  interactionCompleted: b.interactionCompleted
})

const bindingFromRow = (r: any): BindingRecord => {
  const d = json<any>(r.data)
  return {
    id: r.id,
    ...opt("externalID", optString(r.externalId)),
    paymentResource: d.paymentResource,
    status: r.status,
    ...opt("error", d.error),
    customerID: r.customerId,
    partyID: r.partyId,
    createdAt: date(r.createdAt),
    tool: d.tool,
    vaultSession: d.vaultSession,
    recurrentToken: d.recurrentToken,
    interactionID: optString(r.interactionId),
    ...opt("interactionCompleted", d.interactionCompleted),
    version: int(r.version)
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  CustomerRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const oneCustomer = (rows: ReadonlyArray<any>) => Option.fromNullable(rows[0]).pipe(Option.map(customerFromRow))
    const oneBinding = (rows: ReadonlyArray<any>) => Option.fromNullable(rows[0]).pipe(Option.map(bindingFromRow))
    return {
      findById: (partyID, id) =>
        sql`SELECT * FROM customers WHERE id = ${id} AND party_id = ${partyID}`.pipe(Effect.map(oneCustomer), Effect.orDie),
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
        sql`SELECT * FROM customer_bindings WHERE customer_id = ${customerID} AND id = ${id}`.pipe(
          Effect.map(oneBinding),
          Effect.orDie
        ),
      findBindingByInteraction: (interactionID) =>
        sql`SELECT * FROM customer_bindings WHERE interaction_id = ${interactionID}`.pipe(Effect.map(oneBinding), Effect.orDie),
      listBindings: (customerID) =>
        sql`SELECT * FROM customer_bindings WHERE customer_id = ${customerID} ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(bindingFromRow)),
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

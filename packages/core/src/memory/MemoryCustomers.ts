/**
 * `CustomerRepository` in memory: customers and their bindings.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { BindingRecord, CustomerRecord } from "../customer/Customer.js"
import { CustomerRepository } from "../ports/CustomerRepository.js"
import { byCreatedAt } from "./internal/order.js"
import { key, MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const storedCustomer = (c: CustomerRecord) => omitUndefined(c, ["externalID"])

const storedBinding = (b: BindingRecord) => omitUndefined(b, ["externalID", "error", "interactionCompleted"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<CustomerRepository, never, MemoryStore> = Layer.effect(
  CustomerRepository,
  Effect.map(MemoryStore, (store) => {
    const customers = store.table<CustomerRecord>("customers")
    const bindings = store.table<BindingRecord>("customer_bindings")
    return {
      findById: (partyID, id) => Effect.map(customers.get(id), Option.filter((c) => c.partyID === partyID)),
      insert: (c) => customers.insert(c.id, storedCustomer(c)),
      update: (c, expected) =>
        updateIfVersion(store, customers, c.id, expected, (before) => withFields(before, c, ["status", "deletedAt", "version"])),
      findBinding: (customerID, id) => bindings.get(key(customerID, id)),
      findBindingByInteraction: (interactionID) =>
        Effect.map(bindings.values, (all) => Option.fromNullable(all.find((b) => b.interactionID === interactionID))),
      listBindings: (customerID) => Effect.map(bindings.values, (all) => byCreatedAt(all.filter((b) => b.customerID === customerID))),
      insertBinding: (b) => bindings.insert(key(b.customerID, b.id), storedBinding(b)),
      // the SQL adapter writes everything but the binding's identity and creation
      updateBinding: (b, expected) =>
        updateIfVersion(store, bindings, key(b.customerID, b.id), expected, (before) =>
          storedBinding(withFields(b, before, ["id", "customerID", "partyID", "externalID", "createdAt"])))
    }
  })
)

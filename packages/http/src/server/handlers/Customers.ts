/**
 * Handlers of the Customers group.
 *
 * @since 0.1.0
 */
import { Customer, CustomerService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { externalIdNamespace, merchantParty, resourceParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The Customers group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const customers = yield* CustomerService.CustomerService
  // The customer access token opens that customer only.
  const reader = (id: string) => resourceParty("customer", id, "Customer")
  return Group.handlers(KassaApi, "Customers")({
    createCustomer: ({ payload }) => Effect.flatMap(merchantParty, (party) => customers.create(party, payload)),
    getCustomerById: ({ path }) =>
      Effect.flatMap(reader(path.customerID), (party) => customers.get(party, path.customerID)).pipe(
        Effect.map(Customer.toCustomer)
      ),
    deleteCustomer: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => customers.delete(party, path.customerID)),
    createCustomerAccessToken: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => customers.accessToken(party, path.customerID)),
    createBinding: ({ path, payload }) =>
      Effect.flatMap(
        Effect.zip(reader(path.customerID), externalIdNamespace),
        ([party, namespace]) => customers.createBinding(party, path.customerID, payload, namespace)
      ).pipe(
        Effect.map(Customer.toBinding)
      ),
    getBindings: ({ path }) =>
      Effect.flatMap(reader(path.customerID), (party) => customers.bindings(party, path.customerID)).pipe(
        Effect.map((list) => list.map(Customer.toBinding))
      ),
    getBinding: ({ path }) =>
      Effect.flatMap(
        reader(path.customerID),
        (party) => customers.binding(party, path.customerID, path.customerBindingID)
      ).pipe(Effect.map(Customer.toBinding)),
    getCustomerEvents: ({ path, urlParams }) =>
      Effect.flatMap(
        reader(path.customerID),
        (party) => customers.events(party, path.customerID, urlParams.limit, urlParams.eventID)
      ),
    getCustomerPaymentMethods: ({ path }) =>
      Effect.flatMap(reader(path.customerID), (party) => customers.paymentMethods(party, path.customerID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Customers", handlers)

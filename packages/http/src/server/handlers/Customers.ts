/**
 * Handlers of the Customers group.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Customer, CustomerService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { externalIdNamespace, merchantParty, resourceParty } from "../Caller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Customers", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* CustomerService.CustomerService
    // The customer access token opens that customer only.
    const reader = (id: string) => resourceParty("customer", id, "Customer")
    return handlers
      .handle("createCustomer", ({ payload }) => Effect.flatMap(merchantParty, (party) => customers.create(party, payload)))
      .handle("getCustomerById", ({ path }) =>
        Effect.flatMap(reader(path.customerID), (party) => customers.get(party, path.customerID)).pipe(
          Effect.map(Customer.toCustomer)
        ))
      .handle("deleteCustomer", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => customers.delete(party, path.customerID)))
      .handle("createCustomerAccessToken", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => customers.accessToken(party, path.customerID)))
      .handle("createBinding", ({ path, payload }) =>
        Effect.flatMap(
          Effect.zip(reader(path.customerID), externalIdNamespace),
          ([party, namespace]) => customers.createBinding(party, path.customerID, payload, namespace)
        ).pipe(
          Effect.map(Customer.toBinding)
        ))
      .handle("getBindings", ({ path }) =>
        Effect.flatMap(reader(path.customerID), (party) => customers.bindings(party, path.customerID)).pipe(
          Effect.map((list) => list.map(Customer.toBinding))
        ))
      .handle("getBinding", ({ path }) =>
        Effect.flatMap(
          reader(path.customerID),
          (party) => customers.binding(party, path.customerID, path.customerBindingID)
        ).pipe(Effect.map(Customer.toBinding)))
      .handle("getCustomerEvents", ({ path, urlParams }) =>
        Effect.flatMap(
          reader(path.customerID),
          (party) => customers.events(party, path.customerID, urlParams.limit, urlParams.eventID)
        ))
      .handle("getCustomerPaymentMethods", ({ path }) =>
        Effect.flatMap(reader(path.customerID), (party) => customers.paymentMethods(party, path.customerID)))
  }))

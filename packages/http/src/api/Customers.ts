/**
 * Customers and their bindings.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Customer, Reference } from "@kassa/core"
import * as Schema from "effect/Schema"
import { ExternalIdConflict } from "./Errors.js"
import { AccessToken } from "./Invoices.js"
import { Id, Int32FromString } from "./Params.js"
import { Authentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const CustomerAndToken = Schema.Struct({
  customer: Customer.Customer,
  customerAccessToken: AccessToken
}).annotations({ identifier: "CustomerAndToken" })

const CustomerPath = Schema.Struct({ customerID: Id })

/** @since 0.1.0 @category groups */
export class CustomersGroup extends HttpApiGroup.make("Customers")
  .add(
    HttpApiEndpoint.post("createCustomer", "/processing/customers")
      .setPayload(Customer.CustomerParams)
      .addSuccess(CustomerAndToken, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(HttpApiEndpoint.get("getCustomerById", "/processing/customers/:customerID").setPath(CustomerPath).addSuccess(Customer.Customer))
  .add(
    HttpApiEndpoint.del("deleteCustomer", "/processing/customers/:customerID").setPath(CustomerPath).addSuccess(
      HttpApiSchema.NoContent
    )
  )
  .add(
    HttpApiEndpoint.post("createCustomerAccessToken", "/processing/customers/:customerID/access-tokens")
      .setPath(CustomerPath)
      .addSuccess(AccessToken, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("createBinding", "/processing/customers/:customerID/bindings")
      .setPath(CustomerPath)
      .setPayload(Customer.BindingParams)
      .addSuccess(Customer.Binding, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(
    HttpApiEndpoint.get("getBindings", "/processing/customers/:customerID/bindings")
      .setPath(CustomerPath)
      .addSuccess(Schema.Array(Customer.Binding))
  )
  .add(
    HttpApiEndpoint.get("getBinding", "/processing/customers/:customerID/bindings/:customerBindingID")
      .setPath(Schema.Struct({ customerID: Id, customerBindingID: Id }))
      .addSuccess(Customer.Binding)
  )
  .add(
    HttpApiEndpoint.get("getCustomerEvents", "/processing/customers/:customerID/events")
      .setPath(CustomerPath)
      .setUrlParams(Schema.Struct({
        limit: Int32FromString.pipe(Schema.greaterThanOrEqualTo(1)),
        eventID: Schema.optional(Int32FromString)
      }))
      .addSuccess(Schema.Array(Customer.CustomerEvent))
  )
  .add(
    HttpApiEndpoint.get("getCustomerPaymentMethods", "/processing/customers/:customerID/payment-methods")
      .setPath(CustomerPath)
      .addSuccess(Schema.Array(Reference.PaymentMethod))
  )
  .middleware(Authentication)
{}

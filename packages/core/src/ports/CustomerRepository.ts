/**
 * Storage of customers and their bindings.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { BindingRecord, CustomerRecord } from "../customer/Customer.js"

/** @since 0.1.0 @category tags */
export class CustomerRepository extends Context.Tag("kassa/CustomerRepository")<CustomerRepository, {
  /** The customer, deleted or not. */
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<CustomerRecord>>
  readonly insert: (customer: CustomerRecord) => Effect.Effect<void>
  /** Writes `customer` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (customer: CustomerRecord, expectedVersion: number) => Effect.Effect<boolean>
  readonly findBinding: (customerID: string, id: string) => Effect.Effect<Option.Option<BindingRecord>>
  readonly findBindingByInteraction: (interactionID: string) => Effect.Effect<Option.Option<BindingRecord>>
  readonly listBindings: (customerID: string) => Effect.Effect<ReadonlyArray<BindingRecord>>
  readonly insertBinding: (binding: BindingRecord) => Effect.Effect<void>
  /** Writes `binding` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly updateBinding: (binding: BindingRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}

/**
 * The customer's facade for handlers and embedders: create (idempotent by `externalID`), read,
 * delete, access tokens, events and payment methods here; bindings verified by the acquirer
 * (`CreateBinding`, `BindingProcessing`, `BindingChallenge`, decided by `BindingMachine`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AccessTokens, INVOICE_TOKEN_DAYS } from "../auth/AccessTokens.js"
import { BusinessError, NotFound } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { paymentMethodOf } from "../invoice/InvoiceService.js"
import * as Ref from "../Ref.js"
import { ShopService } from "../shop/ShopService.js"
import { PaymentResources } from "../tokenization/PaymentResources.js"
import * as BindingChallenge from "./BindingChallenge.js"
import * as BindingProcessing from "./BindingProcessing.js"
import * as CreateBinding from "./CreateBinding.js"
import { CustomerChange, type CustomerEvent, type CustomerParams, type CustomerRecord, toCustomer } from "./Customer.js"
import * as CustomerContext from "./CustomerContext.js"

/** @since 0.1.0 */
export { AGGREGATE } from "./CustomerContext.js"
/** @since 0.1.0 */
export { BINDING_OPERATION } from "./CreateBinding.js"
/** @since 0.1.0 */
export { ADVANCE_TIMER, INTERACTION_TIMER } from "./BindingProcessing.js"
/** @since 0.1.0 */
export const OPERATION = "customer"

const decodeChange = Schema.decodeUnknownSync(CustomerChange)
const isBindingChange = (x: unknown) =>
  typeof x === "object" && x !== null && String((x as { readonly changeType?: unknown }).changeType).startsWith("CustomerBinding")

/** What builds the service: `CustomerService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* CustomerContext.make
  const { customers, events, externalIDs, ids, load, loadBinding, now, shops, tokens, tx } = ctx
  const processing = yield* BindingProcessing.make(ctx)

  const create = Traced.fn("CustomerService.create")(function*(caller: string, params: CustomerParams) {
    if (params.partyID !== undefined && params.partyID !== caller) {
      return yield* BusinessError.of("invalidPartyID", `Party not found: ${params.partyID}`)
    }
    const saved = yield* externalIDs.create({
      partyID: caller,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ shopID: params.shopID, contactInfo: params.contactInfo }),
      ref: Ref.Id,
      load: ({ id }) => load(caller, id)
    }, (claim) =>
      Effect.gen(function*() {
        const shop = yield* shops.requireActive(PartyID.make(caller), ShopID.make(params.shopID))
        const customer: CustomerRecord = {
          id: yield* ids.next,
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          shopID: shop.id,
          partyID: caller,
          contactInfo: params.contactInfo,
          status: "unready",
          metadata: params.metadata,
          createdAt: yield* now,
          deletedAt: undefined,
          version: 1
        }
        return yield* tx.withTransaction(Effect.gen(function*() {
          yield* claim({ id: customer.id })
          yield* customers.insert(customer)
          yield* ctx.append(customer, [{ changeType: "CustomerCreated" }])
          return customer
        }))
      }))
    return { customer: toCustomer(saved), customerAccessToken: yield* tokens.issue(caller, "customer", saved.id, INVOICE_TOKEN_DAYS) }
  })

  const get = Traced.fn("CustomerService.get")(function*(partyID: string, id: string) {
    return yield* load(partyID, id)
  })

  const remove = Traced.fn("CustomerService.delete")(function*(partyID: string, id: string) {
    yield* Optimistic.command(tx.withTransaction, { read: load(partyID, id), update: customers.update, what: `customer ${id}` }, ({
      current: c,
      save
    }) =>
      Effect.gen(function*() {
        yield* shops.requireActive(PartyID.make(partyID), ShopID.make(c.shopID))
        yield* save({ ...c, deletedAt: yield* now })
        yield* ctx.append(c, [{ changeType: "CustomerDeleted" }])
      }))
  })

  const accessToken = Traced.fn("CustomerService.accessToken")(function*(partyID: string, id: string) {
    yield* load(partyID, id)
    return yield* tokens.issue(partyID, "customer", id, INVOICE_TOKEN_DAYS)
  })

  const bindings = Traced.fn("CustomerService.bindings")(function*(partyID: string, customerID: string) {
    yield* load(partyID, customerID)
    return yield* customers.listBindings(customerID)
  })

  const binding = Traced.fn("CustomerService.binding")(function*(partyID: string, customerID: string, id: string) {
    yield* load(partyID, customerID)
    return yield* loadBinding(customerID, id)
  })

  const listEvents = Traced.fn("CustomerService.events")(
    function*(partyID: string, id: string, limit: number, after: number | undefined) {
      yield* load(partyID, id)
      if (after !== undefined && after > 0) {
        const at = yield* events.list({ aggregateType: CustomerContext.AGGREGATE, aggregateID: id, after: after - 1, limit: 1 })
        if (at[0]?.id !== after) return yield* NotFound.of("Event", after)
      }
      // Events whose changes are all lifecycle ones are not part of the public history (their
      // ids leave gaps), so read on until `limit` public events are found.
      const out: Array<CustomerEvent> = []
      let cursor = after ?? 0
      while (out.length < limit) {
        const page = yield* events.list({
          aggregateType: CustomerContext.AGGREGATE,
          aggregateID: id,
          after: cursor,
          limit: Math.max(limit, 50)
        })
        for (const e of page) {
          const changes = e.changes.filter(isBindingChange).map((x) => decodeChange(x))
          if (changes.length > 0 && out.length < limit) out.push({ id: e.id, createdAt: e.createdAt, changes })
          cursor = e.id
        }
        if (page.length < Math.max(limit, 50)) break
      }
      return out
    }
  )

  const paymentMethods = Traced.fn("CustomerService.paymentMethods")(function*(partyID: string, id: string) {
    const c = yield* load(partyID, id)
    const shop = yield* shops.get(PartyID.make(partyID), ShopID.make(c.shopID))
    const { institution } = yield* shops.terms(shop)
    return institution.terms.paymentMethods.filter((m) => m.method === "BankCard").map(paymentMethodOf)
  })

  return {
    create,
    get,
    delete: remove,
    accessToken,
    createBinding: CreateBinding.make(ctx, processing),
    bindings,
    binding,
    events: listEvents,
    paymentMethods,
    ...BindingChallenge.make(ctx, processing)
  } as const
})

/** @since 0.1.0 @category services */
export class CustomerService extends Effect.Service<CustomerService>()("kassa/CustomerService", {
  effect: make,
  dependencies: [ShopService.Default, PaymentResources.Default, AccessTokens.Default]
}) {}

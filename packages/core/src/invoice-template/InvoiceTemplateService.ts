/**
 * Use cases of the invoice template: create (idempotent by `externalID`), read, update, delete,
 * create invoices from it, payment methods.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AccessTokens } from "../auth/AccessTokens.js"
import * as Cart from "../cart/Cart.js"
import { BusinessError, NotFound } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Idempotent from "../internal/idempotent.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import type { InvoiceParams } from "../invoice/Invoice.js"
import { InvoiceService, paymentMethodOf } from "../invoice/InvoiceService.js"
import { Idempotency, PARTY_NAMESPACE } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { InvoiceTemplateRepository } from "../ports/InvoiceTemplateRepository.js"
import { Transactions } from "../ports/Transactions.js"
import * as Ref from "../Ref.js"
import { ShopService } from "../shop/ShopService.js"
import {
  type CreateParams,
  type Details,
  dueDateOf,
  type InvoiceParamsWithTemplate,
  type InvoiceTemplateRecord,
  productOf,
  toTemplate,
  type UpdateParams
} from "./InvoiceTemplate.js"
import { checkLifetime, currencyOf, resolveDetails } from "./TemplateDetails.js"

/** @since 0.1.0 */
export { currencyOf, resolveDetails } from "./TemplateDetails.js"

/** Templates are published on payment pages; their tokens live long. @since 0.1.0 */
export const TEMPLATE_TOKEN_DAYS = 3650
/** @since 0.1.0 */
export const OPERATION = "invoiceTemplate"

const invalid = (message: string) => Effect.fail(BusinessError.of("invalidRequest", message))

/** What builds the service: `InvoiceTemplateService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const templates = yield* InvoiceTemplateRepository
  const shops = yield* ShopService
  const invoices = yield* InvoiceService
  const externalIDs = Idempotent.make(yield* Idempotency)
  const ids = yield* Ids
  const tx = yield* Transactions
  const accessTokens = yield* AccessTokens

  const get = Traced.fn("InvoiceTemplateService.get")(function*(partyID: string, id: string) {
    const found = yield* templates.findById(partyID, id)
    if (Option.isNone(found)) return yield* NotFound.of("Invoice template", id)
    return found.value
  })

  const checkShopCurrency = (shopCurrency: string, details: Details) => {
    const currency = currencyOf(details)
    return currency !== undefined && currency !== shopCurrency
      ? invalid(`Invalid currency: the shop accepts ${shopCurrency}`)
      : Effect.void
  }

  const create = Traced.fn("InvoiceTemplateService.create")(function*(caller: string, params: CreateParams) {
    if (params.partyID !== undefined && params.partyID !== caller) {
      return yield* BusinessError.of("invalidPartyID", `Party not found: ${params.partyID}`)
    }
    const details = yield* resolveDetails(params, undefined)
    const saved = yield* externalIDs.create({
      partyID: caller,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ shopID: params.shopID, lifetime: params.lifetime, details }),
      ref: Ref.Id,
      load: ({ id }) => get(caller, id)
    }, (claim) =>
      Effect.gen(function*() {
        const shop = yield* shops.requireActive(PartyID.make(caller), ShopID.make(params.shopID))
        yield* checkLifetime(params.lifetime)
        yield* checkShopCurrency(shop.currency, details)
        const record: InvoiceTemplateRecord = {
          id: yield* ids.next,
          partyID: caller,
          shopID: shop.id,
          externalID: params.externalID,
          name: params.name,
          description: params.description,
          createdAt: new Date(yield* Clock.currentTimeMillis),
          lifetime: params.lifetime,
          details,
          metadata: params.metadata,
          randomizeAmount: params.randomizeAmount,
          version: 1
        }
        return yield* tx.withTransaction(Effect.gen(function*() {
          yield* claim({ id: record.id })
          yield* templates.insert(record)
          return record
        }))
      }))
    return {
      invoiceTemplate: toTemplate(saved),
      invoiceTemplateAccessToken: yield* accessTokens.issue(caller, "invoiceTemplate", saved.id, TEMPLATE_TOKEN_DAYS)
    }
  })

  const requireActiveShop = (t: InvoiceTemplateRecord) =>
    shops.requireActive(PartyID.make(t.partyID), ShopID.make(t.shopID))

  const update = Traced.fn("InvoiceTemplateService.update")(function*(partyID: string, id: string, params: UpdateParams) {
    return yield* Optimistic.command(tx.withTransaction, {
      read: get(partyID, id),
      update: templates.update,
      what: `invoice template ${id}`
    }, ({ current: t, save }) => Effect.gen(function*() {
      const shop = yield* requireActiveShop(t)
      const details = yield* resolveDetails(params, t.details)
      if (params.lifetime !== undefined) yield* checkLifetime(params.lifetime)
      yield* checkShopCurrency(shop.currency, details)
      const updated: InvoiceTemplateRecord = {
        ...t,
        name: params.name ?? t.name,
        description: params.description ?? t.description,
        lifetime: params.lifetime ?? t.lifetime,
        details,
        metadata: params.metadata ?? t.metadata,
        randomizeAmount: params.randomizeAmount ?? t.randomizeAmount
      }
      return toTemplate(yield* save(updated))
    }))
  })

  const remove = Traced.fn("InvoiceTemplateService.delete")(function*(partyID: string, id: string) {
    const t = yield* get(partyID, id)
    yield* requireActiveShop(t)
    if (!(yield* templates.delete(partyID, id, new Date(yield* Clock.currentTimeMillis)))) {
      return yield* NotFound.of("Invoice template", id)
    }
  })

  /**
   * An invoice from the template: the amount where the template leaves it open (a range is
   * enforced, a fixed cost may be omitted), the template's currency, metadata falling back on
   * the template's, the due date at the end of the template's lifetime.
   */
  const createInvoice = Traced.fn("InvoiceTemplateService.createInvoice")(
    function*(partyID: string, id: string, params: InvoiceParamsWithTemplate, namespace: string = PARTY_NAMESPACE) {
      const t = yield* get(partyID, id)
      const violated = (message: string) => Effect.fail(BusinessError.of("invoiceTermsViolated", message))
      const d = t.details
      const fixedCurrency = currencyOf(d)
      if (params.currency !== undefined && fixedCurrency !== undefined && params.currency !== fixedCurrency) {
        return yield* violated(`currency: the template's currency is ${fixedCurrency}`)
      }
      let amount: number
      let cart: ReadonlyArray<unknown>
      if (d.templateType === "InvoiceTemplateMultiLine") {
        const total = Cart.total(d.cart)!
        if (params.amount !== undefined && params.amount !== total) {
          return yield* violated(`amount: the template's cart totals ${total}`)
        }
        amount = total
        cart = d.cart.map(({ cost: _cost, ...line }) => line)
      } else {
        const p = d.price
        if (p.costType === "InvoiceTemplateLineCostFixed") {
          if (params.amount !== undefined && params.amount !== p.amount) {
            return yield* violated(`amount: the template's cost is fixed at ${p.amount}`)
          }
          amount = p.amount
        } else if (p.costType === "InvoiceTemplateLineCostRange") {
          if (params.amount === undefined) return yield* invalid("amount: is required by the template's cost range")
          if (params.amount < p.range.lowerBound || params.amount > p.range.upperBound) {
            return yield* violated(`amount: must be within [${p.range.lowerBound}, ${p.range.upperBound}]`)
          }
          amount = params.amount
        } else {
          if (params.amount === undefined) return yield* invalid("amount: is required by the template")
          amount = params.amount
        }
        cart = [{ product: d.product, quantity: 1, price: amount, ...(d.taxMode === undefined ? {} : { taxMode: d.taxMode }) }]
      }
      const currency = fixedCurrency ?? params.currency
      if (currency === undefined) return yield* invalid("currency: is required by the template")
      const now = new Date(yield* Clock.currentTimeMillis)
      const invoiceParams: InvoiceParams = {
        shopID: t.shopID,
        ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
        dueDate: dueDateOf(now, t.lifetime),
        currency,
        product: productOf(t),
        ...(t.description === undefined ? {} : { description: t.description }),
        cart,
        amount,
        metadata: params.metadata ?? t.metadata ?? {},
        ...(t.randomizeAmount === undefined ? {} : { randomizeAmount: t.randomizeAmount })
      }
      return yield* invoices.create(partyID, invoiceParams, {
        invoiceTemplateID: t.id,
        features: { amount: params.amount ?? null, currency: params.currency ?? null }
      }, namespace)
    }
  )

  const paymentMethods = Traced.fn("InvoiceTemplateService.paymentMethods")(function*(partyID: string, id: string) {
    const t = yield* get(partyID, id)
    const shop = yield* shops.get(PartyID.make(partyID), ShopID.make(t.shopID))
    const { institution } = yield* shops.terms(shop)
    return institution.terms.paymentMethods.map(paymentMethodOf)
  })

  return {
    create,
    get: (partyID: string, id: string) => Effect.map(get(partyID, id), toTemplate),
    update,
    delete: remove,
    createInvoice,
    paymentMethods
  } as const
})

/** @since 0.1.0 @category services */
export class InvoiceTemplateService extends Effect.Service<InvoiceTemplateService>()("kassa/InvoiceTemplateService", {
  effect: make,
  dependencies: [ShopService.Default, InvoiceService.Default, AccessTokens.Default]
}) {}

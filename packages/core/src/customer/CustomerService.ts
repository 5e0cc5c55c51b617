/**
 * Use cases of the customer: create (idempotent by `externalID`), read, delete, access tokens,
 * bindings verified by the acquirer (with 3-D Secure where the card asks for it), events and
 * payment methods.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccessTokens, INVOICE_TOKEN_DAYS } from "../auth/AccessTokens.js"
import { BusinessError, NotFound } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson } from "../internal/canonical.js"
import { keyOf, replay as replayIdempotent } from "../internal/idempotent.js"
import { retryOnConflict, VersionConflict } from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { paymentMethodOf } from "../invoice/InvoiceService.js"
import { cardAllowed } from "../reference/Reference.js"
import type { UserInteraction } from "../payment/PaymentChange.js"
import { describeMethod } from "../payment/PaymentTool.js"
import { Acquirer, type AcquirerTool, type AuthorizeResult } from "../ports/Acquirer.js"
import { CardVault } from "../ports/CardVault.js"
import { CustomerRepository } from "../ports/CustomerRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency, PARTY_NAMESPACE, type IdempotencyRecord } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { KassaSettings } from "../Settings.js"
import { ShopService } from "../shop/ShopService.js"
import { PaymentResources } from "../tokenization/PaymentResources.js"
import {
  type BindingParams,
  type BindingRecord,
  CustomerChange,
  type CustomerEvent,
  type CustomerParams,
  type CustomerRecord,
  toBinding,
  toCustomer
} from "./Customer.js"

/** @since 0.1.0 */
export const AGGREGATE = "customer"
/** @since 0.1.0 */
export const OPERATION = "customer"
/** @since 0.1.0 */
export const BINDING_OPERATION = "customerBinding"
/** Resumes a binding's verification after a crash. @since 0.1.0 */
export const ADVANCE_TIMER = "binding.advance"
/** Ends an abandoned 3-D Secure challenge of a binding. @since 0.1.0 */
export const INTERACTION_TIMER = "binding.interaction"

const publicChange = Schema.is(CustomerChange)
const encodeChange = Schema.encodeSync(CustomerChange)
const decodeChange = Schema.decodeUnknownSync(CustomerChange)

/** @since 0.1.0 @category services */
export class CustomerService extends Effect.Service<CustomerService>()("kassa/CustomerService", {
  effect: Effect.gen(function*() {
    const customers = yield* CustomerRepository
    const shops = yield* ShopService
    const resources = yield* PaymentResources
    const vault = yield* CardVault
    const acquirer = yield* Acquirer
    const events = yield* EventLog
    const idempotency = yield* Idempotency
    const ids = yield* Ids
    const timers = yield* Timers
    const tx = yield* Transactions
    const tokens = yield* AccessTokens
    const settings = yield* KassaSettings

    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const load = (partyID: string, id: string) =>
      Effect.flatMap(customers.findById(partyID, id), (o) =>
        Option.isSome(o) && o.value.deletedAt === undefined ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Customer", id)))

    /** Appends customer changes: the specification's ones encoded, lifecycle ones as they are. */
    const append = (c: CustomerRecord, changes: ReadonlyArray<CustomerChange | { readonly changeType: string }>) =>
      events.append({
        aggregateType: AGGREGATE,
        aggregateID: c.id,
        partyID: c.partyID,
        changes: changes.map((x) => (publicChange(x) ? encodeChange(x) : x))
      })

    const create = Traced.fn("CustomerService.create")(function*(caller: string, params: CustomerParams) {
      if (params.partyID !== undefined && params.partyID !== caller) {
        return yield* BusinessError.of("invalidPartyID", `Party not found: ${params.partyID}`)
      }
      const fp = canonicalJson({ shopID: params.shopID, contactInfo: params.contactInfo })
      const key = keyOf(caller, PARTY_NAMESPACE, OPERATION, params.externalID)
      const replay = (record: IdempotencyRecord) =>
        replayIdempotent(params.externalID!, fp, record, (entityID) => load(caller, entityID))
      const answer = (c: CustomerRecord) =>
        Effect.map(tokens.issue(caller, "customer", c.id, INVOICE_TOKEN_DAYS), (customerAccessToken) => ({
          customer: toCustomer(c),
          customerAccessToken
        }))
      if (key !== undefined) {
        const prior = yield* idempotency.find(key)
        if (Option.isSome(prior)) return yield* Effect.flatMap(replay(prior.value), answer)
      }
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
      const saved = yield* tx.withTransaction(Effect.gen(function*() {
        if (key !== undefined) {
          const prior = yield* idempotency.claim(key, { entityID: customer.id, fingerprint: fp })
          if (Option.isSome(prior)) return yield* replay(prior.value)
        }
        yield* customers.insert(customer)
        yield* append(customer, [{ changeType: "CustomerCreated" }])
        return customer
      }))
      return yield* answer(saved)
    })

    const get = Traced.fn("CustomerService.get")(function*(partyID: string, id: string) {
      return yield* load(partyID, id)
    })

    const remove = Traced.fn("CustomerService.delete")(function*(partyID: string, id: string) {
      yield* retryOnConflict(tx.withTransaction(Effect.gen(function*() {
        const c = yield* load(partyID, id)
        yield* shops.requireActive(PartyID.make(partyID), ShopID.make(c.shopID))
        const deleted: CustomerRecord = { ...c, deletedAt: yield* now, version: c.version + 1 }
        if (!(yield* customers.update(deleted, c.version))) return yield* new VersionConflict({ what: `customer ${id}` })
        yield* append(c, [{ changeType: "CustomerDeleted" }])
      })))
    })

    const accessToken = Traced.fn("CustomerService.accessToken")(function*(partyID: string, id: string) {
      yield* load(partyID, id)
      return yield* tokens.issue(partyID, "customer", id, INVOICE_TOKEN_DAYS)
    })

    const loadBinding = (customerID: string, id: string) =>
      Effect.flatMap(customers.findBinding(customerID, id), (o) =>
        Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Binding", id)))

    const interactionOf = (interactionID: string): UserInteraction => ({
      interactionType: "Redirect",
      request: { requestType: "BrowserGetRequest", uriTemplate: `${settings.publicUrl}/3ds/${interactionID}` }
    })

    /** Moves a binding on, atomically with its customer and events. */
    const transition = (
      customerID: string,
      id: string,
      change: (b: BindingRecord) => { readonly binding: BindingRecord; readonly changes: ReadonlyArray<CustomerChange> } | undefined
    ) =>
      retryOnConflict(tx.withTransaction(Effect.gen(function*() {
        const b = yield* loadBinding(customerID, id)
        const next = change(b)
        if (next === undefined) return b
        const updated = { ...next.binding, version: b.version + 1 }
        if (!(yield* customers.updateBinding(updated, b.version))) return yield* new VersionConflict({ what: `binding ${id}` })
        const c = yield* customers.findById(b.partyID, customerID).pipe(Effect.flatMap(Effect.orDie))
        const lifecycle: Array<{ readonly changeType: string }> = []
        if (updated.status === "succeeded" && c.status === "unready") {
          if (!(yield* customers.update({ ...c, status: "ready", version: c.version + 1 }, c.version))) {
            return yield* new VersionConflict({ what: `customer ${customerID}` })
          }
          lifecycle.push({ changeType: "CustomerReady" })
        }
        yield* append(c, [...next.changes, ...lifecycle])
        // The challenge's timeout is scheduled and cancelled with the state, in one transaction. An
        // answered challenge keeps it till the outcome: should the acquirer's answer never be
        // recorded (a crash), the binding fails then instead of staying pending.
        const subject = `${customerID}/${id}`
        if (updated.status !== "pending") {
          yield* timers.cancel(ADVANCE_TIMER, subject)
          yield* timers.cancel(INTERACTION_TIMER, subject)
        } else if (updated.interactionID !== undefined && b.interactionID === undefined) {
          yield* timers.schedule({
            kind: INTERACTION_TIMER,
            subject,
            dueAt: new Date((yield* Clock.currentTimeMillis) + settings.interactionTimeoutMs),
            payload: null
          })
        }
        return updated
      })))

    const statusChanged = (b: BindingRecord): CustomerChange =>
      b.error === undefined
        ? { changeType: "CustomerBindingStatusChanged", customerBindingID: b.id, status: b.status }
        : { changeType: "CustomerBindingStatusChanged", customerBindingID: b.id, status: b.status, error: b.error }

    const applyResult = (b: BindingRecord, result: AuthorizeResult) =>
      Effect.gen(function*() {
        switch (result._tag) {
          case "Authorized":
            yield* transition(b.customerID, b.id, (x) => {
              if (x.status !== "pending") return undefined
              const binding: BindingRecord = { ...x, status: "succeeded", recurrentToken: result.recurrentToken }
              return { binding, changes: [statusChanged(binding)] }
            })
            break
          case "Declined":
            yield* transition(b.customerID, b.id, (x) => {
              if (x.status !== "pending") return undefined
              const binding: BindingRecord = {
                ...x,
                status: "failed",
                error: { code: result.error.code, message: result.message }
              }
              return { binding, changes: [statusChanged(binding)] }
            })
            break
          case "InteractionRequired": {
            const interactionID = `${yield* ids.next}${yield* ids.next}`
            yield* transition(b.customerID, b.id, (x) =>
              x.status !== "pending" || x.interactionID !== undefined ? undefined : {
                binding: { ...x, interactionID },
                changes: [{
                  changeType: "CustomerBindingInteractionRequested",
                  customerBindingID: x.id,
                  userInteraction: interactionOf(interactionID)
                }]
              })
            return
          }
        }
        if (b.vaultSession !== undefined) yield* vault.deleteSession(b.vaultSession)
      })

    const verify = (customerID: string, id: string): Effect.Effect<void, never> =>
      Effect.gen(function*() {
        const b = yield* loadBinding(customerID, id)
        if (b.status !== "pending" || b.interactionID !== undefined) return
        if (b.tool.type !== "BankCard") return
        const stored = yield* vault.getCardAndSession(b.tool.vaultToken, b.vaultSession)
        if (Option.isNone(stored)) return yield* Effect.dieMessage(`vault has no card for binding ${id}`)
        const { card, secret } = stored.value
        const tool: AcquirerTool = {
          type: "BankCard",
          card,
          paymentSystem: b.tool.paymentSystem,
          cvv: Option.getOrUndefined(secret)?.cvv
        }
        const result = yield* acquirer.authorize({
          operationID: `binding.${customerID}.${id}`,
          amount: 0,
          currency: "XXX",
          tool,
          hold: true,
          makeRecurrent: true
        })
        yield* applyResult(b, result)
      }).pipe(
        Effect.catchAll((e) => Effect.logWarning("binding step refused", e)),
        Effect.withSpan("CustomerService.verify")
      )

    yield* timers.register(ADVANCE_TIMER, (timer) =>
      Effect.gen(function*() {
        const [customerID, id] = timer.subject.split("/") as [string, string]
        yield* timers.schedule({ ...timer, dueAt: new Date((yield* Clock.currentTimeMillis) + settings.recoveryDelayMs) })
        yield* tx.background(verify(customerID, id))
      }))
    yield* timers.register(INTERACTION_TIMER, (timer) =>
      Effect.gen(function*() {
        const [customerID, id] = timer.subject.split("/") as [string, string]
        const b = yield* loadBinding(customerID, id).pipe(Effect.option)
        if (Option.isSome(b)) {
          yield* applyResult(b.value, {
            _tag: "Declined",
            error: { code: "preauthorization_failed" },
            message: "The 3-D Secure challenge was not completed"
          }).pipe(Effect.ignore)
        }
      }))

    /** Starts a binding; its `externalID` is looked up in `namespace` (the party's own unless an access token sent it). */
    const createBinding = Traced.fn("CustomerService.createBinding")(
      function*(partyID: string, customerID: string, params: BindingParams, namespace: string = PARTY_NAMESPACE) {
        const c = yield* load(partyID, customerID)
        const { institution } = yield* shops.requireActiveWithTerms(PartyID.make(partyID), ShopID.make(c.shopID))
        const resource = yield* resources.resolve(
          partyID,
          params.paymentResource.paymentToolToken,
          params.paymentResource.paymentSession
        )
        if (resource.tool.type !== "BankCard") {
          return yield* BusinessError.of("invalidPaymentResource", "Only bank cards can be bound to a customer")
        }
        if (!cardAllowed(institution.terms.paymentMethods, resource.tool.paymentSystem)) {
          return yield* BusinessError.of(
            "invalidPaymentResource",
            `Invalid payment method: ${describeMethod(resource.tool)} is not enabled by the contract`
          )
        }
        const fp = canonicalJson({ customerID, session: resource.session, tool: resource.tool })
        const key = keyOf(partyID, namespace, BINDING_OPERATION, params.externalID)
        const replay = (record: IdempotencyRecord) =>
          replayIdempotent(params.externalID!, fp, record, (entityID) => {
            const [cid, id] = entityID.split("/") as [string, string]
            return loadBinding(cid, id)
          })
        if (key !== undefined) {
          const prior = yield* idempotency.find(key)
          if (Option.isSome(prior)) return yield* replay(prior.value)
        }
        const at = yield* now
        const binding: BindingRecord = {
          id: yield* ids.next,
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          paymentResource: {
            paymentToolToken: resource.token,
            paymentSession: resource.session,
            paymentToolDetails: resource.details,
            clientInfo: resource.clientInfo
          },
          status: "pending",
          customerID,
          partyID,
          createdAt: at,
          tool: resource.tool,
          vaultSession: resource.vaultSession,
          recurrentToken: undefined,
          interactionID: undefined,
          version: 1
        }
        const saved = yield* tx.withTransaction(Effect.gen(function*() {
          if (key !== undefined) {
            const prior = yield* idempotency.claim(key, { entityID: `${customerID}/${binding.id}`, fingerprint: fp })
            if (Option.isSome(prior)) return { binding: yield* replay(prior.value), fresh: false }
          }
          yield* customers.insertBinding(binding)
          yield* append(c, [{ changeType: "CustomerBindingStarted", customerBinding: toBinding(binding) }])
          yield* timers.schedule({
            kind: ADVANCE_TIMER,
            subject: `${customerID}/${binding.id}`,
            dueAt: new Date(at.getTime() + settings.recoveryDelayMs),
            payload: null
          })
          return { binding, fresh: true }
        }))
        if (saved.fresh) yield* tx.background(verify(customerID, binding.id))
        return saved.binding
      }
    )

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
          const at = yield* events.list({ aggregateType: AGGREGATE, aggregateID: id, after: after - 1, limit: 1 })
          if (at[0]?.id !== after) return yield* NotFound.of("Event", after)
        }
        // Events whose changes are all lifecycle ones are not part of the public history (their
        // ids leave gaps), so read on until `limit` public events are found.
        const out: Array<CustomerEvent> = []
        let cursor = after ?? 0
        while (out.length < limit) {
          const page = yield* events.list({ aggregateType: AGGREGATE, aggregateID: id, after: cursor, limit: Math.max(limit, 50) })
          for (const e of page) {
            const changes = e.changes.filter((x: any) => x?.changeType?.startsWith("CustomerBinding")).map((x) => decodeChange(x))
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

    /** The 3-D Secure challenge of a binding a payer opened, if it is still waiting. */
    const challenge = Traced.fn("CustomerService.challenge")(function*(interactionID: string) {
      const b = yield* customers.findBindingByInteraction(interactionID)
      if (Option.isNone(b) || b.value.status !== "pending" || b.value.interactionCompleted === true) {
        return yield* NotFound.of("Challenge", interactionID)
      }
      return b.value
    })

    /**
     * The payer passed or failed the challenge. Of concurrent answers the first completes it
     * (`decided`) and calls the acquirer; the others call nothing and answer the binding as it
     * stands, as do answers to a challenge already over.
     */
    const completeChallenge = Traced.fn("CustomerService.completeChallenge")(function*(interactionID: string, passed: boolean) {
      const found = yield* customers.findBindingByInteraction(interactionID)
      if (Option.isNone(found)) return yield* NotFound.of("Challenge", interactionID)
      const b = found.value
      // decided by the attempt that ran last (an attempt that lost a race runs again)
      let decided = false
      const binding = yield* transition(b.customerID, b.id, (x) => {
        decided = x.status === "pending" && x.interactionCompleted !== true
        return decided
          ? {
            binding: { ...x, interactionCompleted: true },
            changes: [{
              changeType: "CustomerBindingInteractionCompleted",
              customerBindingID: x.id,
              userInteraction: interactionOf(interactionID)
            }]
          }
          : undefined
      })
      if (!decided) return { binding, decided }
      const result = yield* acquirer.completeInteraction(`binding.${b.customerID}.${b.id}`, passed)
      yield* applyResult(b, result)
      return { binding: yield* loadBinding(b.customerID, b.id), decided }
    })

    return {
      create,
      get,
      delete: remove,
      accessToken,
      createBinding,
      bindings,
      binding,
      events: listEvents,
      paymentMethods,
      challenge,
      completeChallenge
    } as const
  }),
  dependencies: [ShopService.Default, PaymentResources.Default, AccessTokens.Default]
}) {}

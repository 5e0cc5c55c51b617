/**
 * createBinding: saves a tokenized card on a customer. The card must be a bank card the contract
 * enables; the binding is stored pending with its event and recovery timer, and the acquirer's
 * verification starts once that has committed.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { BusinessError } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Traced from "../internal/traced.js"
import { describeMethod } from "../payment/PaymentTool.js"
import { PARTY_NAMESPACE } from "../ports/Idempotency.js"
import { cardAllowed } from "../reference/Reference.js"
import * as Ref from "../Ref.js"
import { ADVANCE_TIMER, type BindingProcessing } from "./BindingProcessing.js"
import { type BindingParams, type BindingRecord, toBinding } from "./Customer.js"
import type { CustomerContext } from "./CustomerContext.js"

/** The idempotency operation of a binding's `externalID`. @since 0.1.0 */
export const BINDING_OPERATION = "customerBinding"

/** @since 0.1.0 @category constructors */
export const make = (ctx: CustomerContext, { verify }: BindingProcessing) => {
  const { customers, externalIDs, ids, load, loadBinding, now, resources, settings, shops, timers, tx } = ctx
  /** Its `externalID` is looked up in `namespace` (the party's own unless an access token sent it). */
  return Traced.fn("CustomerService.createBinding")(
    function*(partyID: string, customerID: string, params: BindingParams, namespace: string = PARTY_NAMESPACE) {
      const c = yield* load(partyID, customerID)
      const { institution } = yield* shops.requireActiveWithTerms(PartyID.make(partyID), ShopID.make(c.shopID))
      const resource = yield* resources.resolve(partyID, params.paymentResource.paymentToolToken, params.paymentResource.paymentSession)
      if (resource.tool.type !== "BankCard") {
        return yield* BusinessError.of("invalidPaymentResource", "Only bank cards can be bound to a customer")
      }
      if (!cardAllowed(institution.terms.paymentMethods, resource.tool.paymentSystem)) {
        return yield* BusinessError.of(
          "invalidPaymentResource",
          `Invalid payment method: ${describeMethod(resource.tool)} is not enabled by the contract`
        )
      }
      return yield* externalIDs.create({
        partyID,
        namespace,
        operation: BINDING_OPERATION,
        externalID: params.externalID,
        fingerprint: () => canonicalJson({ customerID, session: resource.session, tool: resource.tool }),
        ref: Ref.Binding,
        load: (ref) => loadBinding(ref.customerID, ref.bindingID)
      }, (claim) =>
        Effect.gen(function*() {
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
          const ref = { customerID, bindingID: binding.id }
          yield* tx.withTransaction(Effect.gen(function*() {
            yield* claim(ref)
            yield* customers.insertBinding(binding)
            yield* ctx.append(c, [{ changeType: "CustomerBindingStarted", customerBinding: toBinding(binding) }])
            yield* timers.schedule({
              kind: ADVANCE_TIMER,
              subject: Ref.Binding.encode(ref),
              dueAt: new Date(at.getTime() + settings.recoveryDelayMs),
              payload: null
            })
          }))
          yield* tx.background(verify(customerID, binding.id))
          return binding
        }))
    }
  )
}

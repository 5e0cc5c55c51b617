/**
 * Handlers of the Payments, Tokens and Accounts groups.
 *
 * @since 0.1.0
 */
import { Errors, Payment, PaymentResources, PaymentService, type PaymentTool, Principal } from "@kassa/core"
import { Ledger } from "@kassa/core/ports/Ledger"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { KassaApi } from "../../api/KassaApi.js"
import { externalIdNamespace, merchantOnly, merchantParty, namedParty, withResourceParty } from "../Caller.js"
import * as Group from "./Group.js"

// Charging a saved card (a customer's binding, a recurrent parent's token) is the merchant's
// decision: under an access token the payer pays with a tool of its own.
const merchantPayers: ReadonlySet<string> = new Set(["CustomerPayer", "RecurrentPayer"])

// The invoice access token authorises the payer's side: creating and reading payments.
const withPayer = <A, E, R>(invoiceID: string, f: (party: string) => Effect.Effect<A, E, R>) =>
  withResourceParty("invoice", invoiceID, "Invoice", f)
const payer = (invoiceID: string) => withPayer(invoiceID, Effect.succeed)

// An API key, an invoice access token (the payment form) or a customer access token (saving
// a card) may tokenize.
const tokenizer = Effect.flatMap(Principal.CurrentPrincipal, (p) =>
  p._tag === "ApiKey" || (p._tag === "AccessToken" && (p.resource === "invoice" || p.resource === "customer"))
    ? Effect.succeed(p.partyID)
    : Effect.fail(new Errors.Unauthorized({ message: "Tokenization needs an API key, an invoice access token or a customer access token" })))

/** The handlers the lean router serves too. @since 0.1.0 */
export const hot = Effect.gen(function*() {
  const payments = yield* PaymentService.PaymentService
  const resources = yield* PaymentResources.PaymentResources
  return {
    createPayment: ({ path, payload }: { readonly path: { readonly invoiceID: string }; readonly payload: typeof Payment.PaymentParams.Type }) =>
      Effect.gen(function*() {
        const party = yield* payer(path.invoiceID)
        const { payerType } = payload.payer
        if (merchantPayers.has(payerType)) yield* merchantOnly(`${payerType} needs an API key`)
        return yield* payments.create(party, path.invoiceID, payload, yield* externalIdNamespace)
      }).pipe(Effect.map(Payment.toPayment)),
    getPaymentByID: ({ path }: { readonly path: { readonly invoiceID: string; readonly paymentID: string } }) =>
      withPayer(path.invoiceID, (party) => payments.get(party, path.invoiceID, path.paymentID)).pipe(
        Effect.map(Payment.toPayment)
      ),
    createPaymentResource: ({ payload }: { readonly payload: PaymentTool.PaymentResourceParams }) =>
      Effect.flatMap(tokenizer, (party) => resources.create(party, payload))
  }
})

/** The Payments group's handlers, by operation. @since 0.1.0 @category handlers */
export const paymentsHandlers = Effect.gen(function*() {
  const payments = yield* PaymentService.PaymentService
  const served = yield* hot
  return Group.handlers(KassaApi, "Payments")({
    getPayments: ({ path }) =>
      withPayer(path.invoiceID, (party) => payments.list(party, path.invoiceID)).pipe(
        Effect.map((list) => list.map(Payment.toPayment))
      ),
    createPayment: served.createPayment,
    getPaymentByID: served.getPaymentByID,
    cancelPayment: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => payments.cancel(party, path.invoiceID, path.paymentID, payload.reason)),
    capturePayment: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => payments.capture(party, path.invoiceID, path.paymentID, payload)),
    getPaymentByExternalID: ({ urlParams }) =>
      Effect.flatMap(merchantParty, (party) => payments.getByExternalID(party, urlParams.externalID)).pipe(
        Effect.map(Payment.toPayment)
      ),
    getPaymentByExternalIDForParty: ({ path, urlParams }) =>
      Effect.flatMap(namedParty(path.partyID), (party) => payments.getByExternalID(party, urlParams.externalID)).pipe(
        Effect.map(Payment.toPayment)
      )
  })
})

const Payments = Group.layer(KassaApi, "Payments", paymentsHandlers)

/** The Tokens group's handlers, by operation. @since 0.1.0 @category handlers */
export const tokensHandlers = Effect.map(hot, (served) => Group.handlers(KassaApi, "Tokens")({
  createPaymentResource: served.createPaymentResource
}))

const Tokens = Group.layer(KassaApi, "Tokens", tokensHandlers)

/** The Accounts group's handlers, by operation. @since 0.1.0 @category handlers */
export const accountsHandlers = Effect.gen(function*() {
  const ledger = yield* Ledger
  return Group.handlers(KassaApi, "Accounts")({
    getAccountByID: ({ path }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        const found = yield* ledger.balance(path.accountID)
        if (Option.isNone(found) || found.value.key.partyID !== party) {
          return yield* Errors.NotFound.of("Account", path.accountID)
        }
        const b = found.value
        return { id: b.id, ownAmount: b.own, availableAmount: b.minAvailable, currency: b.currency }
      })
  })
})

const Accounts = Group.layer(KassaApi, "Accounts", accountsHandlers)

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Payments, Tokens, Accounts)

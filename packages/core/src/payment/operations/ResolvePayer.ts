/**
 * Payer resolution for a new payment: the tool the acquirer will charge, the payer as Kassa
 * answers it, and what two requests with one `externalID` must share about it. A payer is a
 * tokenized payment resource, the recurrent token of an earlier payment, or a customer's binding;
 * the contract must enable its method.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { BusinessError, type NotFound } from "../../Errors.js"
import type { InvoiceRecord } from "../../invoice/Invoice.js"
import type { PaymentResourceRecord } from "../../ports/PaymentResourceRepository.js"
import { cardAllowed, type PaymentInstitutionRecord } from "../../reference/Reference.js"
import type { PayerParams, PaymentRecord } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"
import { describeMethod, type StoredTool } from "../PaymentTool.js"

/** @since 0.1.0 @category models */
export interface ResolvedPayer {
  readonly tool: PaymentRecord["tool"]
  readonly payer: PaymentRecord["payer"]
  readonly vaultSession: string | undefined
  /** The payer's part of the request's fingerprint. */
  readonly toolKey: unknown
}

/**
 * A tool the contract does not enable, refused with a code of createPayment's (the reference
 * answers `invalidRequest` "Invalid payment method").
 */
const invalidMethod = (tool: StoredTool) =>
  BusinessError.of("invalidRequest", `Invalid payment method: ${describeMethod(tool)} is not enabled by the contract`)

/** @since 0.1.0 @category constructors */
export const make = ({ customers, invoices, load, resources }: PaymentContext) =>
(
  partyID: string,
  invoice: InvoiceRecord,
  institution: PaymentInstitutionRecord,
  payer: PayerParams,
  /** The payer's resource as read with the invoice, if it was. */
  known?: Option.Option<PaymentResourceRecord>
): Effect.Effect<ResolvedPayer, BusinessError | NotFound> =>
  Effect.gen(function*() {
    switch (payer.payerType) {
      case "PaymentResourcePayer": {
        const resource = yield* resources.resolve(partyID, payer.paymentToolToken, payer.paymentSession, known)
        const method = institution.terms.paymentMethods.find((m) => m.method === resource.tool.type)
        if (
          method === undefined ||
          (resource.tool.type === "BankCard" && !(method.paymentSystems ?? []).includes(resource.tool.paymentSystem)) ||
          ((resource.tool.type === "PaymentTerminal" || resource.tool.type === "DigitalWallet") &&
            !(method.providers ?? []).includes(resource.tool.provider))
        ) {
          return yield* invalidMethod(resource.tool)
        }
        return {
          tool: resource.tool,
          vaultSession: resource.vaultSession,
          toolKey: resource.tool,
          payer: {
            payerType: "PaymentResourcePayer",
            paymentToolToken: resource.token,
            paymentSession: resource.session,
            paymentToolDetails: resource.details,
            clientInfo: resource.clientInfo,
            contactInfo: payer.contactInfo,
            ...(payer.sessionInfo === undefined ? {} : { sessionInfo: payer.sessionInfo })
          }
        }
      }
      case "RecurrentPayer": {
        const parentRef = payer.recurrentParentPayment
        const bad = (message: string) => BusinessError.of("invalidRecurrentParent", message)
        const parentInvoice = yield* invoices.get(partyID, parentRef.invoiceID).pipe(
          Effect.catchTag("NotFound", () => bad("Parent invoice not found"))
        )
        const parent = yield* load(parentRef.invoiceID, parentRef.paymentID).pipe(
          Effect.catchTag("NotFound", () => bad("Parent payment not found"))
        )
        if (!parent.makeRecurrent || parent.recurrentToken === undefined) {
          return yield* bad("Parent payment has no recurrent token")
        }
        if (parentInvoice.shopID !== invoice.shopID) return yield* bad("Parent payment refers to another shop")
        if (parent.status === "failed") return yield* bad("Invalid parent payment status")
        return {
          tool: {
            type: "Recurrent",
            recurrentToken: parent.recurrentToken,
            ...(parent.tool.type === "BankCard" ? { paymentSystem: parent.tool.paymentSystem } : {})
          },
          vaultSession: undefined,
          toolKey: parentRef,
          payer: {
            payerType: "RecurrentPayer",
            contactInfo: payer.contactInfo,
            recurrentParentPayment: parentRef,
            ...("paymentToolDetails" in parent.payer && parent.payer.paymentToolDetails !== undefined
              ? { paymentToolDetails: parent.payer.paymentToolDetails }
              : {})
          }
        }
      }
      case "CustomerPayer": {
        const bad = (message: string) => BusinessError.of("invalidRequest", `payer.customerID: ${message}`)
        const customer = yield* customers.findById(partyID, payer.customerID)
        if (Option.isNone(customer) || customer.value.deletedAt !== undefined) return yield* bad("customer not found")
        if (customer.value.shopID !== invoice.shopID) return yield* bad("the customer belongs to another shop")
        const binding = (yield* customers.listBindings(payer.customerID))
          .filter((b) => b.status === "succeeded" && b.recurrentToken !== undefined)
          .at(-1)
        if (binding === undefined || binding.recurrentToken === undefined) return yield* bad("the customer has no succeeded binding")
        if (binding.tool.type === "BankCard" && !cardAllowed(institution.terms.paymentMethods, binding.tool.paymentSystem)) {
          return yield* invalidMethod(binding.tool)
        }
        return {
          tool: {
            type: "Recurrent",
            recurrentToken: binding.recurrentToken,
            ...(binding.tool.type === "BankCard" ? { paymentSystem: binding.tool.paymentSystem } : {})
          },
          vaultSession: undefined,
          toolKey: { customerID: payer.customerID },
          payer: {
            payerType: "CustomerPayer",
            customerID: payer.customerID,
            ...(binding.paymentResource.paymentToolDetails === undefined
              ? {}
              : { paymentToolDetails: binding.paymentResource.paymentToolDetails })
          }
        }
      }
    }
  })

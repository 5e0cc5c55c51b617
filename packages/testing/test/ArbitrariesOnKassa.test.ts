/**
 * Valid by construction means the domain takes the values too, not only the decoders: generated
 * invoices (with carts and allocations) and templates are created by Kassa's services on the
 * memory ports and on each dialect, with the shipped reference data whose test institution's
 * terms the arbitraries follow.
 */
import { assert, layer } from "@effect/vitest"
import { Kassa } from "@kassa/adapters"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import { InvoiceTemplateService } from "@kassa/core/invoice-template/InvoiceTemplateService"
import { Onboarding } from "@kassa/core/onboarding/Onboarding"
import * as Invoice from "@kassa/core/invoice/Invoice"
import * as InvoiceTemplate from "@kassa/core/invoice-template/InvoiceTemplate"
import { Arbitraries, Dialects, TestKassa } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

const samples = 100
const decodeInvoice = Schema.decodeUnknownSync(Invoice.InvoiceParams)
const decodeTemplate = Schema.decodeUnknownSync(InvoiceTemplate.CreateParams)

const merchant = (name: string) => Effect.flatMap(Onboarding, (onboarding) =>
  onboarding.onboard({
    email: `${name}@kassa.test`,
    paymentInstitutionID: 1,
    shops: [1, 2, 3].map((n) => ({ name: `Shop ${n}`, url: `https://shop${n}.kassa.test`, categoryID: 1, currency: "RUB" }))
  }))

const kassas: ReadonlyArray<readonly [string, Layer.Layer<Onboarding | InvoiceService | InvoiceTemplateService>]> = [
  ["memory", Kassa.layerMemory()],
  ...Dialects.dialects().map((dialect) => [dialect, TestKassa.layer(dialect, { webhooks: { run: false } })] as const)
]

for (const [backend, kassa] of kassas) {
  layer(kassa, { timeout: "60 seconds" })(`Arbitraries on Kassa [${backend}]`, (it) => {
    it.effect("every generated invoice, with its cart or allocation, is created as sent", () =>
      Effect.gen(function*() {
        const m = yield* merchant("invoices")
        const now = new Date(yield* Clock.currentTimeMillis)
        const [first, ...others] = m.shopIDs
        const generated = FastCheck.sample(
          Arbitraries.invoiceParams({ now, shopID: first!, currency: "RUB" }).chain((params) =>
            FastCheck.option(Arbitraries.allocationOf({ amount: params.amount, currency: params.currency, shopIDs: others }), {
              nil: undefined
            }).map((allocation) => (allocation === undefined ? params : { ...params, allocation }))
          ),
          samples
        )
        const invoices = yield* InvoiceService
        for (const [i, params] of generated.entries()) {
          // samples may repeat a short externalID, which would be another request's
          const { invoice } = yield* invoices.create(m.partyID, decodeInvoice({ ...params, externalID: `invoice-${i}` }))
          assert.strictEqual(invoice.amount, params.amount)
          assert.strictEqual(invoice.currency, params.currency)
          assert.strictEqual(invoice.status, "unpaid")
          assert.strictEqual(invoice.cart?.length, params.cart?.length)
          assert.strictEqual(invoice.allocation?.length, params.allocation?.length)
        }
      }))

    it.effect("every generated template is created", () =>
      Effect.gen(function*() {
        const m = yield* merchant("templates")
        const templates = yield* InvoiceTemplateService
        const generated = FastCheck.sample(Arbitraries.invoiceTemplateParams({ shopID: m.shopID, currency: "RUB" }), samples)
        for (const [i, params] of generated.entries()) {
          const created = yield* templates.create(m.partyID, decodeTemplate({ ...params, externalID: `template-${i}` }))
          assert.strictEqual(created.invoiceTemplate.shopID, m.shopID)
          assert.strictEqual(created.invoiceTemplate.details?.templateType, params.details?.templateType)
        }
      }))
  })
}

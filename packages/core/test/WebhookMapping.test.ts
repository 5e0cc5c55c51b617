import { assert, describe, it } from "@effect/vitest"
import type { Invoice } from "@kassa/core/invoice/Invoice"
import * as N from "@kassa/core/webhook/Notification"
import {
  decodeChanges,
  deliveredName,
  type InvoiceEvent,
  notificationsOf,
  type PaymentSnapshot,
  snapshotsAt,
  subscriptionFor,
  toWebhookDetails,
  toWebhookPayment,
  type WebhookChange
} from "@kassa/core/webhook/NotificationMapping"
import {
  type CustomerEvent,
  customerNotificationsOf,
  customerSnapshotsAt,
  decodeCustomerChanges
} from "@kassa/core/webhook/CustomerNotifications"
import { CustomersEventType, InvoicesEventType, InvoicesSubscription } from "@kassa/core/webhook/Webhook"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"

// ---------------------------------------------------------------------------------------------
// An independent check: the official Webhook Events document itself, read as JSON Schema, with
// unknown properties refused (the document does not forbid them; Kassa must not add any).
// ---------------------------------------------------------------------------------------------

const spec = JSON.parse(fs.readFileSync(new URL("../../../spec/webhook-events.openapi.json", import.meta.url), "utf8"))

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

const validateAgainstSpec = (value: unknown, ref = "#/components/schemas/Event"): ReadonlyArray<string> => {
  const errors: Array<string> = []
  const schemas = spec.components.schemas
  const resolve = (s: any): any => (s.$ref === undefined ? s : resolve(schemas[s.$ref.split("/").pop()]))
  /** The discriminated subtype a value picks, unless that discriminator was already followed. */
  const targetOf = (s: any, v: any, used: ReadonlySet<string>): string | undefined => {
    if (s.discriminator === undefined || used.has(s.discriminator.propertyName)) return undefined
    const tag = v?.[s.discriminator.propertyName]
    return s.discriminator.mapping?.[tag] ?? (schemas[tag] === undefined ? undefined : `#/components/schemas/${tag}`)
  }
  /** Every property the (resolved, dispatched, allOf-merged) schema declares for this value. */
  const propsOf = (schema: any, v: any, used: ReadonlySet<string>, acc: Set<string>): Set<string> => {
    const s = resolve(schema)
    const target = targetOf(s, v, used)
    if (target !== undefined) return propsOf({ $ref: target }, v, new Set([...used, s.discriminator.propertyName]), acc)
    for (const k of Object.keys(s.properties ?? {})) acc.add(k)
    for (const part of s.allOf ?? []) propsOf(part, v, used, acc)
    return acc
  }
  const check = (v: any, schema: any, at: string, used: ReadonlySet<string>, strict: boolean): void => {
    const s = resolve(schema)
    if (s.discriminator !== undefined && !used.has(s.discriminator.propertyName)) {
      const target = targetOf(s, v, used)
      if (target === undefined) return void errors.push(`${at}: unknown ${s.discriminator.propertyName} ${v?.[s.discriminator.propertyName]}`)
      return check(v, { $ref: target }, at, new Set([...used, s.discriminator.propertyName]), strict)
    }
    for (const part of s.allOf ?? []) check(v, part, at, used, false)
    if (s.enum !== undefined && !s.enum.includes(v)) errors.push(`${at}: ${JSON.stringify(v)} not in enum`)
    const type = s.type ?? (s.properties !== undefined || s.required !== undefined ? "object" : undefined)
    switch (type) {
      case "string":
        if (typeof v !== "string") return void errors.push(`${at}: expected a string`)
        if (s.pattern !== undefined && !new RegExp(s.pattern).test(v)) errors.push(`${at}: ${v} does not match ${s.pattern}`)
        if (s.maxLength !== undefined && v.length > s.maxLength) errors.push(`${at}: longer than ${s.maxLength}`)
        if (s.minLength !== undefined && v.length < s.minLength) errors.push(`${at}: shorter than ${s.minLength}`)
        if (s.format === "date-time" && !rfc3339.test(v)) errors.push(`${at}: not a date-time`)
        break
      case "integer":
        if (!Number.isInteger(v)) return void errors.push(`${at}: expected an integer`)
        if (s.minimum !== undefined && v < s.minimum) errors.push(`${at}: below ${s.minimum}`)
        break
      case "boolean":
        if (typeof v !== "boolean") errors.push(`${at}: expected a boolean`)
        break
      case "array":
        if (!Array.isArray(v)) return void errors.push(`${at}: expected an array`)
        if (s.minItems !== undefined && v.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`)
        if (s.maxItems !== undefined && v.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`)
        v.forEach((item: unknown, i: number) => check(item, s.items, `${at}[${i}]`, new Set(), true))
        break
      case "object": {
        if (v === null || typeof v !== "object" || Array.isArray(v)) return void errors.push(`${at}: expected an object`)
        for (const k of s.required ?? []) if (!(k in v)) errors.push(`${at}: ${k} is required`)
        for (const [k, sub] of Object.entries<any>(s.properties ?? {})) {
          if (k in v) check(v[k], sub, `${at}.${k}`, new Set(), true)
        }
        if (s.additionalProperties !== undefined && typeof s.additionalProperties === "object") {
          for (const [k, x] of Object.entries(v)) if (!(k in (s.properties ?? {}))) check(x, s.additionalProperties, `${at}.${k}`, new Set(), true)
        }
        if (strict && s.additionalProperties === undefined) {
          const allowed = propsOf(s, v, used, new Set())
          // Free-form objects (metadata, extraPaymentInfo) declare no properties.
          if (allowed.size > 0) for (const k of Object.keys(v)) if (!allowed.has(k)) errors.push(`${at}: unknown property ${k}`)
        }
        break
      }
    }
  }
  check(value, { $ref: ref }, "$", new Set(), true)
  return errors
}

const decodeStrict = Schema.decodeUnknownEither(N.Notification, { onExcessProperty: "error", errors: "all" })

/** Both checks: the schema Kassa declares, and the official document. */
const assertValid = (n: unknown) => {
  const decoded = decodeStrict(n)
  if (Either.isLeft(decoded)) assert.fail(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
  assert.deepStrictEqual(validateAgainstSpec(n), [], JSON.stringify(n))
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const CARD = "4242424242424242"
const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, s))

const invoice: Invoice = {
  id: "inv1",
  shopID: "shop1",
  externalID: "order-77",
  createdAt: at(0),
  dueDate: new Date(Date.UTC(2030, 0, 2)),
  amount: 1500,
  currency: "RUB",
  product: "Tea",
  description: "Green tea",
  cart: [
    { product: "tea", quantity: 2, price: 500, cost: 1000, taxMode: { type: "InvoiceLineTaxVAT", rate: "20%" } },
    { product: "cup", quantity: 1, price: 500, cost: 500 }
  ],
  metadata: { order: 77 },
  status: "unpaid"
}

const cardPayer = {
  payerType: "PaymentResourcePayer" as const,
  paymentToolToken: "pt.abc",
  paymentSession: "ps.def",
  paymentToolDetails: {
    detailsType: "PaymentToolDetailsBankCard" as const,
    cardNumberMask: "424242******4242",
    first6: "424242",
    last4: "4242",
    bin: "424242",
    lastDigits: "4242",
    paymentSystem: "visa"
  },
  clientInfo: { fingerprint: "fp-1", ip: "203.0.113.7", url: "https://shop.test/pay" },
  contactInfo: { email: "payer@kassa.test", phoneNumber: "+79990000000", firstName: "Ann" }
}

const payment = (overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot => ({
  id: "1",
  externalID: "pay-1",
  invoiceID: "inv1",
  createdAt: at(1),
  amount: 1500,
  currency: "RUB",
  flow: { type: "PaymentFlowInstant" },
  payer: cardPayer,
  transactionInfo: { rrn: "123456789012", approvalCode: "A1B2C3" },
  makeRecurrent: false,
  metadata: { a: 1 },
  status: "pending",
  fee: 45,
  ...overrides
})

const redirect = {
  interactionType: "Redirect" as const,
  request: {
    requestType: "BrowserPostRequest" as const,
    uriTemplate: "https://kassa.test/3ds/abc",
    form: [{ key: "PaReq", template: "xyz" }, { key: "TermUrl", template: "https://kassa.test/3ds/done" }]
  }
}

const refund = { id: "1", createdAt: at(9), amount: 500, currency: "RUB", reason: "broken cup", status: "pending" as const }

/** The whole life of an invoice: every change type, statuses moving event by event. */
const history: ReadonlyArray<InvoiceEvent> = [
  { id: 1, createdAt: at(0), changes: [{ changeType: "InvoiceCreated", invoice }] },
  { id: 2, createdAt: at(1), changes: [{ changeType: "PaymentStarted", payment: payment() }] },
  { id: 3, createdAt: at(2), changes: [{ changeType: "PaymentInteractionRequested", paymentID: "1", userInteraction: redirect }] },
  { id: 4, createdAt: at(3), changes: [{ changeType: "PaymentInteractionCompleted", paymentID: "1" }] },
  { id: 5, createdAt: at(4), changes: [{ changeType: "PaymentStatusChanged", paymentID: "1", status: "processed" }] },
  {
    id: 6,
    createdAt: at(5),
    changes: [
      { changeType: "PaymentStatusChanged", paymentID: "1", status: "captured" },
      { changeType: "InvoiceStatusChanged", status: "paid" }
    ]
  },
  { id: 7, createdAt: at(9), changes: [{ changeType: "RefundStarted", paymentID: "1", refund }] },
  { id: 8, createdAt: at(10), changes: [{ changeType: "RefundStatusChanged", paymentID: "1", refundID: "1", status: "succeeded" }] },
  { id: 9, createdAt: at(11), changes: [{ changeType: "InvoiceStatusChanged", status: "fulfilled", reason: "shipped" }] }
]

/** The records as they are now, after the whole history. */
const current = { invoice: { ...invoice, status: "fulfilled" as const, reason: "shipped" }, payments: [payment({ status: "captured" })] }

const notifications = (eventID: number) => {
  const snapshots = Option.getOrThrow(snapshotsAt(history, eventID, current))
  return notificationsOf(history.find((e) => e.id === eventID)!, snapshots)
}

// ---------------------------------------------------------------------------------------------

describe("NotificationMapping", () => {
  it("every change gives its notification, in the specification's shape", () => {
    const types = history.map((e) => notifications(e.id).map((n) => n.eventType))
    assert.deepStrictEqual(types, [
      ["InvoiceCreated"],
      ["PaymentStarted"],
      ["PaymentInteractionRequested"],
      ["PaymentInteractionCompleted"],
      ["PaymentProcessed"],
      ["PaymentCaptured", "InvoicePaid"],
      ["RefundCreated"],
      ["RefundSucceeded"],
      ["InvoiceFulfilled"]
    ])
    for (const e of history) for (const n of notifications(e.id)) assertValid(n)
  })

  it("a notification carries the event's id and time and the topic", () => {
    const [n] = notifications(5)
    assert.strictEqual(n!.eventID, 5)
    assert.strictEqual(n!.occuredAt, "2030-01-01T12:00:04.000Z")
    assert.strictEqual(n!.topic, "InvoicesTopic")
  })

  it("the invoice snapshot is the webhook shape: externalId, cart tax rate only, status as of the event", () => {
    const [created] = notifications(1) as ReadonlyArray<any>
    assert.deepStrictEqual(created.invoice, {
      id: "inv1",
      shopID: "shop1",
      createdAt: "2030-01-01T12:00:00.000Z",
      status: "unpaid",
      dueDate: "2030-01-02T00:00:00.000Z",
      amount: 1500,
      currency: "RUB",
      metadata: { order: 77 },
      product: "Tea",
      description: "Green tea",
      cart: [
        { product: "tea", quantity: 2, price: 500, cost: 1000, taxMode: { rate: "20%" } },
        { product: "cup", quantity: 1, price: 500, cost: 500 }
      ],
      externalId: "order-77"
    })
    const paid = notifications(6)[1] as any
    assert.strictEqual(paid.invoice.status, "paid")
    assert.notProperty(paid.invoice, "reason")
    const fulfilled = notifications(9)[0] as any
    assert.strictEqual(fulfilled.invoice.status, "fulfilled")
    assert.strictEqual(fulfilled.invoice.reason, "shipped")
  })

  it("the payment snapshot shows the status of its event, not the current one", () => {
    const statusIn = (eventID: number) => notifications(eventID).map((n: any) => n.payment?.status)
    assert.deepStrictEqual(statusIn(2), ["pending"])
    assert.deepStrictEqual(statusIn(5), ["processed"])
    assert.deepStrictEqual(statusIn(6), ["captured", undefined])
    // both notifications of one event see the event's whole outcome
    assert.strictEqual((notifications(6)[0] as any).invoice.status, "paid")
  })

  it("the payment is the webhook shape: card by bin and last digits, deprecated copies of the payer's data", () => {
    const [started] = notifications(2) as ReadonlyArray<any>
    assert.deepStrictEqual(started.payment, {
      id: "1",
      createdAt: "2030-01-01T12:00:01.000Z",
      status: "pending",
      amount: 1500,
      currency: "RUB",
      metadata: { a: 1 },
      paymentToolToken: "pt.abc",
      paymentSession: "ps.def",
      contactInfo: { email: "payer@kassa.test", phoneNumber: "+79990000000" },
      ip: "203.0.113.7",
      fingerprint: "fp-1",
      payer: {
        payerType: "PaymentResourcePayer",
        paymentToolToken: "pt.abc",
        paymentSession: "ps.def",
        paymentToolDetails: {
          detailsType: "PaymentToolDetailsBankCard",
          bin: "424242",
          lastDigits: "4242",
          cardNumberMask: "424242******4242",
          paymentSystem: "visa"
        },
        clientInfo: { ip: "203.0.113.7", fingerprint: "fp-1" },
        contactInfo: { email: "payer@kassa.test", phoneNumber: "+79990000000" }
      },
      fee: 45,
      rrn: "123456789012",
      externalId: "pay-1"
    })
    for (const e of history) for (const n of notifications(e.id)) assert.notInclude(JSON.stringify(n), CARD)
  })

  it("a failed payment carries {code, message, subError}", () => {
    const events: ReadonlyArray<InvoiceEvent> = [
      history[0]!,
      history[1]!,
      {
        id: 3,
        createdAt: at(3),
        changes: [{
          changeType: "PaymentStatusChanged",
          paymentID: "1",
          status: "failed",
          error: { code: "authorization_failed", subError: { code: "insufficient_funds" } }
        }]
      }
    ]
    const out = notificationsOf(events[2]!, Option.getOrThrow(snapshotsAt(events, 3, { payments: [payment()] })))
    assert.strictEqual(out[0]!.eventType, "PaymentFailed")
    assert.deepStrictEqual((out[0] as any).payment.error, {
      code: "authorization_failed",
      message: "authorization_failed: insufficient_funds",
      subError: { code: "insufficient_funds" }
    })
    assertValid(out[0])
  })

  it("every payment status has its event; cancelled and refunded too", () => {
    for (const [status, type] of [["cancelled", "PaymentCancelled"], ["refunded", "PaymentRefunded"], ["processed", "PaymentProcessed"]] as const) {
      const events: ReadonlyArray<InvoiceEvent> = [
        history[0]!,
        history[1]!,
        { id: 3, createdAt: at(3), changes: [{ changeType: "PaymentStatusChanged", paymentID: "1", status }] }
      ]
      const out = notificationsOf(events[2]!, Option.getOrThrow(snapshotsAt(events, 3, { payments: [payment()] })))
      assert.deepStrictEqual(out.map((n) => n.eventType), [type])
      assert.strictEqual((out[0] as any).payment.status, status)
      assertValid(out[0])
    }
  })

  it("an event that moves a payment twice (authorised and captured at once) notifies each move with its own status", () => {
    const events: ReadonlyArray<InvoiceEvent> = [
      history[0]!,
      history[1]!,
      {
        id: 3,
        createdAt: at(3),
        changes: [
          { changeType: "PaymentStatusChanged", paymentID: "1", status: "processed" },
          { changeType: "PaymentStatusChanged", paymentID: "1", status: "captured" },
          { changeType: "InvoiceStatusChanged", status: "paid" }
        ]
      }
    ]
    const out = notificationsOf(events[2]!, Option.getOrThrow(snapshotsAt(events, 3, { payments: [payment()] }))) as ReadonlyArray<any>
    assert.deepStrictEqual(
      out.map((n) => [n.eventType, n.payment?.status, n.invoice.status]),
      [["PaymentProcessed", "processed", "paid"], ["PaymentCaptured", "captured", "paid"], ["InvoicePaid", undefined, "paid"]]
    )
    for (const n of out) assertValid(n)
  })

  it("cancelled invoices notify; a return to unpaid does not", () => {
    const events: ReadonlyArray<InvoiceEvent> = [
      history[0]!,
      { id: 2, createdAt: at(2), changes: [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: "overdue" }] }
    ]
    const out = notificationsOf(events[1]!, Option.getOrThrow(snapshotsAt(events, 2)))
    assert.deepStrictEqual(out.map((n) => n.eventType), ["InvoiceCancelled"])
    assert.strictEqual((out[0] as any).invoice.reason, "overdue")
    assertValid(out[0])
    const back = notificationsOf({ id: 3, createdAt: at(3), changes: [{ changeType: "InvoiceStatusChanged", status: "unpaid" }] }, Option.getOrThrow(snapshotsAt(events, 2)))
    assert.deepStrictEqual(back, [])
  })

  it("interactions carry invoiceId, paymentId and the request as BrowserHTTPRequest", () => {
    const [requested] = notifications(3) as ReadonlyArray<any>
    assert.deepStrictEqual(requested, {
      eventID: 3,
      occuredAt: "2030-01-01T12:00:02.000Z",
      topic: "InvoicesTopic",
      eventType: "PaymentInteractionRequested",
      userInteractionDetails: {
        userInteractionType: "BrowserHTTPRequest",
        browserHTTPInfo: {
          requestType: "post",
          url: "https://kassa.test/3ds/abc",
          form: { PaReq: "xyz", TermUrl: "https://kassa.test/3ds/done" }
        }
      },
      invoiceId: "inv1",
      paymentId: "1"
    })
    // completed without its interaction repeats the one requested
    const [completed] = notifications(4) as ReadonlyArray<any>
    assert.deepStrictEqual(completed.userInteractionDetails, requested.userInteractionDetails)
  })

  it("refunds: created, pending, succeeded, failed", () => {
    const [created] = notifications(7) as ReadonlyArray<any>
    assert.deepStrictEqual(created.refund, {
      id: "1",
      createdAt: "2030-01-01T12:00:09.000Z",
      status: "pending",
      amount: 500,
      currency: "RUB",
      reason: "broken cup"
    })
    assert.strictEqual((notifications(8)[0] as any).refund.status, "succeeded")
    for (const [status, type] of [["failed", "RefundFailed"], ["pending", "RefundPending"]] as const) {
      const events: ReadonlyArray<InvoiceEvent> = [
        ...history.slice(0, 7),
        {
          id: 8,
          createdAt: at(10),
          changes: [{
            changeType: "RefundStatusChanged",
            paymentID: "1",
            refundID: "1",
            status,
            ...(status === "failed" ? { error: { code: "insufficient_funds", message: "no money" } } : {})
          }]
        }
      ]
      const out = notificationsOf(events[7]!, Option.getOrThrow(snapshotsAt(events, 8, current)))
      assert.deepStrictEqual(out.map((n) => n.eventType), [type])
      assertValid(out[0])
    }
  })

  it("subscription names and delivered names", () => {
    assert.strictEqual(deliveredName("PaymentRefundCreated"), "RefundCreated")
    assert.strictEqual(deliveredName("PaymentRefundSucceeded"), "RefundSucceeded")
    assert.strictEqual(deliveredName("PaymentRefundFailed"), "RefundFailed")
    assert.strictEqual(deliveredName("PaymentUserInteractionRequested"), "PaymentInteractionRequested")
    assert.strictEqual(deliveredName("PaymentUserInteractionCompleted"), "PaymentInteractionCompleted")
    for (const s of [...InvoicesSubscription.literals, ...CustomersEventType.literals]) {
      assert.strictEqual(subscriptionFor(deliveredName(s)), s)
    }
    // only the webhooks that asked for it by the webhook-events specification's name
    assert.strictEqual(subscriptionFor("PaymentChargedBack"), "PaymentChargedBack")
    assert.isUndefined(subscriptionFor("RefundPending"))
    assert.isUndefined(subscriptionFor("PaymentCashChanged"))
    assert.strictEqual(subscriptionFor("RefundCreated"), "PaymentRefundCreated")
    assert.strictEqual(InvoicesEventType.literals.length, 15)
    assert.strictEqual(CustomersEventType.literals.length, 6)
  })

  it("PaymentChargedBack: an invoice event of its own, the payment charged_back", () => {
    const stored = JSON.parse(JSON.stringify([{ changeType: "PaymentChargedBack", paymentID: "1", chargebackID: "cb1" }]))
    const event: InvoiceEvent = { id: 9, createdAt: at(30), changes: decodeChanges(stored) }
    const snapshots = Option.getOrThrow(snapshotsAt([...history, event], 9, current))
    const [out, ...more] = notificationsOf(event, snapshots)
    assert.deepStrictEqual(more, [])
    assertValid(out)
    assert.deepStrictEqual(
      { ...out!, invoice: undefined, payment: undefined },
      { eventID: 9, occuredAt: at(30).toISOString(), topic: "InvoicesTopic", eventType: "PaymentChargedBack", invoice: undefined, payment: undefined }
    )
    assert.strictEqual((out as typeof N.PaymentChargedBack.Type).payment.status, "charged_back")
    assert.strictEqual((out as typeof N.PaymentChargedBack.Type).invoice.id, invoice.id)
    // a payment the snapshots do not hold: nothing
    assert.deepStrictEqual(notificationsOf({ ...event, changes: decodeChanges([{ ...stored[0], paymentID: "2" }]) }, snapshots), [])
  })

  it("decodeChanges reads stored JSON and leaves out change types without notifications", () => {
    const stored = JSON.parse(JSON.stringify([
      { changeType: "InvoiceStatusChanged", status: "paid" },
      { changeType: "ChargebackChanged", chargeback: { id: "1" } },
      { changeType: "PaymentStarted", payment: { ...payment(), createdAt: at(1).toISOString() } }
    ]))
    const decoded: ReadonlyArray<WebhookChange> = decodeChanges(stored)
    assert.deepStrictEqual(decoded.map((c) => c.changeType), ["InvoiceStatusChanged", "PaymentStarted"])
  })

  it("payers of every kind and tool details of every kind fit the schema", () => {
    const variants: ReadonlyArray<PaymentSnapshot> = [
      payment({ payer: { payerType: "CustomerPayer", customerID: "cust1" } }),
      payment({
        payer: {
          payerType: "RecurrentPayer",
          contactInfo: { email: "r@kassa.test" },
          recurrentParentPayment: { invoiceID: "inv0", paymentID: "1" }
        }
      }),
      ...([
        { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "euroset" },
        { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "sbp" },
        { detailsType: "PaymentToolDetailsDigitalWallet", provider: "qiwi", digitalWalletDetailsType: "DigitalWalletDetailsQIWI", phoneNumberMask: "+7******4567" },
        { detailsType: "PaymentToolDetailsDigitalWallet", provider: "paypal" },
        { detailsType: "PaymentToolDetailsCryptoWallet", cryptoCurrency: "bitcoin" },
        { detailsType: "PaymentToolDetailsCryptoWallet", cryptoCurrency: "USDT" },
        { detailsType: "PaymentToolDetailsMobileCommerce", phoneNumber: "+7******4567" },
        { ...cardPayer.paymentToolDetails, tokenProvider: "ApplePay" }
      ] as const).map((paymentToolDetails) => payment({ payer: { ...cardPayer, paymentToolDetails } as any }))
    ]
    for (const p of variants) {
      const n = { eventID: 2, occuredAt: "2030-01-01T12:00:01.000Z", topic: "InvoicesTopic", eventType: "PaymentStarted", invoice: (notifications(1)[0] as any).invoice, payment: toWebhookPayment(p) }
      assertValid(n)
    }
    assert.deepStrictEqual(toWebhookDetails({ detailsType: "PaymentToolDetailsPaymentTerminal", provider: "sbp" }), {
      detailsType: "PaymentToolDetailsPaymentTerminal",
      provider: "unknown",
      providerName: "sbp"
    })
    assert.isUndefined(toWebhookDetails({ detailsType: "PaymentToolDetailsDigitalWallet", provider: "paypal" }))
    // a customer's payment has no session of its own: an empty one, as the schema requires one
    assert.strictEqual(toWebhookPayment(variants[0]!).paymentSession, "")
  })

  it("customer notifications have schemas too", () => {
    const customer = { id: "c1", shopID: "shop1", status: "ready", contactInfo: { email: "c@kassa.test" }, metadata: {} }
    const head = { eventID: 1, occuredAt: "2030-01-01T12:00:00Z", topic: "CustomersTopic" }
    assertValid({ ...head, eventType: "CustomerCreated", customer })
    assertValid({
      ...head,
      eventType: "CustomerBindingSucceeded",
      customer,
      binding: { id: "b1", status: "succeeded", paymentResource: { paymentToolToken: "pt", paymentSession: "ps" } }
    })
  })

  it("the checks catch what the schema forbids", () => {
    const [created] = notifications(1) as ReadonlyArray<any>
    const bad = { ...created, invoice: { ...created.invoice, externalID: "x" } }
    assert.isTrue(Either.isLeft(decodeStrict(bad)))
    assert.isAbove(validateAgainstSpec(bad).length, 0)
    const card = { ...(notifications(2)[0] as any) }
    card.payment = { ...card.payment, payer: { ...card.payment.payer, paymentToolDetails: { ...card.payment.payer.paymentToolDetails, cardNumber: CARD } } }
    assert.isTrue(Either.isLeft(decodeStrict(card)))
    assert.isAbove(validateAgainstSpec(card).length, 0)
  })
})

describe("CustomerNotifications", () => {
  const customer = {
    id: "cust1",
    externalID: "c-77",
    shopID: "shop1",
    partyID: "party1",
    contactInfo: { email: "c@kassa.test", phoneNumber: "+79990000000", firstName: "Ann" },
    status: "ready" as "ready" | "unready",
    metadata: { tier: "gold" }
  }
  const binding = {
    id: "b1",
    paymentResource: {
      paymentToolToken: "pt.abc",
      paymentSession: "ps.def",
      paymentToolDetails: cardPayer.paymentToolDetails,
      clientInfo: { fingerprint: "fp-1", ip: "203.0.113.7" }
    },
    status: "pending" as const
  }
  const history: ReadonlyArray<CustomerEvent> = [
    { id: 1, createdAt: at(0), changes: [{ changeType: "CustomerCreated" }] },
    { id: 2, createdAt: at(1), changes: [{ changeType: "CustomerBindingStarted", customerBinding: binding }] },
    { id: 3, createdAt: at(2), changes: [{ changeType: "CustomerBindingInteractionRequested", customerBindingID: "b1", userInteraction: redirect }] },
    {
      id: 4,
      createdAt: at(3),
      changes: [
        { changeType: "CustomerBindingStatusChanged", customerBindingID: "b1", status: "succeeded" },
        { changeType: "CustomerReady" }
      ]
    },
    { id: 5, createdAt: at(4), changes: [{ changeType: "CustomerDeleted" }] }
  ]
  const of = (events: ReadonlyArray<CustomerEvent>, id: number, current = customer) =>
    customerNotificationsOf(events.find((e) => e.id === id)!, Option.getOrThrow(customerSnapshotsAt(events, id, current)))

  it("every customer change gives its notification, in the specification's shape", () => {
    assert.deepStrictEqual(history.map((e) => of(history, e.id).map((n) => n.eventType)), [
      ["CustomerCreated"],
      ["CustomerBindingStarted"],
      [],
      ["CustomerBindingSucceeded", "CustomerReady"],
      ["CustomerDeleted"]
    ])
    for (const e of history) for (const n of of(history, e.id)) assertValid(n)
  })

  it("the customer and binding as of the event; the card by bin and last digits", () => {
    const [created] = of(history, 1) as ReadonlyArray<any>
    assert.deepStrictEqual(created, {
      eventID: 1,
      occuredAt: "2030-01-01T12:00:00.000Z",
      topic: "CustomersTopic",
      eventType: "CustomerCreated",
      customer: { id: "cust1", shopID: "shop1", status: "unready", contactInfo: { email: "c@kassa.test", phoneNumber: "+79990000000" }, metadata: { tier: "gold" } }
    })
    const [started] = of(history, 2) as ReadonlyArray<any>
    assert.strictEqual(started.binding.status, "pending")
    assert.deepStrictEqual(started.binding.paymentResource.paymentToolDetails, {
      detailsType: "PaymentToolDetailsBankCard",
      bin: "424242",
      lastDigits: "4242",
      cardNumberMask: "424242******4242",
      paymentSystem: "visa"
    })
    const [succeeded, ready] = of(history, 4) as ReadonlyArray<any>
    assert.strictEqual(succeeded.binding.status, "succeeded")
    assert.strictEqual(succeeded.customer.status, "ready")
    assert.strictEqual(ready.customer.status, "ready")
    for (const e of history) assert.notInclude(JSON.stringify(of(history, e.id)), CARD)
  })

  it("a failed binding carries its error; without the customer record there is nothing to send", () => {
    const failed: ReadonlyArray<CustomerEvent> = [
      history[0]!,
      history[1]!,
      {
        id: 3,
        createdAt: at(2),
        changes: [{ changeType: "CustomerBindingStatusChanged", customerBindingID: "b1", status: "failed", error: { code: "authorization_failed", message: "declined" } }]
      }
    ]
    const [n] = of(failed, 3, { ...customer, status: "unready" }) as ReadonlyArray<any>
    assert.strictEqual(n.eventType, "CustomerBindingFailed")
    assert.deepStrictEqual(n.binding.error, { code: "authorization_failed", message: "declined" })
    assertValid(n)
    assert.isTrue(Option.isNone(customerSnapshotsAt(history, 1, undefined)))
  })

  it("decodeCustomerChanges reads stored JSON", () => {
    const decoded = decodeCustomerChanges(JSON.parse(JSON.stringify([
      { changeType: "CustomerReady" },
      { changeType: "Nonsense" },
      { changeType: "CustomerBindingStatusChanged", customerBindingID: "b1", status: "succeeded" }
    ])))
    assert.deepStrictEqual(decoded.map((c) => c.changeType), ["CustomerReady", "CustomerBindingStatusChanged"])
  })
})

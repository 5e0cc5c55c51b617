import * as SqlClient from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { Jwt } from "@kassa/core/ports/Jwt"
import { Dialects, Fixtures, LedgerChecks, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

/**
 * createPaymentResource over HTTP. The suite runs on the real clock (`excludeTestServices`):
 * card expiry and token lifetimes are checked against today, and the payment some tests make
 * runs in the background.
 */

const CARD = "4242424242424242"
const CVV = "987"
/** The CVV as a value of its own: not a piece of a longer word or number (ids, ciphertexts, times). */
const CVV_ALONE = /(?<![0-9A-Za-z])987(?![0-9A-Za-z])/
const TOKEN_LIFETIME_MS = 64 * 60_000

const call = TestServer.call

const RESOURCES = "/v2/processing/payment-resources"

const tokenize = (token: string | undefined, paymentTool: unknown, clientInfo: unknown = { fingerprint: "device-1" }) =>
  call("POST", RESOURCES, token, { paymentTool, clientInfo })

const card = (overrides: Record<string, unknown> = {}) => ({
  paymentToolType: "CardData",
  cardNumber: CARD,
  expDate: "12/40",
  cvv: CVV,
  cardHolder: "Ivan Petrov",
  ...overrides
})

const invalidRequest = (response: TestServer.RawResponse, field: string) => {
  assert.strictEqual(response.status, 400, response.text)
  assert.strictEqual(response.json.code, "invalidRequest", response.text)
  assert.include(response.json.message, field, response.text)
}

/** Fails if the card number or the CVV shows in a text. */
const noSecrets = (text: string, where: string) => {
  assert.notInclude(text, CARD, `${where} shows the card number`)
  assert.notMatch(text, CVV_ALONE, `${where} shows the CVV`)
}

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const invoice = (shopID: string, token: string) =>
  Effect.map(
    call("POST", "/v2/processing/invoices", token, {
      shopID,
      dueDate: new Date(Date.now() + 86_400_000).toISOString(),
      amount: 1000,
      currency: "RUB",
      product: "Tea",
      metadata: {}
    }),
    (r) => {
      assert.strictEqual(r.status, 201, r.text)
      return { id: r.json.invoice.id as string, accessToken: r.json.invoiceAccessToken.payload as string }
    }
  )

/** Every text value of every row of every table. */
const everyText = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql.onDialectOrElse({
    pg: () =>
      sql.unsafe<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
      ),
    orElse: () => sql.unsafe<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
  })
  const out: Array<{ table: string; text: string }> = []
  for (const { name } of tables) {
    const rows = yield* sql.unsafe<Record<string, unknown>>(`SELECT * FROM ${name}`)
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (typeof value === "string") out.push({ table: name, text: value })
        else if (value !== null && typeof value === "object" && !(value instanceof Uint8Array) && !(value instanceof Date)) {
          out.push({ table: name, text: JSON.stringify(value) })
        }
      }
    }
  }
  return { tables: tables.map((t) => t.name), texts: out }
}).pipe(Effect.orDie)

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds", excludeTestServices: true })(`Tokenization [${dialect}]`, (it) => {
    it.effect("CardData: 201 with token, session, validUntil in 64 minutes and the card's details only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const before = Date.now()
        const response = yield* tokenize(m.apiKey, card(), { fingerprint: "device-1", ip: "203.0.113.7", url: "https://shop.test/pay" })
        const after = Date.now()
        assert.strictEqual(response.status, 201, response.text)
        const body = response.json
        assert.isString(body.paymentToolToken)
        assert.isAbove(body.paymentToolToken.length, 10)
        assert.isString(body.paymentSession)
        assert.isAbove(body.paymentSession.length, 10)
        assert.notStrictEqual(body.paymentToolToken, body.paymentSession)
        assert.match(body.validUntil, /(Z|[+-]\d{2}:\d{2})$/)
        const validUntil = new Date(body.validUntil).getTime()
        assert.isAtLeast(validUntil, before + TOKEN_LIFETIME_MS)
        assert.isAtMost(validUntil, after + TOKEN_LIFETIME_MS)
        assert.deepStrictEqual(body.paymentToolDetails, {
          detailsType: "PaymentToolDetailsBankCard",
          cardNumberMask: "424242******4242",
          first6: "424242",
          last4: "4242",
          bin: "424242",
          lastDigits: "4242",
          paymentSystem: "visa"
        })
        assert.deepStrictEqual(body.clientInfo, { fingerprint: "device-1", ip: "203.0.113.7", url: "https://shop.test/pay" })
        noSecrets(response.text, "the tokenization answer")
        // every call makes a fresh token and session
        const again = yield* tokenize(m.apiKey, card())
        assert.strictEqual(again.status, 201, again.text)
        assert.notStrictEqual(again.json.paymentToolToken, body.paymentToolToken)
        assert.notStrictEqual(again.json.paymentSession, body.paymentSession)
        // the CVV and the holder are optional
        const bare = yield* tokenize(m.apiKey, { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/2040" })
        assert.strictEqual(bare.status, 201, bare.text)
        assert.strictEqual(bare.json.paymentToolDetails.cardNumberMask, "424242******4242")
        // the typed client reads the same shape
        const api = yield* TestServer.client(m.apiKey)
        const typed = yield* api.Tokens.createPaymentResource({
          payload: { paymentTool: { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: CVV }, clientInfo: { fingerprint: "f" } }
        })
        assert.instanceOf(typed.validUntil, Date)
        assert.strictEqual(typed.paymentToolDetails.detailsType, "PaymentToolDetailsBankCard")
      }))

    it.effect("the payment system comes from the number: mastercard, nspkmir, amex (4-digit CVV)", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const cases: ReadonlyArray<readonly [string, string, string, string]> = [
          ["5555555555554444", "123", "mastercard", "555555******4444"],
          ["2200000000000004", "123", "nspkmir", "220000******0004"],
          ["378282246310005", "1234", "amex", "378282*****0005"],
          ["4000000000000002", "123", "visa", "400000******0002"]
        ]
        for (const [number, cvv, system, mask] of cases) {
          const response = yield* tokenize(m.apiKey, card({ cardNumber: number, cvv }))
          assert.strictEqual(response.status, 201, `${system}: ${response.text}`)
          assert.strictEqual(response.json.paymentToolDetails.paymentSystem, system)
          assert.strictEqual(response.json.paymentToolDetails.cardNumberMask, mask)
          assert.strictEqual(response.json.paymentToolDetails.first6, number.slice(0, 6))
          assert.strictEqual(response.json.paymentToolDetails.last4, number.slice(-4))
          assert.notInclude(response.text, number)
        }
      }))

    it.effect("a bad card is a 400 invalidRequest naming the field, never repeating the number or CVV", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const now = new Date()
        const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
        const mm = (d: Date) => String(d.getUTCMonth() + 1).padStart(2, "0")
        const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ cardNumber: "4242424242424241" }, "cardNumber"], // Luhn
          [{ cardNumber: "4242" }, "cardNumber"],
          [{ cardNumber: "42424242424242424242" }, "cardNumber"],
          [{ cardNumber: "4242 4242 4242 4242" }, "cardNumber"],
          [{ expDate: "01/20" }, "expDate"], // expired
          [{ expDate: `${mm(lastMonth)}/${lastMonth.getUTCFullYear()}` }, "expDate"], // expired last month
          [{ expDate: "13/30" }, "expDate"],
          [{ expDate: "00/30" }, "expDate"],
          [{ expDate: "1/30" }, "expDate"],
          [{ expDate: "12-30" }, "expDate"],
          [{ cvv: "1234" }, "cvv"], // visa takes 3 digits
          [{ cvv: "12" }, "cvv"],
          [{ cvv: "98a" }, "cvv"],
          [{ cardNumber: "378282246310005", cvv: "123" }, "cvv"], // amex takes 4
          [{ cardHolder: "R2 D2" }, "cardHolder"],
          [{ cardHolder: "" }, "cardHolder"]
        ]
        for (const [overrides, field] of cases) {
          const response = yield* tokenize(m.apiKey, card(overrides))
          invalidRequest(response, field)
          noSecrets(response.text, `the answer to ${JSON.stringify(overrides)}`)
          if (typeof overrides.cardNumber === "string") assert.notInclude(response.text, overrides.cardNumber)
        }
        for (const field of ["cardNumber", "expDate"]) {
          const tool: Record<string, unknown> = card()
          delete tool[field]
          invalidRequest(yield* tokenize(m.apiKey, tool), field)
        }
        // a card valid through the current month is accepted
        const thisMonth = yield* tokenize(m.apiKey, card({ expDate: `${mm(now)}/${String(now.getUTCFullYear()).slice(2)}` }))
        assert.strictEqual(thisMonth.status, 201, thisMonth.text)
        // clientInfo and its fingerprint are required
        invalidRequest(yield* tokenize(m.apiKey, card(), {}), "fingerprint")
        invalidRequest(yield* tokenize(m.apiKey, card(), { fingerprint: "" }), "fingerprint")
        invalidRequest(yield* tokenize(m.apiKey, card(), { ip: "203.0.113.7" }), "fingerprint")
        invalidRequest(yield* call("POST", RESOURCES, m.apiKey, { paymentTool: card() }), "clientInfo")
        invalidRequest(yield* call("POST", RESOURCES, m.apiKey, { clientInfo: { fingerprint: "f" } }), "paymentTool")
        invalidRequest(yield* tokenize(m.apiKey, { paymentToolType: "Cash" }), "paymentTool")
      }))

    it.effect("other payment tools: terminal, both wallet forms, crypto wallet, mobile commerce", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const details = (tool: unknown) =>
          Effect.map(tokenize(m.apiKey, tool), (r) => {
            assert.strictEqual(r.status, 201, r.text)
            assert.isString(r.json.paymentToolToken)
            assert.isString(r.json.paymentSession)
            return r.json.paymentToolDetails
          })
        assert.deepStrictEqual(yield* details({ paymentToolType: "PaymentTerminalData", provider: "euroset" }), {
          detailsType: "PaymentToolDetailsPaymentTerminal",
          provider: "euroset"
        })
        assert.deepStrictEqual(yield* details({ paymentToolType: "DigitalWalletData", id: "wallet-42", provider: "qiwi" }), {
          detailsType: "PaymentToolDetailsDigitalWallet",
          provider: "qiwi"
        })
        const qiwi = yield* details({ paymentToolType: "DigitalWalletData", digitalWalletType: "DigitalWalletQIWI", phoneNumber: "+79161234567" })
        assert.strictEqual(qiwi.detailsType, "PaymentToolDetailsDigitalWallet")
        assert.strictEqual(qiwi.digitalWalletDetailsType, "DigitalWalletDetailsQIWI")
        assert.strictEqual(qiwi.provider, "qiwi")
        assert.match(qiwi.phoneNumberMask, /^\+\d\*{1,10}\d{2,4}$/)
        assert.notInclude(qiwi.phoneNumberMask, "9161234567")
        assert.deepStrictEqual(yield* details({ paymentToolType: "CryptoWalletData", cryptoCurrency: "bitcoin" }), {
          detailsType: "PaymentToolDetailsCryptoWallet",
          cryptoCurrency: "bitcoin"
        })
        for (const [cc, ctn] of [["7", "9161234567"], ["44", "791112345678"], ["380", "501234567"], ["1", "2025550123"]] as const) {
          const r = yield* tokenize(m.apiKey, { paymentToolType: "MobileCommerceData", mobilePhone: { cc, ctn } })
          if (ctn.length < 10) {
            invalidRequest(r, "ctn")
            continue
          }
          assert.strictEqual(r.status, 201, r.text)
          assert.strictEqual(r.json.paymentToolDetails.detailsType, "PaymentToolDetailsMobileCommerce")
          assert.match(r.json.paymentToolDetails.phoneNumber, /^\+\d\*{1,10}\d{2,4}$/, `${cc} ${ctn}`)
          assert.isTrue(r.json.paymentToolDetails.phoneNumber.startsWith(`+${cc[0]}`))
          assert.isTrue(r.json.paymentToolDetails.phoneNumber.endsWith(ctn.slice(-2)))
          assert.notInclude(r.text, ctn)
        }
        invalidRequest(yield* tokenize(m.apiKey, { paymentToolType: "MobileCommerceData", mobilePhone: { cc: "7" } }), "ctn")
        invalidRequest(yield* tokenize(m.apiKey, { paymentToolType: "PaymentTerminalData" }), "provider")
        invalidRequest(yield* tokenize(m.apiKey, { paymentToolType: "CryptoWalletData", cryptoCurrency: "" }), "cryptoCurrency")
      }))

    it.effect("TokenizedCardData is refused with an honest 400: no wallet keys to decrypt it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const response = yield* tokenize(m.apiKey, {
          paymentToolType: "TokenizedCardData",
          provider: "ApplePay",
          merchantID: "merchant.test",
          paymentToken: { data: "opaque" }
        })
        assert.strictEqual(response.status, 400, response.text)
        assert.strictEqual(response.json.code, "invalidRequest")
        assert.include(response.json.message, "ApplePay")
        assert.match(response.json.message, /cannot be decrypted|not configured|no wallet provider/i)
        const google = yield* tokenize(m.apiKey, { paymentToolType: "TokenizedCardData", provider: "GooglePay", gatewayMerchantID: "g", paymentToken: {} })
        assert.strictEqual(google.status, 400, google.text)
        assert.include(google.json.message, "GooglePay")
      }))

    it.effect("who may tokenize: an API key, an invoice or a customer access token; a template token is 401", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const inv = yield* invoice(m.shopID, m.apiKey)
        const withInvoiceToken = yield* tokenize(inv.accessToken, card())
        assert.strictEqual(withInvoiceToken.status, 201, withInvoiceToken.text)
        assert.strictEqual(withInvoiceToken.json.paymentToolDetails.paymentSystem, "visa")
        // the invoice token's resource pays that invoice
        const pay = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, inv.accessToken, {
          flow: { type: "PaymentFlowInstant" },
          payer: {
            payerType: "PaymentResourcePayer",
            paymentToolToken: withInvoiceToken.json.paymentToolToken,
            paymentSession: withInvoiceToken.json.paymentSession,
            contactInfo: { email: "payer@kassa.test" }
          }
        })
        assert.strictEqual(pay.status, 201, pay.text)

        const api = yield* TestServer.client(m.apiKey)
        const template = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: {
            shopID: m.shopID,
            lifetime: { days: 3, months: 0, years: 0 },
            details: {
              templateType: "InvoiceTemplateSingleLine",
              product: "Donation",
              price: { costType: "InvoiceTemplateLineCostFixed", currency: "RUB", amount: 5000 }
            }
          }
        })
        const templateToken = template.invoiceTemplateAccessToken.payload
        const tokens = yield* Jwt
        const customerToken = yield* tokens.issue(
          { kind: "access", sub: m.partyID, jti: `c-${Date.now()}`, resource: "customer", resourceID: "customer-1" },
          new Date(Date.now() + 86_400_000)
        )
        // a customer access token saves a card for a binding: it may tokenize too
        const withCustomerToken = yield* tokenize(customerToken, card())
        assert.strictEqual(withCustomerToken.status, 201, withCustomerToken.text)
        noSecrets(withCustomerToken.text, "the tokenization answer")
        for (const [token, who] of [[templateToken, "template"], [undefined, "nobody"], ["garbage", "garbage"]] as const) {
          const response = yield* tokenize(token, card())
          assert.strictEqual(response.status, 401, `${who}: ${response.text}`)
          assert.strictEqual(response.text, "")
        }
        // the typed client sees Unauthorized
        const templateClient = yield* TestServer.client(templateToken)
        const error = yield* Effect.flip(
          templateClient.Tokens.createPaymentResource({
            payload: { paymentTool: { paymentToolType: "PaymentTerminalData", provider: "euroset" }, clientInfo: { fingerprint: "f" } }
          })
        )
        assert.strictEqual(error._tag, "Unauthorized")
        // wait for the payment to end before checking the ledger
        let status = "pending"
        for (let i = 0; i < 400 && (status === "pending" || status === "processed"); i++) {
          yield* sleepReal(25)
          status = (yield* call("GET", `/v2/processing/invoices/${inv.id}/payments/1`, m.apiKey)).json.status
        }
        assert.strictEqual(status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("the card number and CVV appear in no answer, no invoice event and no row of any table", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const inv = yield* invoice(m.shopID, m.apiKey)
        const resource = yield* tokenize(inv.accessToken, card())
        assert.strictEqual(resource.status, 201, resource.text)
        noSecrets(resource.text, "the tokenization answer")
        const created = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, {
          flow: { type: "PaymentFlowInstant" },
          payer: {
            payerType: "PaymentResourcePayer",
            paymentToolToken: resource.json.paymentToolToken,
            paymentSession: resource.json.paymentSession,
            contactInfo: { email: "payer@kassa.test" }
          }
        })
        assert.strictEqual(created.status, 201, created.text)
        noSecrets(created.text, "the createPayment answer")
        assert.strictEqual(created.json.payer.paymentToolDetails.cardNumberMask, "424242******4242")
        let payment = created
        for (let i = 0; i < 400 && payment.json.status !== "captured" && payment.json.status !== "failed"; i++) {
          yield* sleepReal(25)
          payment = yield* call("GET", `/v2/processing/invoices/${inv.id}/payments/1`, m.apiKey)
        }
        assert.strictEqual(payment.json.status, "captured", payment.text)
        noSecrets(payment.text, "getPaymentByID")
        noSecrets((yield* call("GET", `/v2/processing/invoices/${inv.id}/payments`, inv.accessToken)).text, "getPayments")
        const events = yield* call("GET", `/v2/processing/invoices/${inv.id}/events?limit=100`, m.apiKey)
        assert.strictEqual(events.status, 200)
        assert.include(events.text, "PaymentStarted")
        assert.include(events.text, "424242******4242")
        noSecrets(events.text, "the invoice events")
        // a failed tokenization leaves nothing either
        yield* tokenize(m.apiKey, card({ cvv: "9870" }))

        const { tables, texts } = yield* everyText
        for (const t of ["payment_resources", "payments", "vault_cards", "vault_sessions", "events", "ledger_batches"]) {
          assert.include(tables, t)
        }
        assert.isAbove(texts.length, 20)
        for (const { table, text } of texts) {
          assert.notInclude(text, CARD, `table ${table} holds the card number`)
          assert.notMatch(text, CVV_ALONE, `table ${table} holds the CVV: ${text.slice(0, 200)}`)
        }
        // the scan itself finds what is there: the mask and the token are stored
        assert.isTrue(texts.some((t) => t.text.includes("424242******4242")))
        assert.isTrue(texts.some((t) => t.text.includes(resource.json.paymentToolToken)))
        yield* LedgerChecks.invariants
      }))
  })
}

/**
 * A model-based runner in fast-check's `commands` style: random sequences of a merchant's
 * commands (create an invoice; pay it with a card of the test acquirer's table, instantly or on
 * hold, with a fresh card or as a recurrent payment; capture in full or in part; cancel; refund
 * in full, in part or too much; a chargeback accepted or rejected; the clock moving on) run
 * against Kassa's services and against `PaymentModel` side by side. After every command the run
 * checks that Kassa agrees with the model (every status, the shop's balance), that each status
 * only moved along its machine's legal moves, that money is conserved in the ledger, and that no
 * payment gave back more than it took.
 *
 * It runs inside a Kassa layer under `TestClock` (`TestKassa.layerMemory()`, `TestKassa.layer(d)`):
 * background work is settled after each command, time only moves by the `Advance` command. Each
 * run onboards a merchant of its own.
 *
 * ```ts
 * it.effect("money is conserved", () => ModelRunner.check({ numRuns: 20 }).pipe(Effect.provide(TestKassa.layerMemory())))
 * ```
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as TestAcquirer from "@kassa/adapters/TestAcquirer"
import { ChargebackCommand } from "@kassa/core/chargeback/Chargeback"
import { ChargebackService } from "@kassa/core/chargeback/ChargebackService"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import type { Onboarding } from "@kassa/core/onboarding/Onboarding"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { Ledger } from "@kassa/core/ports/Ledger"
import { RefundService } from "@kassa/core/refund/RefundService"
import { KassaSettings } from "@kassa/core/Settings"
import { PaymentResources } from "@kassa/core/tokenization/PaymentResources"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Fixtures from "./Fixtures.js"
import * as LedgerChecks from "./LedgerChecks.js"
import * as PaymentModel from "./PaymentModel.js"
import * as TestKassa from "./TestKassa.js"

/** What the runner calls. @since 0.1.0 @category models */
export type Services =
  | Onboarding
  | InvoiceService
  | PaymentService
  | PaymentResources
  | RefundService
  | ChargebackService
  | Ledger
  | KassaSettings

/** The Kassa a run drives: its merchant, and how to run an effect in the test's runtime. @since 0.1.0 @category models */
export interface Real {
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  readonly merchant: Fixtures.Merchant
  readonly interactionTimeoutMs: number
  /** The statuses last seen, by object, to check each move. */
  readonly seen: Map<string, string>
}

/** A command of the run. @since 0.1.0 @category models */
export type Command = FastCheck.AsyncCommand<PaymentModel.Model, Real, false>

class Mismatch extends Error {}

const expect = (condition: boolean, message: () => string) => {
  if (!condition) throw new Mismatch(message())
}

const errorCode = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error)

const now = Clock.currentTimeMillis

/** The cards the runner pays with: every outcome but the slow one (it sleeps on the clock). */
const cards = TestAcquirer.cards.filter((card) => card.outcome._tag !== "Slow")
const AUTHORISED = cards.find((card) => card.outcome._tag === "Authorized")!

const pick = <A>(items: ReadonlyArray<A>, n: number): A => items[n % items.length]!

const createInvoice = async (m: PaymentModel.Model, r: Real, amount: number, dueInMinutes: number) => {
  const created = await r.run(Fixtures.invoice(r.merchant, amount, { dueInMs: dueInMinutes * 60_000 }))
  const invoice: PaymentModel.ModelInvoice = { id: created.id, amount, dueAt: created.dueDate.getTime(), status: "unpaid" }
  m.invoices.push(invoice)
  return invoice
}

class CreateInvoice implements Command {
  constructor(readonly amount: number, readonly dueInMinutes: number) {}
  check = (m: Readonly<PaymentModel.Model>) => m.invoices.length < 8
  async run(m: PaymentModel.Model, r: Real) {
    await createInvoice(m, r, this.amount, this.dueInMinutes)
  }
  toString = () => `CreateInvoice(${this.amount}, due in ${this.dueInMinutes} min)`
}

class CreatePayment implements Command {
  constructor(
    readonly invoice: number,
    readonly card: TestAcquirer.TestCard,
    readonly flow: PaymentModel.ModelPayment["flow"],
    readonly onHoldExpiration: "cancel" | "capture",
    readonly payer: "PaymentResourcePayer" | "RecurrentPayer",
    readonly makeRecurrent: boolean,
    /** The invoice to create when none takes a payment. */
    readonly fresh: { readonly amount: number; readonly dueInMinutes: number }
  ) {}
  check = (m: Readonly<PaymentModel.Model>) => m.invoices.length < 8 || m.invoices.some((i) => PaymentModel.payable(m, i))
  async run(m: PaymentModel.Model, r: Real) {
    const payable = m.invoices.filter((i) => PaymentModel.payable(m, i))
    const invoice = payable.length > 0 ? pick(payable, this.invoice) : await createInvoice(m, r, this.fresh.amount, this.fresh.dueInMinutes)
    const parent = this.payer === "RecurrentPayer"
      ? m.payments.find((p) => p.recurrent === false && p.card === AUTHORISED && p.makeRecurrent && (p.status === "captured" || p.status === "refunded"))
      : undefined
    const card = parent?.card ?? this.card
    const { partyID } = r.merchant
    const flow = this.flow === "PaymentFlowInstant"
      ? { type: "PaymentFlowInstant" as const }
      : { type: "PaymentFlowHold" as const, onHoldExpiration: this.onHoldExpiration }
    const makeRecurrent = parent === undefined && this.makeRecurrent
    const payer = parent === undefined ? undefined : {
      payerType: "RecurrentPayer" as const,
      contactInfo: { email: "payer@kassa.test" },
      recurrentParentPayment: { invoiceID: parent.invoice.id, paymentID: parent.id }
    }
    const { at, payment } = await r.run(Effect.gen(function*() {
      const payments = yield* PaymentService
      const at = yield* now
      const started = yield* Fixtures.pay(r.merchant, invoice.id, {
        cardNumber: card.cardNumber,
        params: { flow, makeRecurrent, ...(payer === undefined ? {} : { payer }) }
      })
      yield* TestKassa.settle
      return { at, payment: yield* payments.get(partyID, invoice.id, started.id) }
    }))
    const p: PaymentModel.ModelPayment = {
      id: payment.id,
      invoice,
      card,
      flow: this.flow,
      onHoldExpiration: this.onHoldExpiration,
      heldUntil: payment.flow.type === "PaymentFlowHold" ? payment.flow.heldUntil?.getTime() : undefined,
      createdAt: at,
      recurrent: parent !== undefined,
      makeRecurrent,
      amount: invoice.amount,
      status: "pending",
      captured: 0,
      chargedBack: 0,
      refunds: []
    }
    m.payments.push(p)
    const status = PaymentModel.statusAfterCreate(card, this.flow)
    if (status === "captured") PaymentModel.capture(m, p, p.amount)
    else p.status = status
    if (status === "failed" && invoice.dueAt <= at) invoice.status = "cancelled"
  }
  toString = () =>
    `CreatePayment(invoice ${this.invoice}, ${this.card.cardNumber} ${this.card.outcome._tag}, ${this.flow}` +
    `${this.flow === "PaymentFlowHold" ? ` ${this.onHoldExpiration}` : ""}, ${this.payer}${this.makeRecurrent ? ", makeRecurrent" : ""})`
}

class Capture implements Command {
  constructor(readonly payment: number, readonly percent: number) {}
  check = (m: Readonly<PaymentModel.Model>) => m.payments.some((p) => p.status === "processed")
  async run(m: PaymentModel.Model, r: Real) {
    const p = pick(m.payments.filter((p) => p.status === "processed"), this.payment)
    const amount = this.percent >= 100 ? undefined : Math.max(1, Math.floor((p.amount * this.percent) / 100))
    const { partyID } = r.merchant
    await r.run(Effect.gen(function*() {
      yield* (yield* PaymentService).capture(partyID, p.invoice.id, p.id, { reason: "model", amount, currency: "RUB" })
      yield* TestKassa.settle
    }))
    PaymentModel.capture(m, p, amount ?? p.amount)
  }
  toString = () => `Capture(payment ${this.payment}, ${this.percent >= 100 ? "full" : `${this.percent} %`})`
}

class Cancel implements Command {
  constructor(readonly payment: number) {}
  check = (m: Readonly<PaymentModel.Model>) => m.payments.length > 0
  async run(m: PaymentModel.Model, r: Real) {
    const p = pick(m.payments, this.payment)
    const { partyID } = r.merchant
    const { at, result } = await r.run(Effect.gen(function*() {
      const result = yield* Effect.either((yield* PaymentService).cancel(partyID, p.invoice.id, p.id, "model"))
      yield* TestKassa.settle
      return { at: yield* now, result }
    }))
    if (p.status === "processed") {
      expect(Either.isRight(result), () => `cancelling ${p.invoice.id}/${p.id} (processed) failed: ${errorCode(Either.getLeft(result).pipe(Option.getOrUndefined))}`)
      p.status = "cancelled"
      if (p.invoice.dueAt <= at) p.invoice.status = "cancelled"
    } else {
      expect(Either.isLeft(result), () => `cancelling ${p.invoice.id}/${p.id} in status ${p.status} was accepted`)
    }
  }
  toString = () => `Cancel(payment ${this.payment})`
}

class Refund implements Command {
  constructor(readonly payment: number, readonly kind: "rest" | "part" | "over", readonly permille: number) {}
  check = (m: Readonly<PaymentModel.Model>) => m.payments.length > 0
  async run(m: PaymentModel.Model, r: Real) {
    const captured = m.payments.filter((p) => p.captured > 0)
    const p = pick(captured.length > 0 ? captured : m.payments, this.payment)
    const left = PaymentModel.refundable(p)
    const amount = Math.max(1, this.kind === "rest" ? left : this.kind === "part" ? Math.floor((left * this.permille) / 1000) : left + 1 + this.permille)
    const expected = PaymentModel.refundOutcome(m, p, amount)
    const { partyID } = r.merchant
    const result = await r.run(Effect.gen(function*() {
      const refunds = yield* RefundService
      const created = yield* Effect.either(refunds.create(partyID, p.invoice.id, p.id, { amount, currency: "RUB" }))
      if (Either.isLeft(created)) return Either.left(errorCode(created.left))
      yield* TestKassa.settle
      return Either.right(yield* refunds.get(partyID, p.invoice.id, p.id, created.right.id))
    }))
    if (expected._tag === "Refused") {
      expect(
        Either.isLeft(result) && result.left === expected.code,
        () => `refund of ${amount} on ${p.invoice.id}/${p.id} (${p.status}, refundable ${left}): expected ${expected.code}, got ${Either.isLeft(result) ? result.left : "accepted"}`
      )
      return
    }
    expect(Either.isRight(result), () => `refund of ${amount} on ${p.invoice.id}/${p.id} (refundable ${left}) refused: ${Either.isLeft(result) ? result.left : ""}`)
    if (Either.isRight(result)) {
      expect(result.right.status === expected.status, () => `refund of ${amount} on ${p.invoice.id}/${p.id}: expected ${expected.status}, got ${result.right.status}`)
      PaymentModel.refund(m, p, { id: result.right.id, amount, status: expected.status })
    }
  }
  toString = () => `Refund(payment ${this.payment}, ${this.kind}${this.kind === "rest" ? "" : ` ${this.permille}‰`})`
}

class Chargeback implements Command {
  constructor(readonly payment: number, readonly permille: number, readonly levy: number, readonly accept: boolean) {}
  check = (m: Readonly<PaymentModel.Model>) => m.payments.some((p) => p.status === "captured" && PaymentModel.refundable(p) > 0)
  async run(m: PaymentModel.Model, r: Real) {
    const p = pick(m.payments.filter((p) => p.status === "captured" && PaymentModel.refundable(p) > 0), this.payment)
    const body = Math.max(1, Math.floor((PaymentModel.refundable(p) * this.permille) / 1000))
    const { accept, levy } = this
    await r.run(Effect.gen(function*() {
      const chargebacks = yield* ChargebackService
      const opened = yield* chargebacks.open(p.invoice.id, p.id, { body, levy, currency: "RUB" })
      yield* chargebacks.command(p.invoice.id, p.id, opened.id, accept ? ChargebackCommand.Accept({}) : ChargebackCommand.Reject({}))
      yield* TestKassa.settle
    }))
    m.chargebacks += (accept ? body : 0) + levy
    m.shopBalance -= (accept ? body : 0) + levy
    if (accept) p.chargedBack += body
  }
  toString = () => `Chargeback(payment ${this.payment}, ${this.permille}‰, levy ${this.levy}, ${this.accept ? "accepted" : "rejected"})`
}

class Advance implements Command {
  constructor(readonly minutes: number) {}
  check = () => true
  async run(m: PaymentModel.Model, r: Real) {
    const at = await r.run(Effect.zipRight(TestKassa.advance(`${this.minutes} minutes`), now))
    PaymentModel.elapse(m, at, r.interactionTimeoutMs)
  }
  toString = () => `Advance(${this.minutes} min)`
}

/** A command checked by `verify` once it ran. */
class Checked implements Command {
  constructor(readonly command: Command) {}
  check = (m: Readonly<PaymentModel.Model>) => this.command.check(m)
  async run(m: PaymentModel.Model, r: Real) {
    await this.command.run(m, r)
    await verify(m, r)
  }
  toString = () => this.command.toString()
}

/** The demo's amounts, small ones often (where the fees matter). */
const amount = FastCheck.oneof(
  FastCheck.integer({ min: 1, max: 1_000 }),
  FastCheck.integer({ min: 1_000, max: 1_000_000 })
)

/** A card of the table, each outcome as likely (the table lists many declines). */
const card = FastCheck.constantFrom("Authorized", "RefundDeclined", "Declined", "ThreeDSecure").chain((outcome) =>
  FastCheck.constantFrom(...cards.filter((c) => c.outcome._tag === outcome))
)

const fresh = FastCheck.record({ amount, dueInMinutes: FastCheck.integer({ min: 1, max: 14 * 24 * 60 }) })
const newInvoice = fresh.map(({ amount, dueInMinutes }): Command => new CreateInvoice(amount, dueInMinutes))
const createPayment = FastCheck.tuple(
  FastCheck.nat(),
  card,
  FastCheck.constantFrom("PaymentFlowInstant" as const, "PaymentFlowHold" as const),
  FastCheck.constantFrom("cancel" as const, "capture" as const),
  FastCheck.constantFrom("PaymentResourcePayer" as const, "RecurrentPayer" as const),
  FastCheck.boolean(),
  fresh
).map(([i, card, flow, expiry, payer, recurrent, invoice]): Command =>
  new CreatePayment(i, card, flow, expiry, payer, recurrent, invoice)
)
const capture = FastCheck.tuple(FastCheck.nat(), FastCheck.integer({ min: 1, max: 120 }))
  .map(([i, pct]): Command => new Capture(i, pct))
const cancel = FastCheck.nat().map((i): Command => new Cancel(i))
const refund = FastCheck.tuple(
  FastCheck.nat(),
  FastCheck.constantFrom("rest" as const, "part" as const, "over" as const),
  FastCheck.integer({ min: 1, max: 999 })
).map(([i, kind, permille]): Command => new Refund(i, kind, permille))
const chargeback = FastCheck.tuple(
  FastCheck.nat(),
  FastCheck.integer({ min: 1, max: 1000 }),
  FastCheck.integer({ min: 0, max: 500 }),
  FastCheck.boolean()
).map(([i, permille, levy, accept]): Command => new Chargeback(i, permille, levy, accept))
// mostly minutes (a challenge times out after 15), sometimes days (holds, due dates)
const advance = FastCheck.oneof(FastCheck.integer({ min: 1, max: 60 }), FastCheck.integer({ min: 60, max: 10 * 24 * 60 })).map((minutes): Command => new Advance(minutes))

/**
 * Every command the runner knows, each checked by `verify` once it ran, as arbitraries for
 * `FastCheck.commands`; a command appears as often as it should be drawn (payments and refunds
 * most).
 *
 * @since 0.1.0 @category arbitraries
 */
export const commandArbitraries: ReadonlyArray<FastCheck.Arbitrary<Command>> = [
  newInvoice,
  createPayment,
  createPayment,
  createPayment,
  createPayment,
  capture,
  capture,
  cancel,
  refund,
  refund,
  refund,
  chargeback,
  advance,
  advance
].map((arbitrary) => arbitrary.map((command) => new Checked(command)))

/** Command sequences of at most `maxCommands` (default 30). @since 0.1.0 @category arbitraries */
export const commands = (options: { readonly maxCommands?: number | undefined } = {}) =>
  FastCheck.commands([...commandArbitraries], { maxCommands: options.maxCommands ?? 30, size: "max" })

/** What the real system holds: every account's `own`, by the ledger's port (memory) or tables (SQL). */
const ledgerViolations = Effect.gen(function*() {
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (Option.isSome(sql)) return yield* Effect.provideService(LedgerChecks.violations, SqlClient.SqlClient, sql.value)
  // the memory ledger numbers its accounts from 1: sum them all
  const ledger = yield* Ledger
  let total = 0
  for (let id = 1, gap = 0; gap < 16; id++) {
    const balance = yield* ledger.balance(id)
    if (Option.isNone(balance)) gap++
    else {
      gap = 0
      total += balance.value.own
    }
  }
  return total === 0 ? [] : [`the accounts' own sum to ${total}, not 0`]
})

const statusCheck = (r: Real, key: string, what: keyof typeof PaymentModel.legal, status: string, expected: string) => {
  const before = r.seen.get(key)
  const legal = PaymentModel.legal[what] as (from: string, to: string) => boolean
  expect(before === undefined || legal(before, status), () => `${key} moved from ${before} to ${status}: not a legal move`)
  r.seen.set(key, status)
  expect(status === expected, () => `${key} is ${status}, the model says ${expected}`)
}

/**
 * Checks Kassa against the model: every status (and that it moved legally since last seen), the
 * shop's balance, the refunds within the capture, and the ledger's invariants.
 *
 * @since 0.1.0
 */
export const verify = (m: PaymentModel.Model, r: Real): Promise<void> =>
  r.run(Effect.gen(function*() {
    const { partyID, shopID } = r.merchant
    const invoices = yield* InvoiceService
    const payments = yield* PaymentService
    const refunds = yield* RefundService
    for (const invoice of m.invoices) {
      statusCheck(r, `invoice ${invoice.id}`, "invoice", (yield* invoices.get(partyID, invoice.id)).status, invoice.status)
    }
    for (const p of m.payments) {
      const real = yield* payments.get(partyID, p.invoice.id, p.id)
      statusCheck(r, `payment ${p.invoice.id}/${p.id}`, "payment", real.status, p.status)
      const realRefunds = yield* refunds.list(partyID, p.invoice.id, p.id)
      const refunded = realRefunds.filter((x) => x.status === "succeeded").reduce((a, x) => a + x.amount, 0)
      expect(refunded <= p.captured, () => `payment ${p.invoice.id}/${p.id} refunded ${refunded} of ${p.captured} captured`)
      expect(PaymentModel.refundable(p) >= 0, () => `payment ${p.invoice.id}/${p.id}: the model refunded more than captured`)
      for (const refund of p.refunds) {
        const found = realRefunds.find((x) => x.id === refund.id)
        statusCheck(r, `refund ${p.invoice.id}/${p.id}/${refund.id}`, "refund", found?.status ?? "missing", refund.status)
      }
    }
    const ledger = yield* Ledger
    const balance = yield* ledger.balance(yield* ledger.account({ kind: "settlement", partyID, shopID, currency: "RUB" }))
    const own = Option.match(balance, { onNone: () => 0, onSome: (b) => b.own })
    expect(own === m.shopBalance, () => `the shop holds ${own}, the model says ${m.shopBalance}`)
    expect(m.chargebacks > 0 || own >= 0, () => `the shop's balance is negative (${own}) with no chargeback`)
    const violations = yield* ledgerViolations
    expect(violations.length === 0, () => `the ledger: ${violations.join("; ")}`)
  }))

/** @since 0.1.0 @category models */
export interface CheckOptions {
  /** How many command sequences (default 20). */
  readonly numRuns?: number | undefined
  /** At most this many commands per sequence (default 25). */
  readonly maxCommands?: number | undefined
  /** fast-check's seed and path, to replay a failure. */
  readonly seed?: number | undefined
  readonly path?: string | undefined
}

/**
 * Runs `numRuns` random command sequences, each for a new merchant, checking Kassa against the
 * model after every command; dies with fast-check's report (the shrunk sequence, seed and path)
 * on the first disagreement.
 *
 * @since 0.1.0
 */
export const check = (options: CheckOptions = {}): Effect.Effect<void, never, Services> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<Services>()
    const run = <A, E>(effect: Effect.Effect<A, E, Services>) => Runtime.runPromise(runtime)(Effect.orDie(effect))
    const { interactionTimeoutMs } = yield* KassaSettings
    const property = FastCheck.asyncProperty(commands(options), async (sequence) => {
      const merchant = await run(Fixtures.merchant())
      const real: Real = { run, merchant, interactionTimeoutMs, seen: new Map() }
      const model = PaymentModel.empty()
      await FastCheck.asyncModelRun(() => ({ model, real }), sequence)
    })
    yield* Effect.promise(() =>
      FastCheck.assert(property, {
        numRuns: options.numRuns ?? 20,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.path === undefined ? {} : { path: options.path })
      })
    )
  })

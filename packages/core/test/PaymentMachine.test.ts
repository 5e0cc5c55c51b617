import { assert, describe, it } from "@effect/vitest"
import * as Model from "@kassa/core/ledger/LedgerModel"
import type { Flow, PaymentStatus } from "@kassa/core/payment/Payment"
import * as PaymentCashFlow from "@kassa/core/payment/PaymentCashFlow"
import type { PaymentChange, UserInteraction } from "@kassa/core/payment/PaymentChange"
import * as PaymentError from "@kassa/core/payment/PaymentError"
import * as PaymentMachine from "@kassa/core/payment/PaymentMachine"
import type { Batch } from "@kassa/core/ports/Ledger"
import { paymentFee } from "@kassa/core/reference/Reference"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

type State = PaymentMachine.PaymentState
type Command = PaymentMachine.PaymentCommand

const { decide, legalMoves, PaymentCommand, AUTO_CAPTURE_REASON } = PaymentMachine

const FINAL: ReadonlyArray<PaymentStatus> = ["captured", "cancelled", "failed", "refunded"]
const CURRENCIES = ["RUB", "USD"] as const
const RUNS = { fastCheck: { numRuns: 200 } }
const TEST_FEES = { payment: { rateBasisPoints: 350, fixed: 0 }, refund: { fixed: 100 } }
/** 3.5 %, rounded half up: the test institution's fee, computed independently. */
const fee = (amount: number) => Math.floor((amount * 350 + 5000) / 10000)

// --- helpers -------------------------------------------------------------------------------

const deepFreeze = <A>(a: A): A => {
  if (a !== null && typeof a === "object") {
    for (const v of Object.values(a)) deepFreeze(v)
    Object.freeze(a)
  }
  return a
}

/** A plain picture of a value: `undefined` fields dropped, so shapes compare by content. */
const plain = (a: unknown): unknown => (a === undefined ? undefined : JSON.parse(JSON.stringify(a)))

const initial = (flow: Flow, currency: string, amount: number): State => ({
  id: "1",
  status: "pending",
  activity: "processing",
  flow,
  currency,
  amount,
  authorizedAmount: amount,
  capture: undefined,
  cancelReason: undefined,
  fee: 0
})

const redirect = (n: number): UserInteraction => ({
  interactionType: "Redirect",
  request: { requestType: "BrowserGetRequest", uriTemplate: `https://kassa.test/3ds/${n}` }
})

const authorize = (transactionInfo: { rrn: string; approvalCode: string }, recurrentToken?: string) =>
  PaymentCommand.Authorized({ transactionInfo, recurrentToken, fees: TEST_FEES })

/** A merchant's capture with no cart or allocation. */
const captureOf = (reason: string, amount: number | undefined, currency: string | undefined) =>
  PaymentCommand.Capture({ reason, amount, currency, cart: undefined, allocation: undefined, fees: TEST_FEES })

// --- arbitraries ---------------------------------------------------------------------------

const flowArb: FastCheck.Arbitrary<Flow> = FastCheck.oneof(
  FastCheck.constant<Flow>({ type: "PaymentFlowInstant" }),
  FastCheck.constantFrom("cancel" as const, "capture" as const).map((onHoldExpiration): Flow => ({
    type: "PaymentFlowHold",
    onHoldExpiration,
    heldUntil: new Date(7 * 86_400_000)
  }))
)

const amountArb = FastCheck.oneof(
  FastCheck.integer({ min: 1, max: 1_000_000 }),
  FastCheck.constantFrom(1, 2, 28, 29, 100, 1000)
)

const errorArb = FastCheck.constantFrom(...PaymentError.TREE).map((path) => PaymentError.of(...path))

/**
 * A command, before it meets a payment: a capture names its amount relative to the payment's
 * (`ratio`), so that the amounts around the authorised one are tried often.
 */
type CommandSpec =
  | { readonly _tag: "Fixed"; readonly command: Command }
  | {
    readonly _tag: "Capture"
    readonly amount: "none" | { readonly ratio: number } | { readonly delta: number }
    readonly currency: string | undefined
    readonly reason: string
    /** A final cart of one line costing the captured amount. */
    readonly withCart: boolean
  }

const fixed = (command: Command): CommandSpec => ({ _tag: "Fixed", command })

const commandArb: FastCheck.Arbitrary<CommandSpec> = FastCheck.oneof(
  { weight: 2, arbitrary: FastCheck.nat(99).map((n) => fixed(PaymentCommand.InteractionRequested({ interactionID: String(n), userInteraction: redirect(n) }))) },
  {
    weight: 2,
    arbitrary: FastCheck.option(FastCheck.nat(99), { nil: undefined }).map((n) =>
      fixed(PaymentCommand.InteractionCompleted({ userInteraction: n === undefined ? undefined : redirect(n) }))
    )
  },
  {
    weight: 3,
    arbitrary: FastCheck.tuple(FastCheck.nat(999_999), FastCheck.nat(999_999), FastCheck.option(FastCheck.hexaString({ minLength: 1 }), { nil: undefined }))
      .map(([r, a, recurrentToken]) =>
        fixed(authorize({ rrn: String(r).padStart(12, "0"), approvalCode: String(a).padStart(6, "0") }, recurrentToken))
      )
  },
  { weight: 1, arbitrary: errorArb.map((error) => fixed(PaymentCommand.Declined({ error }))) },
  { weight: 1, arbitrary: FastCheck.constant(fixed(PaymentCommand.DeadlineReached())) },
  {
    weight: 4,
    arbitrary: FastCheck.record({
      amount: FastCheck.oneof(
        FastCheck.constant("none" as const),
        FastCheck.double({ min: 0, max: 1.5, noNaN: true }).map((ratio) => ({ ratio })),
        FastCheck.integer({ min: -2, max: 2 }).map((delta) => ({ delta }))
      ),
      currency: FastCheck.constantFrom(undefined, "RUB", "USD", "EUR"),
      reason: FastCheck.string({ maxLength: 10 }),
      withCart: FastCheck.boolean()
    }).map((c): CommandSpec => ({ _tag: "Capture", ...c }))
  },
  { weight: 2, arbitrary: FastCheck.string({ maxLength: 10 }).map((reason) => fixed(PaymentCommand.Cancel({ reason }))) },
  { weight: 2, arbitrary: FastCheck.constant(fixed(PaymentCommand.HoldExpired())) },
  { weight: 3, arbitrary: FastCheck.constant(fixed(PaymentCommand.Finished())) }
)

/** The command a spec makes for a payment of `authorized`: capture amounts stay ≥ 1. */
const resolve = (spec: CommandSpec, authorized: number): Command => {
  if (spec._tag === "Fixed") return spec.command
  const amount = spec.amount === "none"
    ? undefined
    : "ratio" in spec.amount
    ? Math.max(1, Math.round(authorized * spec.amount.ratio))
    : Math.max(1, authorized + spec.amount.delta)
  if (!spec.withCart) return captureOf(spec.reason, amount, spec.currency)
  const cost = amount ?? authorized
  return PaymentCommand.Capture({
    reason: spec.reason,
    amount,
    currency: spec.currency,
    cart: [{ product: "line", quantity: 1, price: cost, cost }],
    allocation: undefined,
    fees: TEST_FEES
  })
}

const scenarioArb = FastCheck.record({
  flow: flowArb,
  currency: FastCheck.constantFrom(...CURRENCIES),
  amount: amountArb,
  commands: FastCheck.array(commandArb, { minLength: 1, maxLength: 30 })
})

// --- the oracle: what each command must do, written from the transition table ---------------

type Expected =
  | { readonly _tag: "refused"; readonly code: string }
  | { readonly _tag: "next"; readonly state: State; readonly changes: ReadonlyArray<PaymentChange> }

const statusChanged = (s: State): PaymentChange =>
  s.error === undefined
    ? { changeType: "PaymentStatusChanged", paymentID: s.id, status: s.status }
    : { changeType: "PaymentStatusChanged", paymentID: s.id, status: s.status, error: s.error }

const unchanged = (s: State): Expected => ({ _tag: "next", state: s, changes: [] })

const merchantRefusal = (s: State): string | undefined =>
  s.status !== "processed" || s.activity !== "waiting"
    ? "invalidPaymentStatus"
    : s.flow.type !== "PaymentFlowHold"
    ? "operationNotPermitted"
    : undefined

const oracle = (s: State, c: Command): Expected => {
  const authorising = s.activity === "processing" || s.activity === "interaction"
  const failWith = (error: PaymentError.PaymentError): Expected => {
    const next: State = { ...s, status: "failed", activity: "done", error }
    return { _tag: "next", state: next, changes: [statusChanged(next)] }
  }
  switch (c._tag) {
    case "InteractionRequested":
      return s.activity === "processing"
        ? {
          _tag: "next",
          state: { ...s, activity: "interaction", interactionID: c.interactionID },
          changes: [{ changeType: "PaymentInteractionRequested", paymentID: s.id, userInteraction: c.userInteraction }]
        }
        : unchanged(s)
    case "InteractionCompleted":
      return s.activity === "interaction"
        ? {
          _tag: "next",
          state: { ...s, activity: "processing" },
          changes: [
            c.userInteraction === undefined
              ? { changeType: "PaymentInteractionCompleted", paymentID: s.id }
              : { changeType: "PaymentInteractionCompleted", paymentID: s.id, userInteraction: c.userInteraction }
          ]
        }
        : unchanged(s)
    case "Authorized": {
      if (!authorising) return unchanged(s)
      const processed: State = {
        ...s,
        status: "processed",
        activity: "waiting",
        transactionInfo: c.transactionInfo,
        recurrentToken: c.recurrentToken,
        fee: fee(s.amount)
      }
      return s.flow.type === "PaymentFlowInstant"
        ? {
          _tag: "next",
          state: { ...processed, activity: "capturing", capture: { amount: s.amount, reason: AUTO_CAPTURE_REASON } },
          changes: [statusChanged(processed)]
        }
        : { _tag: "next", state: processed, changes: [statusChanged(processed)] }
    }
    case "Declined":
      return authorising ? failWith(c.error) : unchanged(s)
    case "DeadlineReached":
      return authorising ? failWith({ code: "authorization_failed", subError: { code: "processing_deadline_reached" } }) : unchanged(s)
    case "Capture": {
      const refused = merchantRefusal(s)
      if (refused !== undefined) return { _tag: "refused", code: refused }
      if (c.currency !== undefined && c.currency !== s.currency) return { _tag: "refused", code: "inconsistentCaptureCurrency" }
      const amount = c.amount ?? s.authorizedAmount
      if (amount > s.authorizedAmount) return { _tag: "refused", code: "amountExceededCaptureBalance" }
      const capturedFee = amount === s.authorizedAmount ? s.fee : fee(amount)
      const capture = {
        amount,
        reason: c.reason,
        ...(c.cart === undefined ? {} : { cart: c.cart }),
        ...(c.allocation === undefined ? {} : { allocation: c.allocation })
      }
      return { _tag: "next", state: { ...s, activity: "capturing", capture, fee: capturedFee }, changes: [] }
    }
    case "Cancel": {
      const refused = merchantRefusal(s)
      if (refused !== undefined) return { _tag: "refused", code: refused }
      return { _tag: "next", state: { ...s, activity: "cancelling", cancelReason: c.reason }, changes: [] }
    }
    case "HoldExpired":
      if (s.status !== "processed" || s.activity !== "waiting" || s.flow.type !== "PaymentFlowHold") return unchanged(s)
      return s.flow.onHoldExpiration === "capture"
        ? {
          _tag: "next",
          state: { ...s, activity: "capturing", capture: { amount: s.authorizedAmount, reason: AUTO_CAPTURE_REASON } },
          changes: []
        }
        : { _tag: "next", state: { ...s, activity: "cancelling" }, changes: [] }
    case "Finished": {
      if (s.activity === "capturing" && s.capture !== undefined) {
        const { allocation, cart } = s.capture
        const next: State = {
          ...s,
          status: "captured",
          activity: "done",
          amount: s.capture.amount,
          ...(cart === undefined ? {} : { cart }),
          ...(allocation === undefined ? {} : { allocation })
        }
        return { _tag: "next", state: next, changes: [statusChanged(next)] }
      }
      if (s.activity === "cancelling") {
        const next: State = { ...s, status: "cancelled", activity: "done" }
        return { _tag: "next", state: next, changes: [statusChanged(next)] }
      }
      return unchanged(s)
    }
  }
}

/** Runs one command against the machine, checking every general property; answers the next state. */
const step = (state: State, command: Command): State => {
  const input = deepFreeze(structuredClone(state))
  const before = plain(input)
  const result = decide(input, command)
  assert.deepStrictEqual(plain(input), before, "decide never mutates its input")
  const expected = oracle(state, command)
  const where = `${command._tag} on ${state.status}/${state.activity} (${state.flow.type})`

  if (Either.isLeft(result)) {
    // Only the merchant's commands are refused; the acquirer's and the timers' never are.
    assert.include(["Capture", "Cancel"], command._tag, `${where}: refused ${result.left.code}`)
    assert.strictEqual(result.left._tag, "BusinessError")
    assert.strictEqual(expected._tag, "refused", `${where}: refused with ${result.left.code}: ${result.left.message}`)
    if (expected._tag === "refused") assert.strictEqual(result.left.code, expected.code, where)
    if (result.left.code === "inconsistentCaptureCurrency") assert.include(result.left.message, state.currency)
    if (result.left.code === "amountExceededCaptureBalance") assert.include(result.left.message, String(state.authorizedAmount))
    return state
  }

  const { changes, state: next } = result.right
  assert.strictEqual(expected._tag, "next", `${where}: accepted, expected ${expected._tag === "refused" ? expected.code : ""}`)
  if (expected._tag === "next") {
    assert.deepStrictEqual(plain(next), plain(expected.state), where)
    assert.deepStrictEqual(plain(changes), plain(expected.changes), where)
  }

  // statuses move only along legalMoves; a final status never changes (nor does anything else)
  if (next.status !== state.status) assert.include(legalMoves[state.status], next.status, where)
  if (FINAL.includes(state.status)) {
    assert.deepStrictEqual(plain(next), plain(state), `${where}: a final payment changes nothing`)
    assert.deepStrictEqual(changes, [])
  }
  // exactly one PaymentStatusChanged per status change, naming the new status
  const statusChanges = changes.filter((c) => c.changeType === "PaymentStatusChanged")
  assert.strictEqual(statusChanges.length, next.status === state.status ? 0 : 1, where)
  if (statusChanges[0]?.changeType === "PaymentStatusChanged") assert.strictEqual(statusChanges[0].status, next.status)
  // the authorised amount never moves; a capture takes 0 < amount ≤ authorised
  assert.strictEqual(next.authorizedAmount, state.authorizedAmount)
  if (next.capture !== undefined) {
    assert.isAbove(next.capture.amount, 0, where)
    assert.isAtMost(next.capture.amount, next.authorizedAmount, where)
  }
  if (next.status === "captured") {
    assert.isAbove(next.amount, 0)
    assert.isAtMost(next.amount, next.authorizedAmount)
    assert.strictEqual(next.amount, next.capture?.amount)
  } else {
    assert.strictEqual(next.amount, next.authorizedAmount, `${where}: the amount moves only at capture`)
  }
  // the fee is the platform's share of the amount the payment books: set by the authorisation,
  // set again by a partial capture, never above the amount
  assert.isAtMost(next.fee, next.amount, where)
  if (next.status !== "pending" && next.status !== "failed") {
    assert.strictEqual(next.fee, fee(next.capture?.amount ?? next.amount), `${where}: fee`)
  }
  // a captured payment carries the cart its capture sent, else the one it had
  if (next.status === "captured" && state.status !== "captured") {
    assert.deepStrictEqual(plain(next.cart), plain(state.capture?.cart ?? state.cart), where)
  } else {
    assert.deepStrictEqual(plain(next.cart), plain(state.cart), `${where}: the cart moves only at capture`)
  }
  // activities belong to their statuses
  const activities: Record<PaymentStatus, ReadonlyArray<string>> = {
    pending: ["processing", "interaction"],
    processed: ["waiting", "capturing", "cancelling"],
    captured: ["done"],
    cancelled: ["done"],
    failed: ["done"],
    refunded: ["done"]
  }
  assert.include(activities[next.status], next.activity, where)
  if (next.status === "failed") assert.isDefined(next.error)
  // the instant flow is captured right after its authorisation
  if (command._tag === "Authorized" && state.status === "pending" && next.flow.type === "PaymentFlowInstant") {
    assert.strictEqual(next.status, "processed")
    assert.strictEqual(next.activity, "capturing")
    assert.deepStrictEqual(plain(next.capture), { amount: state.amount, reason: AUTO_CAPTURE_REASON })
  }
  if (next.flow.type === "PaymentFlowInstant") assert.notStrictEqual(next.activity, "waiting", "an instant payment never waits")
  // the hold's expiry follows onHoldExpiration
  if (command._tag === "HoldExpired" && state.activity === "waiting" && state.flow.type === "PaymentFlowHold") {
    assert.strictEqual(next.activity, state.flow.onHoldExpiration === "capture" ? "capturing" : "cancelling")
    if (state.flow.onHoldExpiration === "capture") assert.strictEqual(next.capture?.amount, state.authorizedAmount)
  }
  return next
}

// --- the ledger of payments, simulated with LedgerModel ----------------------------------------

const ACCOUNTS: Record<string, PaymentCashFlow.FlowAccounts> = {
  RUB: { provider: 1, shop: 2, system: 3, targets: new Map() },
  USD: { provider: 11, shop: 12, system: 13, targets: new Map() }
}

const openLedger = (): Model.LedgerState => {
  let ledger = Model.empty
  for (const [currency, a] of Object.entries(ACCOUNTS)) {
    for (const id of [a.provider, a.shop, a.system]) ledger = Model.withAccount(ledger, Model.makeAccount(id, currency))
  }
  return ledger
}

const ok = <A>(e: Either.Either<A, Model.LedgerError>): A => {
  if (Either.isLeft(e)) return assert.fail(`ledger refused: ${e.left.reason}`)
  return e.right
}

/** The ledger's part of a transition, as the service books it (with the fee of the captured amount). */
const book = (ledger: Model.LedgerState, planID: string, before: State, after: State): Model.LedgerState => {
  const accounts = ACCOUNTS[after.currency]!
  let next = ledger
  if (before.status === "pending" && after.status === "processed") {
    next = ok(Model.hold(next, planID, {
      id: 1,
      postings: PaymentCashFlow.postings(accounts, after.currency, after.amount, after.fee, undefined)
    }))
  }
  if (before.activity === "waiting" && after.activity === "capturing" && after.capture !== undefined) {
    const c = after.capture
    if (c.amount !== before.authorizedAmount) {
      const first: Batch = next.plans.get(planID)!.batches[0]!
      next = ok(Model.hold(next, planID, PaymentCashFlow.reverse(2, first)))
      next = ok(Model.hold(next, planID, {
        id: 3,
        postings: PaymentCashFlow.postings(accounts, after.currency, c.amount, after.fee, undefined)
      }))
    }
  }
  if (after.status === "captured" && before.status !== "captured") next = ok(Model.commit(next, planID))
  if ((after.status === "failed" || after.status === "cancelled") && before.status !== after.status) {
    if (next.plans.has(planID)) next = ok(Model.rollback(next, planID))
  }
  return next
}

const sums = (ledger: Model.LedgerState) => {
  const out: Record<string, { own: number; pending: number }> = {}
  for (const a of ledger.accounts.values()) {
    const s = (out[a.currency] ??= { own: 0, pending: 0 })
    s.own += a.own
    s.pending += a.minDiff + a.maxDiff
  }
  return out
}

// --- the tests -----------------------------------------------------------------------------

describe("PaymentMachine", () => {
  it.prop(
    "random command sequences follow the transition table, legalMoves and the merchant error order",
    [scenarioArb],
    ([{ amount, commands, currency, flow }]) => {
      let state = initial(flow, currency, amount)
      const seen: Array<PaymentStatus> = [state.status]
      for (const spec of commands) {
        const before = state.status
        state = step(state, resolve(spec, amount))
        if (state.status !== before) seen.push(state.status)
      }
      // the statuses visited form a path of legalMoves, each at most once
      assert.strictEqual(new Set(seen).size, seen.length, seen.join(" → "))
      for (let i = 1; i < seen.length; i++) assert.include(legalMoves[seen[i - 1]!], seen[i]!)
      if (flow.type === "PaymentFlowInstant") assert.notInclude(seen, "cancelled", "an instant payment is never cancelled")
    },
    RUNS
  )

  it.prop(
    "a final payment refuses every merchant command with invalidPaymentStatus and ignores the rest",
    [scenarioArb, FastCheck.constantFrom<PaymentStatus>("captured", "cancelled", "failed", "refunded"), FastCheck.array(commandArb, { maxLength: 10 })],
    ([{ amount, currency, flow }, status, commands]) => {
      const final: State = deepFreeze({ ...initial(flow, currency, amount), status, activity: "done" })
      for (const spec of commands) {
        const result = decide(final, resolve(spec, amount))
        if (Either.isLeft(result)) {
          assert.strictEqual(result.left.code, "invalidPaymentStatus")
        } else {
          assert.strictEqual(result.right.state, final, "the same state")
          assert.deepStrictEqual(result.right.changes, [])
        }
      }
    },
    RUNS
  )

  it.prop(
    "merchant errors come in order: invalidPaymentStatus, operationNotPermitted, inconsistentCaptureCurrency, amountExceededCaptureBalance",
    [
      FastCheck.constantFrom<PaymentStatus>("pending", "processed", "captured", "cancelled", "failed", "refunded"),
      FastCheck.constantFrom<State["activity"]>("processing", "interaction", "waiting", "capturing", "cancelling", "done"),
      flowArb,
      amountArb,
      FastCheck.constantFrom(undefined, "RUB", "USD"),
      FastCheck.integer({ min: 1, max: 2_000_000 })
    ],
    ([status, activity, flow, amount, currency, captureAmount]) => {
      // any combination, reachable or not: the order of the checks is what is under test
      const state: State = deepFreeze({ ...initial(flow, "RUB", amount), status, activity })
      const capture = decide(state, captureOf("r", captureAmount, currency))
      const cancel = decide(state, PaymentCommand.Cancel({ reason: "r" }))
      const waiting = status === "processed" && activity === "waiting"
      const expectedCapture = !waiting
        ? "invalidPaymentStatus"
        : flow.type !== "PaymentFlowHold"
        ? "operationNotPermitted"
        : currency !== undefined && currency !== "RUB"
        ? "inconsistentCaptureCurrency"
        : captureAmount > amount
        ? "amountExceededCaptureBalance"
        : undefined
      const expectedCancel = !waiting ? "invalidPaymentStatus" : flow.type !== "PaymentFlowHold" ? "operationNotPermitted" : undefined
      assert.strictEqual(Either.isLeft(capture) ? capture.left.code : undefined, expectedCapture)
      assert.strictEqual(Either.isLeft(cancel) ? cancel.left.code : undefined, expectedCancel)
      if (Either.isRight(capture)) {
        assert.strictEqual(capture.right.state.activity, "capturing")
        assert.deepStrictEqual(plain(capture.right.state.capture), { amount: captureAmount, reason: "r" })
        assert.strictEqual(capture.right.state.status, "processed")
      }
      if (Either.isRight(cancel)) {
        assert.strictEqual(cancel.right.state.activity, "cancelling")
        assert.strictEqual(cancel.right.state.cancelReason, "r")
      }
    },
    RUNS
  )

  it("the instant flow: Authorized → processed and capturing at once; Finished → captured with the full amount", () => {
    const start = initial({ type: "PaymentFlowInstant" }, "RUB", 1000)
    const authorized = step(start, authorize({ rrn: "000000000001", approvalCode: "000001" }))
    assert.strictEqual(authorized.status, "processed")
    assert.strictEqual(authorized.activity, "capturing")
    assert.deepStrictEqual(authorized.transactionInfo, { rrn: "000000000001", approvalCode: "000001" })
    const captured = step(authorized, PaymentCommand.Finished())
    assert.strictEqual(captured.status, "captured")
    assert.strictEqual(captured.amount, 1000)
    // a repeated Finished or Authorized (a retry after a crash) changes nothing
    assert.deepStrictEqual(plain(step(captured, PaymentCommand.Finished())), plain(captured))
    assert.deepStrictEqual(
      plain(step(captured, authorize({ rrn: "x", approvalCode: "y" }))),
      plain(captured)
    )
  })

  it("the authorisation books the fee and keeps the recurrent token; a finished capture makes its cart and allocation the payment's", () => {
    const held = step(
      { ...initial({ type: "PaymentFlowHold", onHoldExpiration: "cancel" }, "RUB", 1000), cart: [{ product: "a", quantity: 1, price: 1000, cost: 1000 }] },
      authorize({ rrn: "000000000001", approvalCode: "000001" }, "token-1")
    )
    assert.strictEqual(held.fee, 35)
    assert.strictEqual(held.recurrentToken, "token-1")
    const cart = [{ product: "b", quantity: 1, price: 600, cost: 600 }]
    const allocation = [{
      allocationBodyType: "AllocationBodyAmount" as const,
      target: { allocationTargetType: "AllocationTargetShop" as const, shopID: "s2" },
      amount: 600,
      currency: "RUB"
    }]
    const capturing = step(held, PaymentCommand.Capture({ reason: "r", amount: 600, currency: "RUB", cart, allocation, fees: TEST_FEES }))
    assert.strictEqual(capturing.fee, 21, "a partial capture books the fee of what it takes")
    assert.strictEqual(capturing.cart?.[0]?.product, "a", "the cart moves at the capture's end")
    const captured = step(capturing, PaymentCommand.Finished())
    assert.deepStrictEqual(plain(captured.cart), plain(cart))
    assert.deepStrictEqual(plain(captured.allocation), plain(allocation))
    assert.strictEqual(captured.fee, 21)
  })

  it("a challenge keeps its interaction id", () => {
    const challenged = step(
      initial({ type: "PaymentFlowInstant" }, "RUB", 1000),
      PaymentCommand.InteractionRequested({ interactionID: "i1", userInteraction: redirect(1) })
    )
    assert.strictEqual(challenged.interactionID, "i1")
    assert.strictEqual(challenged.activity, "interaction")
  })

  it("the hold flow: HoldExpired follows onHoldExpiration; a merchant capture or cancel first wins", () => {
    for (const onHoldExpiration of ["cancel", "capture"] as const) {
      const held = step(
        initial({ type: "PaymentFlowHold", onHoldExpiration }, "RUB", 1000),
        authorize({ rrn: "000000000001", approvalCode: "000001" })
      )
      assert.strictEqual(held.activity, "waiting")
      const expired = step(held, PaymentCommand.HoldExpired())
      const done = step(expired, PaymentCommand.Finished())
      assert.strictEqual(done.status, onHoldExpiration === "capture" ? "captured" : "cancelled")
      if (onHoldExpiration === "capture") assert.strictEqual(done.amount, 1000)
      // a partial capture first: the timer no longer acts
      const capturing = step(held, resolve({ _tag: "Capture", amount: { delta: -400 }, currency: "RUB", reason: "r", withCart: false }, 1000))
      assert.deepStrictEqual(plain(step(capturing, PaymentCommand.HoldExpired())), plain(capturing))
      const captured = step(capturing, PaymentCommand.Finished())
      assert.strictEqual(captured.status, "captured")
      assert.strictEqual(captured.amount, 600)
      assert.strictEqual(captured.authorizedAmount, 1000)
    }
  })

  it.prop(
    "the fee is 3.5 % rounded half up, never above the amount",
    [FastCheck.integer({ min: 1, max: 1_000_000_000 })],
    ([amount]) => {
      const expected = Number((BigInt(amount) * 35n + 500n) / 1000n)
      assert.strictEqual(paymentFee(TEST_FEES, amount), Math.min(amount, expected))
      if (amount <= 1_000_000) assert.strictEqual(fee(amount), paymentFee(TEST_FEES, amount))
    },
    RUNS
  )

  it.prop(
    "money is conserved: payments interleaved on shared accounts keep the ledger's invariants",
    [FastCheck.array(scenarioArb, { minLength: 1, maxLength: 4 }), FastCheck.array(FastCheck.nat(3), { maxLength: 80 })],
    ([scenarios, schedule]) => {
      let ledger = openLedger()
      const payments = scenarios.map((s, i) => ({
        planID: `payment/inv${i}/1`,
        authorized: s.amount,
        state: initial(s.flow, s.currency, s.amount),
        commands: [...s.commands]
      }))
      // run the payments interleaved by the schedule, then each to its end
      const order = [...schedule.map((n) => n % payments.length), ...payments.flatMap((p, i) => p.commands.map(() => i))]
      for (const i of order) {
        const p = payments[i]!
        const spec = p.commands.shift()
        if (spec === undefined) continue
        const before = p.state
        p.state = step(before, resolve(spec, p.authorized))
        ledger = book(ledger, p.planID, before, p.state)

        assert.deepStrictEqual(Model.invariants(ledger), [])
        for (const [currency, s] of Object.entries(sums(ledger))) {
          assert.strictEqual(s.own, 0, `own of ${currency} sums to 0`)
          assert.strictEqual(s.pending, 0, `pending of ${currency} sums to 0`)
        }
        // the plan's state follows the payment's status (a payment fails only before its hold)
        const expectedPlan: Record<PaymentStatus, string | undefined> = {
          pending: undefined,
          processed: "hold",
          captured: "commit",
          cancelled: "rollback",
          failed: undefined,
          refunded: "commit"
        }
        assert.strictEqual(ledger.plans.get(p.planID)?.state, expectedPlan[p.state.status], `${p.planID} ${p.state.status}`)
      }
      // committed money: the shop gets captured − fee, the platform the fee, the provider pays it all
      for (const currency of CURRENCIES) {
        const captured = payments.filter((p) => p.state.currency === currency && p.state.status === "captured")
        const total = captured.reduce((n, p) => n + p.state.amount, 0)
        const fees = captured.reduce((n, p) => n + fee(p.state.amount), 0)
        const a = ACCOUNTS[currency]!
        assert.strictEqual(ledger.accounts.get(a.shop)!.own, total - fees)
        assert.strictEqual(ledger.accounts.get(a.system)!.own, fees)
        assert.strictEqual(ledger.accounts.get(a.provider)!.own, -total)
        if (captured.length === 1) assert.strictEqual(ledger.accounts.get(a.shop)!.own, captured[0]!.state.amount - fee(captured[0]!.state.amount))
      }
      // once every payment is final, nothing is pending anywhere
      if (payments.every((p) => FINAL.includes(p.state.status))) {
        for (const a of ledger.accounts.values()) {
          assert.strictEqual(a.minDiff, 0)
          assert.strictEqual(a.maxDiff, 0)
        }
      }
    },
    RUNS
  )

  it("a partial capture books the flow of the captured amount: shop 600 − 21, platform 21, provider −600", () => {
    let ledger = openLedger()
    let state = initial({ type: "PaymentFlowHold", onHoldExpiration: "cancel" }, "RUB", 1000)
    const commands: ReadonlyArray<Command> = [
      authorize({ rrn: "000000000001", approvalCode: "000001" }),
      captureOf("partial", 600, "RUB"),
      PaymentCommand.Finished()
    ]
    for (const command of commands) {
      const before = state
      state = step(before, command)
      ledger = book(ledger, "p", before, state)
    }
    assert.strictEqual(state.status, "captured")
    assert.deepStrictEqual(
      [1, 2, 3].map((id) => Model.balanceOf(ledger.accounts.get(id)!)),
      [
        { own: -600, minAvailable: -600, maxAvailable: -600 },
        { own: 579, minAvailable: 579, maxAvailable: 579 },
        { own: 21, minAvailable: 21, maxAvailable: 21 }
      ]
    )
    assert.deepStrictEqual(ledger.plans.get("p")!.batches.map((b) => b.id), [1, 2, 3])
  })
})

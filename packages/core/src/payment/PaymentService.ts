/**
 * Use cases of the payment: start one on an invoice, read, capture, cancel; and the background
 * work that drives it with the acquirer (authorisation, 3-D Secure, capture, cancel), the hold
 * expiry and the processing deadline. Every step is one transaction: the payment, its invoice,
 * the ledger and the invoice's events change together. Durable timers resume whatever a crash
 * interrupted.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Contention from "../Contention.js"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { isInForce } from "../contract/Contract.js"
import * as Deadline from "../Deadline.js"
import { BusinessError, NotFound } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson } from "../internal/canonical.js"
import { keyOf, replay as replayIdempotent } from "../internal/idempotent.js"
import { knownFirst, retryOnConflict, VersionConflict } from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import { InvoiceChange } from "../invoice/InvoiceChange.js"
import { decide as decideInvoice, type InvoiceCommand } from "../invoice/InvoiceMachine.js"
import { AGGREGATE as INVOICE, DUE_TIMER, InvoiceService } from "../invoice/InvoiceService.js"
import * as Outcomes from "../Outcomes.js"
import { Acquirer, type AcquirerTool, type AuthorizeResult } from "../ports/Acquirer.js"
import { CardVault } from "../ports/CardVault.js"
import { CustomerRepository } from "../ports/CustomerRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency, PARTY_NAMESPACE, type IdempotencyRecord } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { InvoiceRepository } from "../ports/InvoiceRepository.js"
import { Ledger } from "../ports/Ledger.js"
import { PaymentRepository } from "../ports/PaymentRepository.js"
import { type Timer, Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { cardAllowed, paymentFee } from "../reference/Reference.js"
import { KassaSettings } from "../Settings.js"
import { ShopService } from "../shop/ShopService.js"
import { PaymentResources } from "../tokenization/PaymentResources.js"
import { type CaptureParams, type PaymentParams, type PaymentRecord, toPayment } from "./Payment.js"
import * as CashFlow from "./PaymentCashFlow.js"
import type { PaymentChange, UserInteraction } from "./PaymentChange.js"
import { decide, type PaymentCommand } from "./PaymentMachine.js"
import { describeMethod, type StoredTool } from "./PaymentTool.js"

/** @since 0.1.0 */
export const OPERATION = "payment"
/** Resumes a payment's background work after a crash. @since 0.1.0 */
export const ADVANCE_TIMER = "payment.advance"
/** Ends a hold. @since 0.1.0 */
export const HOLD_TIMER = "payment.hold"
/** Ends an abandoned 3-D Secure challenge. @since 0.1.0 */
export const INTERACTION_TIMER = "payment.interaction"

const encodeChanges = Schema.encodeSync(Schema.Array(InvoiceChange))

type TimerKey = Pick<Timer, "kind" | "subject">

interface ApplyOptions {
  readonly extra?: (p: PaymentRecord) => Partial<PaymentRecord>
}

/**
 * A tool the contract does not enable, refused with a code of createPayment's (the reference
 * answers `invalidRequest` "Invalid payment method").
 */
const invalidMethod = (tool: StoredTool) =>
  BusinessError.of("invalidRequest", `Invalid payment method: ${describeMethod(tool)} is not enabled by the contract`)

const subjectOf = (invoiceID: string, paymentID: string) => `${invoiceID}/${paymentID}`
const planOf = (invoiceID: string, paymentID: string) => `payment/${invoiceID}/${paymentID}`
const operationOf = (invoiceID: string, paymentID: string) => `${invoiceID}.${paymentID}`

/** @since 0.1.0 @category services */
export class PaymentService extends Effect.Service<PaymentService>()("kassa/PaymentService", {
  effect: Effect.gen(function*() {
    const payments = yield* PaymentRepository
    const customers = yield* CustomerRepository
    const invoiceRepo = yield* InvoiceRepository
    const invoices = yield* InvoiceService
    const shops = yield* ShopService
    const resources = yield* PaymentResources
    const vault = yield* CardVault
    const acquirer = yield* Acquirer
    const ledger = yield* Ledger
    const events = yield* EventLog
    const idempotency = yield* Idempotency
    const timers = yield* Timers
    const tx = yield* Transactions
    const ids = yield* Ids
    const settings = yield* KassaSettings

    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const found = (id: string) => (o: Option.Option<PaymentRecord>) =>
      Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Payment", id))
    const load = (invoiceID: string, id: string) => Effect.flatMap(payments.findById(invoiceID, id), found(id))

    // A payment carries its invoice's party: one look-up when it is found; when it is not, the
    // invoice's says which of the two is missing.
    const get = Traced.fn("PaymentService.get")(function*(partyID: string, invoiceID: string, id: string) {
      const found = yield* payments.findOfParty(partyID, invoiceID, id)
      if (Option.isSome(found)) return found.value
      yield* invoices.get(partyID, invoiceID)
      return yield* NotFound.of("Payment", id)
    })

    const list = Traced.fn("PaymentService.list")(function*(partyID: string, invoiceID: string) {
      yield* invoices.get(partyID, invoiceID)
      return yield* payments.listByInvoice(invoiceID)
    })

    const getByExternalID = Traced.fn("PaymentService.getByExternalID")(function*(partyID: string, externalID: string) {
      const record = yield* idempotency.find({ partyID, namespace: PARTY_NAMESPACE, operation: OPERATION, externalID })
      if (Option.isNone(record)) return yield* NotFound.of("Payment with externalID", externalID)
      const [invoiceID, id] = record.value.entityID.split("/") as [string, string]
      return yield* get(partyID, invoiceID, id)
    })

    /** The settlement accounts of a payment's flow. */
    const flowAccounts = (p: PaymentRecord, allocation: PaymentRecord["allocation"]) =>
      Effect.gen(function*() {
        const targets = new Map<string, number>()
        for (const t of allocation ?? []) {
          targets.set(
            t.target.shopID,
            yield* ledger.account({ kind: "settlement", partyID: p.partyID, shopID: t.target.shopID, currency: p.currency })
          )
        }
        return {
          provider: yield* ledger.account({ kind: "provider", currency: p.currency }),
          shop: yield* ledger.account({ kind: "settlement", partyID: p.partyID, shopID: p.shopID, currency: p.currency }),
          system: yield* ledger.account({ kind: "system", currency: p.currency }),
          targets
        } satisfies CashFlow.FlowAccounts
      })

    const feeOf = (p: PaymentRecord, amount: number) =>
      Effect.gen(function*() {
        const { institution } = yield* shops.withTerms(PartyID.make(p.partyID), ShopID.make(p.shopID))
        return paymentFee(institution.terms.fees, amount)
      }).pipe(Effect.orDie)

    /** The ledger's part of a transition, inside its transaction. */
    const account = (before: PaymentRecord, after: PaymentRecord) =>
      Effect.gen(function*() {
        const plan = planOf(after.invoiceID, after.id)
        if (before.status === "pending" && after.status === "processed") {
          const accounts = yield* flowAccounts(after, after.allocation)
          yield* ledger.hold(plan, {
            id: 1,
            postings: CashFlow.postings(accounts, after.currency, after.amount, after.fee, after.allocation)
          })
        }
        if (before.activity === "waiting" && after.activity === "capturing" && after.capture !== undefined) {
          const c = after.capture
          if (c.amount !== before.authorizedAmount || c.allocation !== undefined) {
            const held = yield* ledger.plan(plan)
            const first = Option.getOrUndefined(held)?.batches[0]
            if (first !== undefined) yield* ledger.hold(plan, CashFlow.reverse(2, first))
            const allocation = c.allocation ?? after.allocation
            const accounts = yield* flowAccounts(after, allocation)
            yield* ledger.hold(plan, {
              id: 3,
              postings: CashFlow.postings(accounts, after.currency, c.amount, yield* feeOf(after, c.amount), allocation)
            })
          }
        }
        if (after.status === "captured" && before.status !== "captured") yield* ledger.commit(plan)
        if ((after.status === "failed" || after.status === "cancelled") && before.status !== after.status) {
          if (Option.isSome(yield* ledger.plan(plan))) yield* ledger.rollback(plan)
        }
      })

    /**
     * The invoice's part of a transition: a captured payment pays it, a failed one reopens it.
     * Answers the invoice's changes and the timers that end with them (its due date, once paid),
     * which the caller cancels with the payment's own.
     */
    const settleInvoice = (after: PaymentRecord, at: Date) =>
      Effect.gen(function*() {
        const outcome = after.status === "captured" || after.status === "failed" || after.status === "cancelled"
          ? after.status
          : undefined
        const none = { changes: [] as ReadonlyArray<InvoiceChange>, ended: [] as ReadonlyArray<TimerKey> }
        if (outcome === undefined) return none
        // Contended (its payments settle it): kept till the transaction ends, its update cannot lose.
        const invoice = yield* Contention.expected(invoiceRepo.findById(after.partyID, after.invoiceID)).pipe(
          Effect.flatMap(Effect.orDie)
        )
        const command: InvoiceCommand = { _tag: "SettlePayment", paymentID: after.id, outcome }
        const decision = decideInvoice(invoice, command, at)
        if (Either.isLeft(decision)) return yield* Effect.die(decision.left)
        const { state, changes } = decision.right
        if (changes.length === 0 && state.activePaymentID === invoice.activePaymentID) return { ...none, changes }
        const updated: InvoiceRecord = {
          ...invoice,
          status: state.status,
          ...(state.reason === undefined ? {} : { reason: state.reason }),
          activePaymentID: state.activePaymentID,
          version: invoice.version + 1
        }
        if (!(yield* invoiceRepo.update(updated, invoice.version))) {
          return yield* new VersionConflict({ what: `invoice ${invoice.id}` })
        }
        return { changes, ended: updated.status !== "unpaid" ? [{ kind: DUE_TIMER, subject: invoice.id }] : [] }
      })

    const appendEvent = (invoice: { readonly id: string; readonly partyID: string }, changes: ReadonlyArray<InvoiceChange>) =>
      changes.length === 0
        ? Effect.void
        : events.append({ aggregateType: INVOICE, aggregateID: invoice.id, partyID: invoice.partyID, changes: encodeChanges(changes) })

    /**
     * Runs one command of the payment machine with everything it implies, atomically.
     * - `extra` adds fields the command carries (transaction info, interaction id, recurrent token).
     * - `known`, the payment as the caller last saw it, saves the first attempt its read: the
     *   write's version check catches a stale one, and a refusal or a no-op decided on it is
     *   decided again on a fresh read (`applyTo` passes it).
     * Answers the payment as it now stands, and whether this command changed it.
     */
    const decideAndApply = (
      invoiceID: string,
      id: string,
      command: PaymentCommand,
      { extra = () => ({}), known }: ApplyOptions & { readonly known?: PaymentRecord } = {}
    ) =>
      Effect.suspend(() => {
        const read = knownFirst(known, load(invoiceID, id))
        const conflict = () => new VersionConflict({ what: `payment ${invoiceID}/${id}` })
        // the status the committed attempt reached, counted once it is committed
        let reached: string | undefined
        return retryOnConflict(tx.withTransaction(Effect.gen(function*() {
          reached = undefined
          const { value: before, stale } = yield* read
          const decision = decide(before, command)
          if (Either.isLeft(decision)) return yield* stale ? conflict() : decision.left
          const { state, changes } = decision.right
          const at = yield* now
          const changed = state.status !== before.status || state.activity !== before.activity
          if (!changed && changes.length === 0) return stale ? yield* conflict() : { payment: before, changed: false }
          let after: PaymentRecord = {
            ...before,
            ...extra(before),
            status: state.status,
            activity: state.activity,
            amount: state.amount,
            capture: state.capture,
            cancelReason: state.cancelReason,
            ...(state.error === undefined ? {} : { error: state.error }),
            ...(state.transactionInfo === undefined ? {} : { transactionInfo: state.transactionInfo }),
            statusChangedAt: state.status !== before.status ? at : before.statusChangedAt,
            version: before.version + 1
          }
          if (before.status === "pending" && after.status === "processed") {
            after = { ...after, fee: yield* feeOf(after, after.amount) }
          }
          if (after.status === "captured" && after.amount !== before.authorizedAmount) {
            after = { ...after, fee: yield* feeOf(after, after.amount) }
          }
          if (after.capture?.allocation !== undefined && after.status === "captured") {
            after = { ...after, allocation: after.capture.allocation }
          }
          if (after.capture?.cart !== undefined && after.status === "captured") after = { ...after, cart: after.capture.cart }
          if (!(yield* payments.update(after, before.version))) return yield* conflict()
          // the invoice before the ledger, whose reads leave the invoice's write waiting
          const settled = yield* settleInvoice(after, at)
          yield* account(before, after)
          // The CVV serves the authorisation only: its session goes with the outcome that ends
          // it (processed, or failed: declined, past the deadline, a challenge abandoned).
          if (before.status === "pending" && after.status !== "pending" && after.vaultSession !== undefined) {
            yield* vault.deleteSession(after.vaultSession)
          }
          yield* appendEvent({ id: invoiceID, partyID: after.partyID }, [...changes, ...settled.changes])
          const subject = subjectOf(invoiceID, id)
          // The payer's time to answer a challenge runs with the state that asks for it, in the
          // same transaction: a crash cannot leave a challenge without its timeout, nor a finished
          // payment with one.
          if (after.activity === "interaction" && before.activity !== "interaction") {
            yield* timers.schedule({
              kind: INTERACTION_TIMER,
              subject,
              dueAt: new Date(at.getTime() + settings.interactionTimeoutMs),
              payload: null
            })
          }
          const ended = [
            ...(after.activity === "done" ? [ADVANCE_TIMER, HOLD_TIMER] : []),
            ...(before.activity === "interaction" && after.activity !== "interaction" ? [INTERACTION_TIMER] : [])
          ]
          yield* timers.cancelAll([...settled.ended, ...ended.map((kind) => ({ kind, subject }))])
          if (after.activity === "capturing" || after.activity === "cancelling") {
            yield* timers.schedule({
              kind: ADVANCE_TIMER,
              subject,
              dueAt: new Date(at.getTime() + settings.recoveryDelayMs),
              payload: null
            })
          }
          if (after.status !== before.status) reached = after.status
          return { payment: after, changed: true }
        }))).pipe(Effect.tap(() => reached === undefined ? Effect.void : Outcomes.count(Outcomes.payments, reached)))
      })

    /** `decideAndApply`, answering the payment. */
    const apply = (...args: Parameters<typeof decideAndApply>) => Effect.map(decideAndApply(...args), (r) => r.payment)

    /** `apply` to the payment as the caller holds it. */
    const applyTo = (p: PaymentRecord, command: PaymentCommand, options: ApplyOptions = {}) =>
      apply(p.invoiceID, p.id, command, { ...options, known: p })

    /** The tool the acquirer receives; card data comes from the vault only now. */
    const acquirerTool = (p: PaymentRecord) =>
      Effect.gen(function*() {
        const t = p.tool
        switch (t.type) {
          case "BankCard": {
            const stored = yield* vault.getCardAndSession(t.vaultToken, p.vaultSession)
            if (Option.isNone(stored)) return yield* Effect.dieMessage(`vault has no card for payment ${p.invoiceID}/${p.id}`)
            const { card, secret } = stored.value
            return { type: "BankCard", card, paymentSystem: t.paymentSystem, cvv: Option.getOrUndefined(secret)?.cvv } satisfies AcquirerTool
          }
          case "Recurrent":
            return { type: "Recurrent", recurrentToken: t.recurrentToken } satisfies AcquirerTool
          default:
            return t
        }
      })

    const interactionOf = (interactionID: string): UserInteraction => ({
      interactionType: "Redirect",
      request: { requestType: "BrowserGetRequest", uriTemplate: `${settings.publicUrl}/3ds/${interactionID}` }
    })

    /** Records the acquirer's answer; answers the payment as it now stands. */
    const applyAuthorization = (p: PaymentRecord, result: AuthorizeResult) =>
      Effect.gen(function*() {
        switch (result._tag) {
          case "Authorized":
            return yield* applyTo(p, { _tag: "Authorized", transactionInfo: result.transaction }, {
              extra: () => ({ recurrentToken: result.recurrentToken })
            })
          case "Declined":
            return yield* applyTo(p, { _tag: "Declined", error: result.error })
          case "InteractionRequired": {
            const interactionID = `${yield* ids.next}${yield* ids.next}`
            return yield* applyTo(
              p,
              { _tag: "InteractionRequested", userInteraction: interactionOf(interactionID) },
              { extra: () => ({ interactionID }) }
            )
          }
        }
      })

    /**
     * Drives a payment as far as it can go now: authorise, then capture or cancel. Safe to run
     * twice at once (the acquirer answers a repeated operation with its first answer, and the
     * transitions are optimistic).
     */
    const advance = (invoiceID: string, id: string, known?: PaymentRecord): Effect.Effect<void, never> =>
      Effect.gen(function*() {
        const p = known ?? (yield* load(invoiceID, id).pipe(Effect.orDie))
        const operationID = operationOf(invoiceID, id)
        switch (p.activity) {
          case "processing": {
            const at = yield* Clock.currentTimeMillis
            const deadline = p.processingDeadline?.getTime()
            if (deadline !== undefined && at >= deadline) {
              yield* applyTo(p, { _tag: "DeadlineReached" })
              return
            }
            const tool = yield* acquirerTool(p)
            const authorize = acquirer.authorize({
              operationID,
              amount: p.amount,
              currency: p.currency,
              tool,
              hold: p.flow.type === "PaymentFlowHold",
              makeRecurrent: p.makeRecurrent
            })
            const result = deadline === undefined
              ? Option.some(yield* authorize)
              : yield* Effect.timeoutOption(authorize, Math.max(0, deadline - at))
            if (Option.isNone(result)) {
              yield* applyTo(p, { _tag: "DeadlineReached" })
              return
            }
            // the payment as the authorisation left it: an instant one goes on to its capture
            const next = yield* applyAuthorization(p, result.value)
            if (next.activity === "capturing" || next.activity === "cancelling") yield* advance(invoiceID, id, next)
            return
          }
          case "capturing": {
            const result = yield* acquirer.capture(operationID, p.capture?.amount ?? p.amount, p.currency)
            if (result._tag === "Declined") {
              // A capture is never turned into a failed payment: the durable timer retries it.
              yield* Effect.logWarning("capture declined by the acquirer; it will be retried").pipe(
                Effect.annotateLogs({ invoiceID, paymentID: id })
              )
              return
            }
            yield* applyTo(p, { _tag: "Finished" })
            return
          }
          case "cancelling": {
            const result = yield* acquirer.cancel(operationID)
            if (result._tag === "Declined") {
              yield* Effect.logWarning("cancel declined by the acquirer; it will be retried").pipe(
                Effect.annotateLogs({ invoiceID, paymentID: id })
              )
              return
            }
            yield* applyTo(p, { _tag: "Finished" })
            return
          }
          case "waiting":
          case "interaction":
          case "done":
            yield* timers.cancel(ADVANCE_TIMER, subjectOf(invoiceID, id))
            return
        }
      }).pipe(
        Effect.catchAll((e) =>
          Effect.logWarning("payment step refused", e).pipe(Effect.annotateLogs({ invoiceID, paymentID: id }))
        ),
        Effect.withSpan("PaymentService.advance")
      )

    const kick = (invoiceID: string, id: string, known?: PaymentRecord) => tx.background(advance(invoiceID, id, known))

    // A durable timer resumes work a crash interrupted: it moves itself forward first, so the
    // work is retried again if it stalls, then runs it in the background.
    yield* timers.register(ADVANCE_TIMER, (timer) =>
      Effect.gen(function*() {
        const [invoiceID, id] = timer.subject.split("/") as [string, string]
        yield* timers.schedule({
          ...timer,
          dueAt: new Date((yield* Clock.currentTimeMillis) + settings.recoveryDelayMs)
        })
        yield* kick(invoiceID, id)
      }))
    yield* timers.register(HOLD_TIMER, (timer) =>
      Effect.gen(function*() {
        const [invoiceID, id] = timer.subject.split("/") as [string, string]
        const p = yield* apply(invoiceID, id, { _tag: "HoldExpired" }).pipe(Effect.option)
        // The capture or cancel runs once this transaction has committed: the advance timer, due
        // now, hands it to the scheduler's next pass (work started here would read the old state).
        if (Option.isSome(p)) {
          yield* timers.schedule({
            kind: ADVANCE_TIMER,
            subject: timer.subject,
            dueAt: new Date(yield* Clock.currentTimeMillis),
            payload: null
          })
        }
      }))
    yield* timers.register(INTERACTION_TIMER, (timer) =>
      Effect.gen(function*() {
        const [invoiceID, id] = timer.subject.split("/") as [string, string]
        yield* apply(invoiceID, id, { _tag: "Declined", error: { code: "preauthorization_failed" } }).pipe(Effect.ignore)
      }))

    /** The features two requests with one `externalID` must share (reference: bender features). */
    const fingerprint = (invoiceID: string, params: PaymentParams, toolKey: unknown) =>
      canonicalJson({
        invoiceID,
        makeRecurrent: params.makeRecurrent,
        flow: params.flow,
        payerType: params.payer.payerType,
        tool: toolKey
      })

    /** Starts a payment; its `externalID` is looked up in `namespace` (the party's own unless an access token sent it). */
    const create = Traced.fn("PaymentService.create")(function*(
      partyID: string,
      invoiceID: string,
      params: PaymentParams,
      namespace: string = PARTY_NAMESPACE
    ) {
      const invoice = yield* invoices.get(partyID, invoiceID)
      const at = yield* now
      const deadline = params.processingDeadline === undefined
        ? Option.some(new Date(at.getTime() + settings.defaultProcessingDeadlineMs))
        : Deadline.parse(params.processingDeadline, at)
      if (Option.isNone(deadline)) {
        return yield* BusinessError.of("invalidProcessingDeadline", "processingDeadline: expected RFC 3339 or 30s, 1.5m, 500ms")
      }
      const { contract, institution } = yield* shops.requireActiveWithTerms(PartyID.make(partyID), ShopID.make(invoice.shopID))
      if (!isInForce(contract, at)) return yield* BusinessError.of("invalidContractStatus", "The contract is not in force")

      const payer = params.payer
      let tool: PaymentRecord["tool"]
      let answerPayer: PaymentRecord["payer"]
      let vaultSession: string | undefined
      let toolKey: unknown
      switch (payer.payerType) {
        case "PaymentResourcePayer": {
          const resource = yield* resources.resolve(partyID, payer.paymentToolToken, payer.paymentSession)
          tool = resource.tool
          vaultSession = resource.vaultSession
          toolKey = resource.tool
          answerPayer = {
            payerType: "PaymentResourcePayer",
            paymentToolToken: resource.token,
            paymentSession: resource.session,
            paymentToolDetails: resource.details,
            clientInfo: resource.clientInfo,
            contactInfo: payer.contactInfo,
            ...(payer.sessionInfo === undefined ? {} : { sessionInfo: payer.sessionInfo })
          }
          const method = institution.terms.paymentMethods.find((m) => m.method === resource.tool.type)
          if (
            method === undefined ||
            (resource.tool.type === "BankCard" && !(method.paymentSystems ?? []).includes(resource.tool.paymentSystem)) ||
            ((resource.tool.type === "PaymentTerminal" || resource.tool.type === "DigitalWallet") &&
              !(method.providers ?? []).includes(resource.tool.provider))
          ) {
            return yield* invalidMethod(resource.tool)
          }
          break
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
          tool = {
            type: "Recurrent",
            recurrentToken: parent.recurrentToken,
            ...(parent.tool.type === "BankCard" ? { paymentSystem: parent.tool.paymentSystem } : {})
          }
          toolKey = parentRef
          answerPayer = {
            payerType: "RecurrentPayer",
            contactInfo: payer.contactInfo,
            recurrentParentPayment: parentRef,
            ...("paymentToolDetails" in parent.payer && parent.payer.paymentToolDetails !== undefined
              ? { paymentToolDetails: parent.payer.paymentToolDetails }
              : {})
          }
          break
        }
        case "CustomerPayer": {
          const bad = (message: string) => BusinessError.of("invalidRequest", `payer.customerID: ${message}`)
          const customer = yield* customers.findById(partyID, payer.customerID)
          if (Option.isNone(customer) || customer.value.deletedAt !== undefined) return yield* bad("customer not found")
          if (customer.value.shopID !== invoice.shopID) return yield* bad("the customer belongs to another shop")
          const binding = (yield* customers.listBindings(payer.customerID))
            .filter((b) => b.status === "succeeded" && b.recurrentToken !== undefined)
            .at(-1)
          if (binding === undefined) return yield* bad("the customer has no succeeded binding")
          if (binding.tool.type === "BankCard" && !cardAllowed(institution.terms.paymentMethods, binding.tool.paymentSystem)) {
            return yield* invalidMethod(binding.tool)
          }
          tool = {
            type: "Recurrent",
            recurrentToken: binding.recurrentToken!,
            ...(binding.tool.type === "BankCard" ? { paymentSystem: binding.tool.paymentSystem } : {})
          }
          toolKey = { customerID: payer.customerID }
          answerPayer = {
            payerType: "CustomerPayer",
            customerID: payer.customerID,
            ...(binding.paymentResource.paymentToolDetails === undefined
              ? {}
              : { paymentToolDetails: binding.paymentResource.paymentToolDetails })
          }
          break
        }
      }

      const fp = fingerprint(invoiceID, params, toolKey)
      const key = keyOf(partyID, namespace, OPERATION, params.externalID)
      const replay = (record: IdempotencyRecord) =>
        replayIdempotent(params.externalID!, fp, record, (entityID) => {
          const [invID, id] = entityID.split("/") as [string, string]
          return load(invID, id)
        })
      if (key !== undefined) {
        const prior = yield* idempotency.find(key)
        if (Option.isSome(prior)) return yield* replay(prior.value)
      }

      const flow: PaymentRecord["flow"] = params.flow.type === "PaymentFlowHold"
        ? {
          type: "PaymentFlowHold",
          onHoldExpiration: params.flow.onHoldExpiration,
          heldUntil: new Date(at.getTime() + institution.terms.holdLifetimeSeconds * 1000)
        }
        : { type: "PaymentFlowInstant" }

      const read = knownFirst(
        invoice,
        invoiceRepo.findById(partyID, invoiceID).pipe(Effect.flatMap(Effect.orDie))
      )
      const created = yield* retryOnConflict(tx.withTransaction(Effect.gen(function*() {
        const { value: current, stale } = yield* read
        // The invoice counts its payments (a stale count loses the invoice's version check).
        const started = current.paymentCount
        const id = String(started + 1)
        if (key !== undefined) {
          const prior = yield* idempotency.claim(key, { entityID: subjectOf(invoiceID, id), fingerprint: fp })
          if (Option.isSome(prior)) return { payment: yield* replay(prior.value), fresh: false }
        }
        const decided = decideInvoice(current, { _tag: "StartPayment", paymentID: id }, at)
        if (Either.isLeft(decided)) {
          return yield* stale ? new VersionConflict({ what: `invoice ${invoiceID}` }) : decided.left
        }
        const updatedInvoice: InvoiceRecord = {
          ...current,
          activePaymentID: decided.right.state.activePaymentID,
          paymentCount: started + 1,
          version: current.version + 1
        }
        if (!(yield* invoiceRepo.update(updatedInvoice, current.version))) {
          return yield* new VersionConflict({ what: `invoice ${invoiceID}` })
        }
        const payment: PaymentRecord = {
          id,
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          invoiceID,
          partyID,
          shopID: invoice.shopID,
          createdAt: at,
          amount: current.amount,
          authorizedAmount: current.amount,
          currency: current.currency,
          flow,
          payer: answerPayer,
          makeRecurrent: params.makeRecurrent,
          ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
          ...(current.allocation === undefined ? {} : { allocation: current.allocation }),
          status: "pending",
          activity: "processing",
          tool,
          vaultSession,
          processingDeadline: deadline.value,
          capture: undefined,
          cancelReason: undefined,
          interactionID: undefined,
          recurrentToken: undefined,
          cart: current.cart,
          fee: 0,
          statusChangedAt: at,
          version: 1
        }
        yield* payments.insert(payment)
        yield* appendEvent(updatedInvoice, [{ changeType: "PaymentStarted", payment: toPayment(payment) }])
        const subject = subjectOf(invoiceID, id)
        yield* timers.schedule({
          kind: ADVANCE_TIMER,
          subject,
          dueAt: new Date(at.getTime() + settings.recoveryDelayMs),
          payload: null
        })
        if (flow.type === "PaymentFlowHold" && flow.heldUntil !== undefined) {
          yield* timers.schedule({ kind: HOLD_TIMER, subject, dueAt: flow.heldUntil, payload: null })
        }
        return { payment, fresh: true }
      })))
      if (created.fresh) yield* kick(invoiceID, created.payment.id, created.payment)
      return created.payment
    })

    const capture = Traced.fn("PaymentService.capture")(
      function*(partyID: string, invoiceID: string, id: string, params: CaptureParams) {
        const p = yield* get(partyID, invoiceID, id)
        const shop = yield* shops.requireActive(PartyID.make(partyID), ShopID.make(p.shopID))
        let cart: ReadonlyArray<Cart.InvoiceLine> | undefined
        if (params.cart !== undefined) {
          const made = Cart.make(params.cart)
          if (Either.isLeft(made)) return yield* made.left
          cart = made.right
        }
        const amount = params.amount ?? (cart === undefined ? undefined : Cart.total(cart))
        if (cart !== undefined && amount !== Cart.total(cart)) {
          return yield* BusinessError.of("invalidInvoiceCart", `cart: total ${Cart.total(cart)} differs from amount ${amount}`)
        }
        let allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
        if (params.allocation !== undefined) {
          const { institution } = yield* shops.terms(shop)
          const partyShops = new Set((yield* shops.list(PartyID.make(partyID))).map((s) => s.id as string))
          const made = Allocation.make(params.allocation, {
            shopID: p.shopID,
            amount: amount ?? p.authorizedAmount,
            currency: p.currency,
            partyShops,
            allowed: institution.terms.allocationAllowed
          })
          if (Either.isLeft(made)) return yield* made.left
          allocation = made.right
        }
        const after = yield* applyTo(p, {
          _tag: "Capture",
          reason: params.reason,
          amount,
          currency: params.currency,
          cart,
          allocation
        })
        yield* kick(invoiceID, id, after)
      }
    )

    const cancel = Traced.fn("PaymentService.cancel")(function*(partyID: string, invoiceID: string, id: string, reason: string) {
      const p = yield* get(partyID, invoiceID, id)
      yield* shops.requireActive(PartyID.make(partyID), ShopID.make(p.shopID))
      yield* kick(invoiceID, id, yield* applyTo(p, { _tag: "Cancel", reason }))
    })

    /** The 3-D Secure challenge a payer opened, if it is still waiting. */
    const challenge = Traced.fn("PaymentService.challenge")(function*(interactionID: string) {
      const p = yield* payments.findByInteraction(interactionID)
      if (Option.isNone(p) || p.value.activity !== "interaction") return yield* NotFound.of("Challenge", interactionID)
      return p.value
    })

    /**
     * The payer passed or failed the challenge: the acquirer decides, the payment goes on. Of
     * concurrent answers to one challenge the first completes it (`decided`); the others call
     * nothing and answer the payment as it stands, as do answers to a challenge already over.
     */
    const completeChallenge = Traced.fn("PaymentService.completeChallenge")(function*(interactionID: string, passed: boolean) {
      const found = yield* payments.findByInteraction(interactionID)
      if (Option.isNone(found)) return yield* NotFound.of("Challenge", interactionID)
      const p = found.value
      if (p.activity !== "interaction") return { payment: p, decided: false }
      const completed = yield* decideAndApply(p.invoiceID, p.id, {
        _tag: "InteractionCompleted",
        userInteraction: interactionOf(interactionID)
      }, { known: p })
      if (!completed.changed) return { payment: completed.payment, decided: false }
      const result = yield* acquirer.completeInteraction(operationOf(p.invoiceID, p.id), passed)
      yield* kick(p.invoiceID, p.id, yield* applyAuthorization(completed.payment, result))
      return { payment: yield* load(p.invoiceID, p.id), decided: true }
    })

    return {
      create,
      get,
      list,
      getByExternalID,
      capture,
      cancel,
      advance,
      challenge,
      completeChallenge
    } as const
  }),
  dependencies: [InvoiceService.Default, ShopService.Default, PaymentResources.Default]
}) {}

/** @since 0.1.0 */
export type { PaymentChange }

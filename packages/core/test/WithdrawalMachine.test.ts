/**
 * Withdrawals, property-tested: generated command sequences move a withdrawal along the movement
 * machine's legal moves, leaving Pending once, with one `WithdrawalStatusChanged` event per move
 * numbered from 1; generated runs of deposits and withdrawals (to cards the test provider pays
 * out or rejects, some beyond what the wallet holds) on the memory Kassa keep the ledger whole.
 */
import { assert, describe, it } from "@effect/vitest"
import { decide, legalMoves, MovementCommand } from "@kassa/core/movement/Movement"
import { withStatusEvent, type WithdrawalRecord } from "@kassa/core/withdrawal/Withdrawal"
import { WithdrawalService } from "@kassa/core/withdrawal/WithdrawalService"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Arrange from "./support/Arrange.js"
import { checkLedger } from "./support/LedgerInvariants.js"
import * as MemoryKassa from "./support/MemoryKassa.js"
import { deposit, destination, wallet } from "./support/WalletArrange.js"

const commandArb: FastCheck.Arbitrary<MovementCommand> = FastCheck.oneof(
  FastCheck.constant(MovementCommand.Succeed()),
  FastCheck.constantFrom("authorization_failed", "account_limit_exceeded").map((code) => MovementCommand.Fail({ failure: { code } }))
)

const pending: WithdrawalRecord = {
  id: "wd-1",
  partyID: "p-1",
  walletPartyID: "p-1",
  walletID: "w-1",
  identityID: "i-1",
  destinationID: "d-1",
  amount: 1_000,
  currency: "RUB",
  fee: 20,
  payout: { amount: 1_000, currency: "RUB" },
  status: "Pending",
  attempts: 0,
  events: [{ eventID: 1, occuredAt: new Date(0), status: "Pending" }],
  createdAt: new Date(0),
  version: 1
}

describe("Withdrawal machine", () => {
  it.prop(
    "generated command sequences leave Pending once along legalMoves, one event per move, the last event the status",
    [FastCheck.array(commandArb, { minLength: 1, maxLength: 20 })],
    ([commands]) => {
      let w = pending
      let left = 0
      commands.forEach((command, i) => {
        const decision = decide(w, command)
        if (decision.state.status !== w.status) {
          assert.include(legalMoves[w.status], decision.state.status)
          left++
        }
        w = withStatusEvent({ ...w, ...decision.state }, new Date(i + 1))
      })
      assert.strictEqual(left, 1)
      assert.notStrictEqual(w.status, "Pending")
      assert.deepStrictEqual(w.events.map((e) => e.eventID), [1, 2])
      assert.strictEqual(w.events[1]!.status, w.status)
      assert.deepStrictEqual(w.events[1]!.failure, w.failure)
    }
  )
})

type Step =
  | { readonly _tag: "Deposit"; readonly wallet: number; readonly amount: number }
  | { readonly _tag: "Withdraw"; readonly wallet: number; readonly card: number; readonly amount: number }
  | { readonly _tag: "Settle" }

const WALLETS = 2
const CARDS = ["4242424242424242", "4000000100000019"]

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  FastCheck.record({ wallet: FastCheck.nat(WALLETS - 1), amount: FastCheck.integer({ min: 1, max: 2_000 }) })
    .map((s): Step => ({ _tag: "Deposit", ...s })),
  FastCheck.record({
    wallet: FastCheck.nat(WALLETS - 1),
    card: FastCheck.nat(CARDS.length - 1),
    amount: FastCheck.integer({ min: 100, max: 1_500 })
  }).map((s): Step => ({ _tag: "Withdraw", ...s })),
  FastCheck.constant<Step>({ _tag: "Settle" })
)

describe("Wallet ledger with withdrawals", () => {
  it.effect.prop(
    "generated deposits and withdrawals keep the ledger whole and never take a wallet below zero",
    [FastCheck.array(stepArb, { minLength: 1, maxLength: 20 })],
    ([steps]) =>
      Effect.gen(function*() {
        const m = yield* Arrange.merchant
        const wallets = []
        for (let i = 0; i < WALLETS; i++) wallets.push(yield* wallet(m.partyID))
        const destinations = []
        for (const card of CARDS) destinations.push(yield* destination(m.partyID, card))
        const withdrawals = yield* WithdrawalService
        for (const step of steps) {
          switch (step._tag) {
            case "Deposit":
              yield* deposit(wallets[step.wallet]!.id, step.amount)
              break
            case "Withdraw":
              yield* withdrawals.create(m.partyID, {
                wallet: wallets[step.wallet]!.id,
                destination: destinations[step.card]!.id,
                body: { amount: step.amount, currency: "RUB" }
              })
              break
            case "Settle":
              yield* MemoryKassa.settle
          }
          yield* checkLedger(false)
        }
        yield* MemoryKassa.settle
        yield* checkLedger(true)
      }).pipe(Effect.provide(MemoryKassa.layer)),
    { fastCheck: { numRuns: 30 } }
  )
})

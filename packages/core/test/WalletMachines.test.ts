/**
 * The wallet side's machines and ledger, property-tested: generated command sequences move a
 * movement (deposit, revert, adjustment, W2W transfer) and an identity challenge only along their
 * legal moves, leaving Pending once; generated runs of deposits, reverts, adjustments and
 * transfers on the memory Kassa keep the ledger whole: every plan sums to zero per currency, each
 * balance is the sum of its committed postings, no wallet's `own` is below zero and, once
 * settled, no hold is left.
 */
import { assert, describe, it } from "@effect/vitest"
import { DepositService } from "@kassa/core/deposit/DepositService"
import { ChallengeCommand, decide as decideChallenge, legalMoves as challengeMoves } from "@kassa/core/identity/ChallengeMachine"
import type { ChallengeState } from "@kassa/core/identity/ChallengeMachine"
import { decide, legalMoves, MovementCommand, type MovementState } from "@kassa/core/movement/Movement"
import { W2WService } from "@kassa/core/transfer/W2WService"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Arrange from "./support/Arrange.js"
import { checkLedger } from "./support/LedgerInvariants.js"
import * as MemoryKassa from "./support/MemoryKassa.js"
import { wallet } from "./support/WalletArrange.js"

const movementCommandArb: FastCheck.Arbitrary<MovementCommand> = FastCheck.oneof(
  FastCheck.constant(MovementCommand.Succeed()),
  FastCheck.constantFrom("account_limit_exceeded", "unknown").map((code) => MovementCommand.Fail({ failure: { code } }))
)

const challengeCommandArb: FastCheck.Arbitrary<ChallengeCommand> = FastCheck.oneof(
  FastCheck.constant(ChallengeCommand.Complete({ validUntil: new Date(0) })),
  FastCheck.constant(ChallengeCommand.Fail({ reason: "Proof rejected" })),
  FastCheck.constant(ChallengeCommand.Cancel())
)

describe("Movement machine", () => {
  it.prop(
    "generated command sequences leave Pending once, along legalMoves, settling the plan exactly once",
    [FastCheck.array(movementCommandArb, { minLength: 1, maxLength: 20 })],
    ([commands]) => {
      let state: MovementState = { status: "Pending" }
      let plans = 0
      let left = 0
      for (const command of commands) {
        const before = state
        const decision = decide(before, command)
        if (decision.plan !== undefined) plans++
        if (decision.state.status !== before.status) {
          assert.include(legalMoves[before.status], decision.state.status)
          if (before.status === "Pending") left++
          assert.strictEqual(decision.plan, decision.state.status === "Succeeded" ? "commit" : "rollback")
        } else {
          assert.strictEqual(decision.state, before, "a settled movement changes nothing")
          assert.isUndefined(decision.plan)
        }
        state = decision.state
      }
      assert.strictEqual(left, 1)
      assert.strictEqual(plans, 1)
      assert.notStrictEqual(state.status, "Pending")
      assert.strictEqual(state.failure === undefined, state.status === "Succeeded")
    }
  )
})

describe("Challenge machine", () => {
  it.prop(
    "generated command sequences leave Pending once, along legalMoves",
    [FastCheck.array(challengeCommandArb, { minLength: 1, maxLength: 20 })],
    ([commands]) => {
      let state: ChallengeState = { status: "Pending" }
      let moves = 0
      for (const command of commands) {
        const { moved, state: next } = decideChallenge(state, command)
        if (moved) {
          moves++
          assert.include(challengeMoves[state.status], next.status)
        } else {
          assert.strictEqual(next, state)
        }
        state = next
      }
      assert.strictEqual(moves, 1)
      assert.strictEqual(state.status, commands[0]!._tag === "Complete" ? "Completed" : commands[0]!._tag === "Fail" ? "Failed" : "Cancelled")
    }
  )
})

type Step =
  | { readonly _tag: "Deposit"; readonly wallet: number; readonly amount: number }
  | { readonly _tag: "Transfer"; readonly from: number; readonly to: number; readonly amount: number }
  | { readonly _tag: "Revert"; readonly pick: number; readonly amount: number }
  | { readonly _tag: "Adjust"; readonly pick: number }
  | { readonly _tag: "Settle" }

const WALLETS = 3

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  FastCheck.record({ wallet: FastCheck.nat(WALLETS - 1), amount: FastCheck.integer({ min: 1, max: 1_000 }) })
    .map((s): Step => ({ _tag: "Deposit", ...s })),
  FastCheck.record({ from: FastCheck.nat(WALLETS - 1), to: FastCheck.nat(WALLETS - 1), amount: FastCheck.integer({ min: 1, max: 800 }) })
    .map((s): Step => ({ _tag: "Transfer", ...s })),
  FastCheck.record({ pick: FastCheck.nat(10), amount: FastCheck.integer({ min: 1, max: 600 }) }).map((s): Step => ({ _tag: "Revert", ...s })),
  FastCheck.record({ pick: FastCheck.nat(10) }).map((s): Step => ({ _tag: "Adjust", ...s })),
  FastCheck.constant<Step>({ _tag: "Settle" })
)

describe("Wallet ledger", () => {
  it.effect.prop(
    "generated deposits, reverts, adjustments and transfers keep the ledger whole",
    [FastCheck.array(stepArb, { minLength: 1, maxLength: 25 })],
    ([steps]) =>
      Effect.gen(function*() {
        const m = yield* Arrange.merchant
        const wallets = []
        for (let i = 0; i < WALLETS; i++) wallets.push(yield* wallet(m.partyID))
        const deposits = yield* DepositService
        const transfers = yield* W2WService
        const made: Array<string> = []
        for (const step of steps) {
          switch (step._tag) {
            case "Deposit":
              made.push((yield* deposits.create({ wallet: wallets[step.wallet]!.id, source: "s", body: { amount: step.amount, currency: "RUB" } })).id)
              break
            case "Transfer":
              yield* Effect.either(transfers.create(m.partyID, {
                sender: wallets[step.from]!.id,
                receiver: wallets[step.to]!.id,
                body: { amount: step.amount, currency: "RUB" }
              }))
              break
            case "Revert":
              if (made.length > 0) {
                yield* Effect.either(deposits.revert(made[step.pick % made.length]!, { body: { amount: step.amount, currency: "RUB" } }))
              }
              break
            case "Adjust":
              if (made.length > 0) {
                const id = made[step.pick % made.length]!
                const d = yield* deposits.get(id)
                yield* Effect.either(deposits.adjust(id, { status: d.status === "Succeeded" ? "Failed" : "Succeeded" }))
              }
              break
            case "Settle":
              yield* MemoryKassa.settle
          }
          yield* checkLedger(false)
        }
        yield* MemoryKassa.settle
        yield* checkLedger(true)
      }).pipe(Effect.provide(MemoryKassa.layer)),
    { fastCheck: { numRuns: 40 } }
  )
})

import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { BankCards, DepositService, DestinationService, IdentityService, WalletService, WithdrawalService } from "@kassa/core"
import { Dialects, Fixtures, LedgerChecks } from "@kassa/testing"
import * as Effect from "effect/Effect"
import { crashAndRestart, sleepReal } from "./support/Restart.js"

/**
 * The crash test of withdrawals: a process starts withdrawals to the test provider's cards (one
 * in a slow payout, one the provider is unavailable for at first, one just started, one to a
 * rejected card) and dies; a second process on the same database finishes each exactly once:
 * its final status, two status events (logged once each for its webhooks), the plan committed
 * or rolled back, no timer left.
 */

const poll = <A>(read: Effect.Effect<A>, done: (a: A) => boolean, what: string, ms = 10_000) =>
  Effect.gen(function*() {
    const until = Date.now() + ms
    let a = yield* read
    while (!done(a) && Date.now() < until) {
      yield* sleepReal(25)
      a = yield* read
    }
    assert.isTrue(done(a), what)
    return a
  })

const cases = [
  { name: "slow payout in flight", card: "4000000100000068", status: "Succeeded" },
  { name: "provider unavailable at first", card: "4000000100000050", status: "Succeeded" },
  { name: "just started", card: "4242424242424242", status: "Succeeded" },
  { name: "rejected card", card: "4000000100000019", status: "Failed" }
] as const

const firstRun = Effect.gen(function*() {
  const m = yield* Fixtures.merchant()
  const identity = yield* (yield* IdentityService.IdentityService).create(m.partyID, { name: "Ivan", provider: "test" })
  const wallet = yield* (yield* WalletService.WalletService).create(m.partyID, { name: "Main", identity: identity.id, currency: "RUB" })
  const deposits = yield* DepositService.DepositService
  const d = yield* deposits.create({ wallet: wallet.id, source: "src-1", body: { amount: 10_000, currency: "RUB" } })
  yield* poll(Effect.orDie(deposits.get(d.id)), (x) => x.status === "Succeeded", "the deposit")
  const destinations = yield* DestinationService.DestinationService
  const withdrawals = yield* WithdrawalService.WithdrawalService
  const started = []
  for (const c of cases) {
    const token = yield* (yield* BankCards.BankCards).store(m.partyID, { cardNumber: c.card, expDate: "12/40" })
    const dest = yield* destinations.create(m.partyID, {
      name: c.name,
      identity: identity.id,
      currency: "RUB",
      resource: { type: "BankCardDestinationResource", token: token.token }
    })
    yield* poll(Effect.orDie(destinations.get(m.partyID, dest.id)), (x) => x.status === "Authorized", `${c.name}: authorized`)
    const w = yield* withdrawals.create(m.partyID, { wallet: wallet.id, destination: dest.id, body: { amount: 1_000, currency: "RUB" } })
    started.push({ ...c, id: w.id })
  }
  for (const c of started.slice(0, 2)) {
    assert.strictEqual((yield* withdrawals.get(m.partyID, c.id)).status, "Pending", `${c.name}: pending at the crash`)
  }
  return { partyID: m.partyID, walletID: wallet.id, started }
})

const secondRun = (setup: Effect.Effect.Success<typeof firstRun>) =>
  Effect.gen(function*() {
    const withdrawals = yield* WithdrawalService.WithdrawalService
    const sql = yield* SqlClient.SqlClient
    for (const c of setup.started) {
      yield* poll(Effect.orDie(withdrawals.get(setup.partyID, c.id)), (w) => w.status !== "Pending", `${c.name}: settled after the restart`, 20_000)
    }
    // time for duplicated work to show up, were there any: several recovery periods
    yield* sleepReal(1_500)
    let paid = 0
    for (const c of setup.started) {
      const w = yield* withdrawals.get(setup.partyID, c.id)
      assert.strictEqual(w.status, c.status, c.name)
      assert.deepStrictEqual(w.events.map((e) => e.status), ["Pending", c.status], `${c.name}: events`)
      if (w.status === "Succeeded") paid += w.amount + w.fee
      const plan = (yield* LedgerChecks.snapshot).plans.find((p) => p.id === `withdrawal/${c.id}`)
      assert.strictEqual(plan?.state, c.status === "Succeeded" ? "commit" : "rollback", `${c.name}: ledger plan`)
      const timers = yield* sql<{ kind: string }>`SELECT kind FROM timers WHERE subject = ${c.id}`.pipe(Effect.orDie)
      assert.deepStrictEqual(timers, [], `${c.name}: timers left`)
      // each status event logged once, for its webhooks' notification
      const logged = yield* sql<{ id: unknown }>`SELECT id FROM events WHERE aggregate_type = 'withdrawal' AND aggregate_id = ${c.id} ORDER BY id`.pipe(
        Effect.orDie
      )
      assert.deepStrictEqual(logged.map((e) => Number(e.id)), [1, 2], `${c.name}: logged events`)
    }
    yield* LedgerChecks.invariants
    const account = yield* (yield* WalletService.WalletService).account(setup.partyID, setup.walletID)
    assert.deepStrictEqual([account.own.amount, account.available.amount], [10_000 - paid, 10_000 - paid])
  })

for (const dialect of Dialects.dialects()) {
  describe(`Withdrawals recovery [${dialect}]`, () => {
    it.live(
      "a process dies with withdrawals in flight; the restarted one finishes each exactly once",
      () => crashAndRestart(dialect, firstRun, secondRun),
      60_000
    )
  })
}

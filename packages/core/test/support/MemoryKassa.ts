/**
 * Core's services on the memory ports and the scripted acquirer, and the helpers that let a
 * test move time: `settle` waits for the background work and the timers due now, `elapse`
 * moves the `TestClock` and settles.
 */
import { ChargebackService } from "@kassa/core/chargeback/ChargebackService"
import { BankCards } from "@kassa/core/payres/BankCards"
import { ContractService } from "@kassa/core/contract/ContractService"
import { CustomerService } from "@kassa/core/customer/CustomerService"
import { DepositService } from "@kassa/core/deposit/DepositService"
import { DestinationService } from "@kassa/core/destination/DestinationService"
import { IdentityService } from "@kassa/core/identity/IdentityService"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as MemoryPorts from "@kassa/core/memory/MemoryPorts"
import { MemoryScheduler } from "@kassa/core/memory/MemoryTimers"
import { MemoryBackground } from "@kassa/core/memory/MemoryTransactions"
import * as ScriptedAcquirer from "@kassa/core/memory/ScriptedAcquirer"
import * as TestPayoutProvider from "@kassa/core/memory/TestPayoutProvider"
import { Onboarding } from "@kassa/core/onboarding/Onboarding"
import { PartyService } from "@kassa/core/party/PartyService"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { RefundService } from "@kassa/core/refund/RefundService"
import * as Settings from "@kassa/core/Settings"
import { ShopService } from "@kassa/core/shop/ShopService"
import { PaymentResources } from "@kassa/core/tokenization/PaymentResources"
import { W2WService } from "@kassa/core/transfer/W2WService"
import { WalletService } from "@kassa/core/wallet/WalletService"
import { ReportService } from "@kassa/core/report/ReportService"
import { WithdrawalService } from "@kassa/core/withdrawal/WithdrawalService"
import * as Chunk from "effect/Chunk"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as IssuedJwt from "./IssuedJwt.js"
import { referenceSet } from "./ReferenceSet.js"

/** When every test starts (`it.effect` starts the `TestClock` at the epoch). */
export const START = Date.UTC(2026, 0, 15, 12, 0, 0)

export const services = Layer.mergeAll(
  Onboarding.Default,
  PartyService.Default,
  ShopService.Default,
  ContractService.Default,
  InvoiceService.Default,
  PaymentResources.Default,
  PaymentService.Default,
  RefundService.Default,
  ChargebackService.Default,
  CustomerService.Default,
  IdentityService.Default,
  WalletService.Default,
  DepositService.Default,
  W2WService.Default,
  BankCards.Default,
  DestinationService.Default,
  WithdrawalService.Default,
  ReportService.Default
)

/** A new, empty Kassa in memory, its clock at `START`. */
export const layer = services.pipe(
  Layer.provideMerge(Layer.mergeAll(
    MemoryPorts.layerMemory({ reference: referenceSet }),
    ScriptedAcquirer.layer,
    TestPayoutProvider.layer,
    IssuedJwt.layer,
    Settings.layer()
  )),
  Layer.provideMerge(Layer.effectDiscard(TestClock.setTime(START)))
)

/**
 * Until nothing is left to do at the current time: no background work running and no timer
 * due (each pass of the timers runs after the scheduler's own, so none is missed). Work waiting
 * on the clock for a later instant is waited for too: move the clock with `TestClock.adjust`
 * while a call races its deadline.
 */
export const settle = Effect.gen(function*() {
  const background = yield* MemoryBackground
  const scheduler = yield* MemoryScheduler
  while (true) {
    yield* background.awaitIdle
    const fired = yield* scheduler.runDue
    if (fired === 0 && (yield* background.running) === 0) return
  }
})

/** Moves the clock by `duration`, then settles. */
export const elapse = (duration: Duration.DurationInput) => Effect.zipRight(TestClock.adjust(duration), settle)

/**
 * Until some fiber sleeps till `instant` (a call racing a deadline has started its timer), so
 * moving the clock past it wakes that fiber.
 */
export const awaitSleepUntil = (instant: number) =>
  Effect.gen(function*() {
    while (!Chunk.some(yield* TestClock.sleeps(), (at) => at === instant)) yield* Effect.yieldNow()
  })

/**
 * Arbitraries for a payment's life after its creation: capture amounts, refund sequences against
 * what was captured, and whole command sequences (capture or cancel a hold, refunds, a stray
 * command out of order) for a model-based run.
 *
 * The amounts are valid on the wire; whether a command succeeds is the model's call: the test
 * acquirer also declines refunds of amounts ending in 99 and of payments by its refund-declining
 * card, and the demo takes a fee of 100 per refund from the shop's settlement balance.
 *
 * @since 0.1.0
 */
import type * as TestAcquirer from "@kassa/adapters/TestAcquirer"
import * as FastCheck from "effect/FastCheck"
import * as Arbitraries from "./Arbitraries.js"

/** A capture of at most the authorised amount. @since 0.1.0 @category arbitraries */
export const captureAmount = (authorised: number): FastCheck.Arbitrary<number> =>
  FastCheck.integer({ min: 1, max: authorised })

/**
 * One refund attempt: `withinRemainder` says whether `amount` is at most what the refunds before
 * it left of the captured amount (assuming they all succeeded).
 *
 * @since 0.1.0 @category models
 */
export interface RefundAttempt {
  readonly amount: number
  readonly withinRemainder: boolean
}

/**
 * Partial refunds whose sum is at most `captured`, with up to two attempts above the remainder
 * left at their place in the sequence (by 1 to 1 000).
 *
 * @since 0.1.0 @category arbitraries
 */
export const refundAttempts = (captured: number): FastCheck.Arbitrary<ReadonlyArray<RefundAttempt>> =>
  FastCheck.tuple(
    FastCheck.integer({ min: 0, max: captured }).chain((refunded) =>
      refunded === 0 ? FastCheck.constant([]) : Arbitraries.split(refunded, { min: 1, max: 5 })
    ),
    FastCheck.array(FastCheck.tuple(FastCheck.nat(), FastCheck.integer({ min: 1, max: 1000 })), { maxLength: 2 })
  ).map(([partial, overs]) => {
    const at = (position: number) => position % (partial.length + 1)
    const attempts: Array<RefundAttempt> = []
    let remainder = captured
    for (let i = 0; i <= partial.length; i++) {
      for (const [position, excess] of overs) {
        if (at(position) === i) attempts.push({ amount: remainder + excess, withinRemainder: false })
      }
      const amount = partial[i]
      if (amount !== undefined) {
        attempts.push({ amount, withinRemainder: true })
        remainder -= amount
      }
    }
    return attempts
  })

/** A command of a payment's life after its creation. @since 0.1.0 @category models */
export type LifeCommand =
  | { readonly _tag: "Capture"; readonly amount: number }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "Refund"; readonly amount: number }

/** A payment to create and the commands to run on it, in order. @since 0.1.0 @category models */
export interface PaymentLife {
  readonly amount: number
  readonly currency: string
  readonly flow: "PaymentFlowInstant" | "PaymentFlowHold"
  readonly card: TestAcquirer.TestCard
  readonly commands: ReadonlyArray<LifeCommand>
}

const refunds = (captured: number) =>
  refundAttempts(captured).map((attempts) => attempts.map(({ amount }): LifeCommand => ({ _tag: "Refund", amount })))

const afterHold = (authorised: number): FastCheck.Arbitrary<ReadonlyArray<LifeCommand>> =>
  FastCheck.oneof(
    captureAmount(authorised).chain((captured) =>
      refunds(captured).map((rs): ReadonlyArray<LifeCommand> => [{ _tag: "Capture", amount: captured }, ...rs])
    ),
    FastCheck.constant<ReadonlyArray<LifeCommand>>([{ _tag: "Cancel" }]),
    FastCheck.constant<ReadonlyArray<LifeCommand>>([])
  )

const stray = (authorised: number): FastCheck.Arbitrary<LifeCommand> =>
  FastCheck.oneof(
    captureAmount(authorised).map((amount): LifeCommand => ({ _tag: "Capture", amount })),
    FastCheck.constant<LifeCommand>({ _tag: "Cancel" }),
    captureAmount(authorised).map((amount): LifeCommand => ({ _tag: "Refund", amount }))
  )

/**
 * A payment's life: amount, currency, flow and test card, then the commands a merchant would
 * send (an instant payment's refunds; a hold's capture with refunds, its cancel, or nothing), and
 * sometimes one stray command at a random place (a second capture, a refund of a hold) that the
 * platform must refuse or accept as a model decides.
 *
 * @since 0.1.0 @category arbitraries
 */
export const paymentLife: FastCheck.Arbitrary<PaymentLife> = FastCheck.record({
  amount: Arbitraries.amount,
  currency: Arbitraries.currency,
  flow: FastCheck.constantFrom("PaymentFlowInstant" as const, "PaymentFlowHold" as const),
  card: Arbitraries.testCard
}).chain((payment) =>
  FastCheck.tuple(
    payment.flow === "PaymentFlowInstant" ? refunds(payment.amount) : afterHold(payment.amount),
    FastCheck.option(FastCheck.tuple(stray(payment.amount), FastCheck.nat()), { nil: undefined, freq: 4 })
  ).map(([commands, extra]) => {
    if (extra === undefined) return { ...payment, commands }
    const [command, position] = extra
    const at = position % (commands.length + 1)
    return { ...payment, commands: [...commands.slice(0, at), command, ...commands.slice(at)] }
  })
)

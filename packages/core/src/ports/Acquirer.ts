/**
 * The acquirer: who authorises, captures, cancels and refunds with the card networks. Kassa
 * ships a deterministic test acquirer; a real provider plugs in here.
 *
 * Every call names its operation (`operationID`), and the acquirer answers a repeated call with
 * the first answer, so a crash between the call and the write of its outcome is safe to retry.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { PaymentError } from "../payment/PaymentError.js"
import type { CardData } from "./CardVault.js"

/** The payment tool as the acquirer receives it. @since 0.1.0 @category models */
export type AcquirerTool =
  | { readonly type: "BankCard"; readonly card: CardData; readonly paymentSystem: string; readonly cvv?: string | undefined }
  | { readonly type: "PaymentTerminal"; readonly provider: string }
  | { readonly type: "DigitalWallet"; readonly provider: string; readonly id: string }
  | { readonly type: "CryptoWallet"; readonly cryptoCurrency: string }
  | { readonly type: "MobileCommerce"; readonly phone: string }
  | { readonly type: "Recurrent"; readonly recurrentToken: string }

/** @since 0.1.0 @category models */
export interface Transaction {
  readonly id: string
  readonly rrn: string
  readonly approvalCode: string
}

/** @since 0.1.0 @category models */
export type AuthorizeResult =
  | { readonly _tag: "Authorized"; readonly transaction: Transaction; readonly recurrentToken?: string | undefined }
  | { readonly _tag: "Declined"; readonly error: PaymentError; readonly message: string }
  /** 3-D Secure: the payer must pass a challenge; `completeInteraction` continues. */
  | { readonly _tag: "InteractionRequired"; readonly challenge: string }

/** @since 0.1.0 @category models */
export type OperationResult =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Declined"; readonly error: PaymentError; readonly message: string }

/**
 * What the acquirer has done with an operation so far: nothing (it never took the operation, or
 * it still waits for a 3-D Secure challenge), authorised it, captured it, cancelled it, or
 * declined it.
 *
 * @since 0.1.0
 * @category models
 */
export type OperationStatus =
  | { readonly _tag: "Nothing" }
  | { readonly _tag: "Authorized"; readonly transaction: Transaction; readonly recurrentToken?: string | undefined }
  | { readonly _tag: "Captured"; readonly transaction: Transaction; readonly recurrentToken?: string | undefined }
  | { readonly _tag: "Cancelled" }
  | { readonly _tag: "Declined" }

/** @since 0.1.0 @category models */
export interface AuthorizeRequest {
  readonly operationID: string
  readonly amount: number
  readonly currency: string
  readonly tool: AcquirerTool
  readonly hold: boolean
  readonly makeRecurrent: boolean
  /**
   * When Kassa gives up waiting: an acquirer with no answer by then answers `DeadlineReached`
   * and stops, having authorised nothing (Kassa then asks `status`). Without one it may take as
   * long as it takes.
   */
  readonly deadline?: Date | undefined
}

/**
 * What `authorize` answers: the acquirer's result, or `DeadlineReached` when the request's
 * deadline came first (never without a deadline).
 *
 * @since 0.1.0
 * @category models
 */
export type AuthorizeAnswer = AuthorizeResult | { readonly _tag: "DeadlineReached" }

/** @since 0.1.0 @category tags */
export class Acquirer extends Context.Tag("kassa/Acquirer")<Acquirer, {
  readonly authorize: (request: AuthorizeRequest) => Effect.Effect<AuthorizeAnswer>
  /** The payer passed (`true`) or failed the challenge. */
  readonly completeInteraction: (operationID: string, passed: boolean) => Effect.Effect<AuthorizeResult>
  readonly capture: (operationID: string, amount: number, currency: string) => Effect.Effect<OperationResult>
  readonly cancel: (operationID: string) => Effect.Effect<OperationResult>
  /**
   * What the acquirer did with the operation: asked before a payment whose work a crash
   * interrupted is given up, since the acquirer may have authorised or captured it meanwhile.
   */
  readonly status: (operationID: string) => Effect.Effect<OperationStatus>
  readonly refund: (
    operationID: string,
    refundID: string,
    amount: number,
    currency: string
  ) => Effect.Effect<OperationResult>
}>() {}

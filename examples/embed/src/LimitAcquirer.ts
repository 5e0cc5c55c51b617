/**
 * This program's acquirer: it authorises a card payment up to a limit and declines a larger one
 * with the interface's `authorization_failed > account_limit_exceeded > amount`. Its answers
 * depend only on the request, so a repeated call (the same `operationID`) gets the first answer,
 * as the `Acquirer` port asks. A real one would call its provider here.
 */
import { PaymentError } from "@kassa/core"
import { Acquirer, type AuthorizeResult, type OperationResult, type OperationStatus } from "@kassa/core/ports/Acquirer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const done: OperationResult = { _tag: "Done" }

/** The acquirer as a layer; `record` hears of every call, for the program to print. */
export const layer = (limit: number, record: (call: string) => void) => {
  // what it did with each operation, for `status`
  const did = new Map<string, OperationStatus>()
  const transactionOf = (operationID: string) => ({ id: `lim-${operationID}`, rrn: "000000000001", approvalCode: "000001" })
  return Layer.succeed(Acquirer, {
    authorize: (request) =>
      Effect.sync((): AuthorizeResult => {
        record(`authorize ${request.amount} ${request.currency}`)
        if (request.amount > limit) {
          did.set(request.operationID, { _tag: "Declined" })
          return {
            _tag: "Declined",
            error: PaymentError.of("authorization_failed", "account_limit_exceeded", "amount"),
            message: `over the limit of ${limit}`
          }
        }
        const transaction = transactionOf(request.operationID)
        did.set(request.operationID, { _tag: "Authorized", transaction })
        return { _tag: "Authorized", transaction }
      }),
    completeInteraction: (operationID) =>
      Effect.sync((): AuthorizeResult => ({
        _tag: "Declined",
        error: PaymentError.of("preauthorization_failed"),
        message: `no 3-D Secure here (${operationID})`
      })),
    capture: (operationID, amount, currency) =>
      Effect.sync(() => {
        record(`capture ${amount} ${currency}`)
        did.set(operationID, { _tag: "Captured", transaction: transactionOf(operationID) })
        return done
      }),
    cancel: (operationID) =>
      Effect.sync(() => {
        record("cancel")
        did.set(operationID, { _tag: "Cancelled" })
        return done
      }),
    status: (operationID) => Effect.sync(() => did.get(operationID) ?? { _tag: "Nothing" }),
    refund: (_operationID, _refundID, amount, currency) => Effect.sync(() => (record(`refund ${amount} ${currency}`), done))
  })
}

/**
 * The wallet-to-wallet transfer: from the caller's wallet to any wallet of the same currency.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Identifier } from "../Ids.js"
import { Currency } from "../Money.js"
import { type MovementStatus, type SubFailure, toStatus } from "../movement/Movement.js"

/** createW2WTransfer's body (the amount is checked by the service: "Bad transfer amount"). @since 0.1.0 @category schemas */
export const W2WTransferParams = Schema.Struct({
  sender: Identifier,
  receiver: Identifier,
  body: Schema.Struct({ amount: Schema.Int, currency: Currency }),
  externalID: Schema.optional(Identifier)
}).annotations({ identifier: "W2WTransferParameters" })
/** @since 0.1.0 */
export type W2WTransferParams = typeof W2WTransferParams.Type

/** @since 0.1.0 @category models */
export interface W2WTransferRecord {
  readonly id: string
  /** The sender's party, who made it. */
  readonly partyID: string
  readonly senderID: string
  readonly receiverID: string
  readonly amount: number
  readonly currency: string
  readonly externalID?: string | undefined
  readonly status: MovementStatus
  readonly failure?: SubFailure | undefined
  readonly createdAt: Date
  readonly version: number
}

/** @since 0.1.0 */
export const toW2WTransfer = (t: W2WTransferRecord) => ({
  id: t.id,
  createdAt: t.createdAt,
  body: { amount: t.amount, currency: t.currency },
  sender: t.senderID,
  receiver: t.receiverID,
  status: toStatus(t),
  ...(t.externalID === undefined ? {} : { externalID: t.externalID })
})

/**
 * The party: a merchant organisation owning contracts, shops, invoices, webhooks and customers.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { PartyID } from "../Ids.js"

/**
 * The party as the interface shows it.
 *
 * @since 0.1.0 @category models
 */
export const Party = Schema.Struct({
  id: PartyID,
  isBlocked: Schema.Boolean,
  isSuspended: Schema.Boolean
})
/** @since 0.1.0 */
export type Party = typeof Party.Type

/**
 * The party as stored: the interface's fields plus bookkeeping.
 *
 * @since 0.1.0 @category models
 */
export interface PartyRecord extends Party {
  readonly name: string
  readonly email: string
  readonly createdAt: Date
  readonly version: number
}

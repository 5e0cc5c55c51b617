/**
 * The wallet webhook: a URL of one identity subscribed to its withdrawals (of one wallet, or all)
 * or its destinations, with the event types it wants. Its notifications are signed with the
 * party's webhook key, the same key the payments webhooks use.
 *
 * @since 0.1.0
 */

import * as Schema from "effect/Schema"

/** @since 0.1.0 @category schemas */
export const WithdrawalsEventType = Schema.Literal("WithdrawalStarted", "WithdrawalSucceeded", "WithdrawalFailed")
/** @since 0.1.0 */
export type WithdrawalsEventType = typeof WithdrawalsEventType.Type

/** @since 0.1.0 @category schemas */
export const DestinationsEventType = Schema.Literal("DestinationCreated", "DestinationUnauthorized", "DestinationAuthorized")
/** @since 0.1.0 */
export type DestinationsEventType = typeof DestinationsEventType.Type

/** @since 0.1.0 @category schemas */
export const WalletWebhookScope = Schema.Union(
  Schema.Struct({
    topic: Schema.Literal("WithdrawalsTopic"),
    walletID: Schema.optional(Schema.String),
    eventTypes: Schema.Array(WithdrawalsEventType)
  }),
  Schema.Struct({ topic: Schema.Literal("DestinationsTopic"), eventTypes: Schema.Array(DestinationsEventType) })
)
/** @since 0.1.0 */
export type WalletWebhookScope = typeof WalletWebhookScope.Type

/** @since 0.1.0 */
export type WalletTopic = WalletWebhookScope["topic"]

/** The webhook as stored. @since 0.1.0 @category models */
export interface WalletWebhookRecord {
  readonly id: string
  readonly partyID: string
  readonly identityID: string
  readonly scope: WalletWebhookScope
  readonly url: string
  readonly createdAt: Date
}

/** The webhook as the interface answers it. @since 0.1.0 @category models */
export interface WalletWebhook {
  readonly id: string
  readonly identityID: string
  readonly active: boolean
  readonly scope: WalletWebhookScope
  readonly url: string
  readonly publicKey: string
}

/** @since 0.1.0 */
export const toWalletWebhook = (r: WalletWebhookRecord, publicKey: string): WalletWebhook => ({
  id: r.id,
  identityID: r.identityID,
  active: true,
  scope: r.scope.topic === "WithdrawalsTopic"
    ? {
      topic: r.scope.topic,
      ...(r.scope.walletID === undefined ? {} : { walletID: r.scope.walletID }),
      eventTypes: r.scope.eventTypes
    }
    : r.scope,
  url: r.url,
  publicKey
})

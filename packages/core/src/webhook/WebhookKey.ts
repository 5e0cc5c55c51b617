/**
 * The key pair that signs a party's notifications: one per party, shared by all its webhooks,
 * so every webhook of the party shows the same `publicKey`. The operator can rotate it: the new
 * pair signs from then on, and a notification queued before the rotation is still signed with
 * the key it was queued under for `ROTATION_WINDOW_MS` after the rotation (the header carries one
 * signature only), so a receiver has that long to take the new `publicKey`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** How long a retired key still signs the notifications queued before its rotation. @since 0.1.0 */
export const ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000

/** @since 0.1.0 @category models */
export interface PartyWebhookKey {
  readonly id: string
  readonly partyID: string
  /** The SubjectPublicKeyInfo as a PEM block. */
  readonly publicKey: string
  /** Sealed: only `WebhookKeys` can use it; never logged, never answered. */
  readonly privateKeyRef: string
  readonly createdAt: Date
  readonly retiredAt?: Date | undefined
}

/**
 * The sealed key a notification is signed with at `now`: the key it was queued under while that
 * key is current or retired less than `ROTATION_WINDOW_MS` ago, else the party's current key.
 *
 * @since 0.1.0
 */
export const signingKeyRef = (
  queuedUnder: { readonly privateKeyRef: string; readonly retiredAt: Date | undefined } | undefined,
  current: string,
  now: number
): string =>
  queuedUnder !== undefined && (queuedUnder.retiredAt === undefined || now < queuedUnder.retiredAt.getTime() + ROTATION_WINDOW_MS)
    ? queuedUnder.privateKeyRef
    : current

/** The rotation's answer to the operator. @since 0.1.0 @category schemas */
export const RotatedWebhookKey = Schema.Struct({
  partyID: Schema.String,
  /** The new key: every webhook of the party shows it, and it signs from now on. */
  publicKey: Schema.String,
  createdAt: Schema.DateFromString,
  /** The key it replaced, absent when the party had none. */
  previous: Schema.optional(Schema.Struct({
    publicKey: Schema.String,
    retiredAt: Schema.DateFromString,
    /** Until when notifications queued before the rotation are still signed with it. */
    signsQueuedUntil: Schema.DateFromString
  }))
}).annotations({ identifier: "RotatedWebhookKey" })
/** @since 0.1.0 */
export type RotatedWebhookKey = typeof RotatedWebhookKey.Type

/** The operator's answer for a rotation from `previous` (if any) to `current`. @since 0.1.0 */
export const rotated = (current: PartyWebhookKey, previous: PartyWebhookKey | undefined): RotatedWebhookKey => ({
  partyID: current.partyID,
  publicKey: current.publicKey,
  createdAt: current.createdAt,
  ...(previous === undefined || previous.retiredAt === undefined ? {} : {
    previous: {
      publicKey: previous.publicKey,
      retiredAt: previous.retiredAt,
      signsQueuedUntil: new Date(previous.retiredAt.getTime() + ROTATION_WINDOW_MS)
    }
  })
})

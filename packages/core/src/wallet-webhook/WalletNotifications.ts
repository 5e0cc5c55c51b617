/**
 * The wallet webhooks' notifications (wallets-webhook-events): what a withdrawal's status events
 * and a destination's creation and authorization become, and which webhooks want each one. The
 * card is shown masked, by bin and last digits only; never its token.
 *
 * The fan-out makes them from the events withdrawals and destinations log
 * (`WithdrawalMapper`, `DestinationMapper`).
 *
 * @since 0.1.0
 */
import type { DestinationRecord } from "../destination/Destination.js"
import type { WithdrawalEventRecord, WithdrawalRecord } from "../withdrawal/Withdrawal.js"
import type { WalletWebhookRecord } from "./WalletWebhook.js"

interface Event {
  readonly eventID: string
  readonly occuredAt: string
}

/** @since 0.1.0 @category models */
export type WalletNotification =
  | Event & {
    readonly topic: "WithdrawalTopic"
    readonly eventType: "WithdrawalStarted"
    readonly withdrawal: {
      readonly id: string
      readonly createdAt: string
      readonly wallet: string
      readonly destination: string
      readonly body: { readonly amount: number; readonly currency: string }
      readonly metadata?: Readonly<Record<string, unknown>>
      readonly externalID?: string
    }
  }
  | Event & {
    readonly topic: "WithdrawalTopic"
    readonly eventType: "WithdrawalSucceeded"
    readonly withdrawalID: string
    readonly externalID?: string
    readonly fee: { readonly amount: number; readonly currency: string }
    readonly body: { readonly amount: number; readonly currency: string }
  }
  | Event & { readonly topic: "WithdrawalTopic"; readonly eventType: "WithdrawalFailed"; readonly withdrawalID: string; readonly externalID?: string }
  | Event & {
    readonly topic: "DestinationTopic"
    readonly eventType: "DestinationCreated"
    readonly destination: {
      readonly id: string
      readonly name: string
      readonly identity: string
      readonly currency: string
      readonly resource: {
        readonly type: "BankCard"
        readonly cardNumberMask: string
        readonly bin: string
        readonly lastDigits: string
        readonly paymentSystem: string
      }
      readonly metadata?: Readonly<Record<string, unknown>>
      readonly externalID?: string
    }
  }
  | Event & {
    readonly topic: "DestinationTopic"
    readonly eventType: "DestinationAuthorized" | "DestinationUnauthorized"
    readonly destinationID: string
    readonly externalID?: string
  }

const externalID = (r: { readonly externalID?: string | undefined }) => (r.externalID === undefined ? {} : { externalID: r.externalID })
const metadata = (r: { readonly metadata?: Readonly<Record<string, unknown>> | undefined }) =>
  r.metadata === undefined ? {} : { metadata: r.metadata }

/**
 * The notification of one of the withdrawal's status events: Pending is its start, Succeeded
 * carries the fee and the amount paid out, Failed only the ids.
 *
 * @since 0.1.0
 */
export const ofWithdrawalEvent = (w: WithdrawalRecord, e: WithdrawalEventRecord): WalletNotification => {
  const event = { eventID: String(e.eventID), occuredAt: e.occuredAt.toISOString(), topic: "WithdrawalTopic" as const }
  switch (e.status) {
    case "Pending":
      return {
        ...event,
        eventType: "WithdrawalStarted",
        withdrawal: {
          id: w.id,
          createdAt: w.createdAt.toISOString(),
          wallet: w.walletID,
          destination: w.destinationID,
          body: { amount: w.amount, currency: w.currency },
          ...metadata(w),
          ...externalID(w)
        }
      }
    case "Succeeded":
      return {
        ...event,
        eventType: "WithdrawalSucceeded",
        withdrawalID: w.id,
        ...externalID(w),
        fee: { amount: w.fee, currency: w.currency },
        body: w.payout
      }
    case "Failed":
      return { ...event, eventType: "WithdrawalFailed", withdrawalID: w.id, ...externalID(w) }
  }
}

/** The destination's creation, numbered `eventID`. @since 0.1.0 */
export const ofDestinationCreated = (d: DestinationRecord, eventID: number): WalletNotification => ({
  eventID: String(eventID),
  occuredAt: d.createdAt.toISOString(),
  topic: "DestinationTopic",
  eventType: "DestinationCreated",
  destination: {
    id: d.id,
    name: d.name,
    identity: d.identityID,
    currency: d.currency,
    resource: {
      type: "BankCard",
      cardNumberMask: `${d.resource.bin}******${d.resource.lastDigits}`,
      bin: d.resource.bin,
      lastDigits: d.resource.lastDigits,
      paymentSystem: d.resource.paymentSystem
    },
    ...metadata(d),
    ...externalID(d)
  }
})

/** The destination's move to its current status at `at`, numbered `eventID`. @since 0.1.0 */
export const ofDestinationStatus = (d: DestinationRecord, eventID: number, at: Date): WalletNotification => ({
  eventID: String(eventID),
  occuredAt: at.toISOString(),
  topic: "DestinationTopic",
  eventType: d.status === "Authorized" ? "DestinationAuthorized" : "DestinationUnauthorized",
  destinationID: d.id,
  ...externalID(d)
})

/**
 * Whether `hook` wants the notification about an object of `identityID` (and, for withdrawals,
 * of `walletID`): its identity, its topic, one of its event types, and its wallet when it names
 * one.
 *
 * @since 0.1.0
 */
export const wants = (
  hook: WalletWebhookRecord,
  about: { readonly identityID: string; readonly walletID?: string | undefined },
  n: WalletNotification
): boolean => {
  if (hook.identityID !== about.identityID) return false
  const scope = hook.scope
  if (scope.topic === "WithdrawalsTopic") {
    return n.topic === "WithdrawalTopic" && (scope.walletID === undefined || scope.walletID === about.walletID) &&
      (scope.eventTypes as ReadonlyArray<string>).includes(n.eventType)
  }
  return n.topic === "DestinationTopic" && (scope.eventTypes as ReadonlyArray<string>).includes(n.eventType)
}

/**
 * The withdrawal: money paid out of a wallet to a destination. The wallet pays the body and the
 * fee; its status moves once, Pending → Succeeded | Failed (`movement/Movement`), and each move
 * is an event (`WithdrawalStatusChanged`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { type MovementStatus, SubFailure, toStatus, MovementStatus as StatusSchema } from "../movement/Movement.js"

/** createWithdrawal's body (both revisions). @since 0.1.0 @category models */
export interface WithdrawalParams {
  readonly wallet: string
  readonly destination: string
  readonly body: { readonly amount: number; readonly currency: string }
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly externalID?: string | undefined
  readonly walletGrant?: string | undefined
  readonly destinationGrant?: string | undefined
  readonly quoteToken?: string | undefined
}

/** A status change as stored. @since 0.1.0 @category schemas */
export const WithdrawalEventRecord = Schema.Struct({
  eventID: Schema.Int,
  occuredAt: Schema.Date,
  status: StatusSchema,
  failure: Schema.optional(SubFailure)
})
/** @since 0.1.0 */
export type WithdrawalEventRecord = typeof WithdrawalEventRecord.Type

/** The withdrawal as stored. @since 0.1.0 @category models */
export interface WithdrawalRecord {
  readonly id: string
  /** Who made it (the wallet's owner, or a party holding its grant). */
  readonly partyID: string
  /** The wallet owner's party: its webhooks are told of the withdrawal. */
  readonly walletPartyID: string
  readonly walletID: string
  /** The wallet's identity. */
  readonly identityID: string
  readonly destinationID: string
  readonly amount: number
  readonly currency: string
  readonly fee: number
  /** What the destination receives: the body, or the quote's `cashTo` in another currency. */
  readonly payout: { readonly amount: number; readonly currency: string }
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly externalID?: string | undefined
  /** The wallet grant it spent, given back if it fails. */
  readonly walletGrant?: string | undefined
  readonly status: MovementStatus
  readonly failure?: SubFailure | undefined
  /** Payout attempts so far. */
  readonly attempts: number
  readonly events: ReadonlyArray<WithdrawalEventRecord>
  readonly createdAt: Date
  readonly version: number
}

/** The withdrawal as both revisions show it. @since 0.1.0 */
export const toWithdrawal = (w: WithdrawalRecord) => ({
  id: w.id,
  createdAt: w.createdAt,
  wallet: w.walletID,
  destination: w.destinationID,
  body: { amount: w.amount, currency: w.currency },
  fee: { amount: w.fee, currency: w.currency },
  ...(w.metadata === undefined ? {} : { metadata: w.metadata }),
  ...(w.externalID === undefined ? {} : { externalID: w.externalID }),
  ...toStatus(w)
})

/** A stored event as the wire's WithdrawalEvent. @since 0.1.0 */
export const toWithdrawalEvent = (e: WithdrawalEventRecord) => ({
  eventID: e.eventID,
  occuredAt: e.occuredAt,
  changes: [{ type: "WithdrawalStatusChanged" as const, ...toStatus(e) }]
})

/** `w` with an event for its status when the last event shows another one. @since 0.1.0 */
export const withStatusEvent = (w: WithdrawalRecord, at: Date): WithdrawalRecord => {
  const last = w.events[w.events.length - 1]
  if (last !== undefined && last.status === w.status) return w
  const event: WithdrawalEventRecord = {
    eventID: (last?.eventID ?? 0) + 1,
    occuredAt: at,
    status: w.status,
    ...(w.failure === undefined ? {} : { failure: w.failure })
  }
  return { ...w, events: [...w.events, event] }
}

/** What `listWithdrawals` filters by. @since 0.1.0 @category models */
export interface WithdrawalFilter {
  /** Whose withdrawals (`visibleTo`): those it made and those from its wallets. */
  readonly partyID: string
  readonly walletID?: string | undefined
  readonly identityID?: string | undefined
  readonly withdrawalID?: string | undefined
  readonly destinationID?: string | undefined
  readonly status?: MovementStatus | undefined
  readonly createdAtFrom?: Date | undefined
  readonly createdAtTo?: Date | undefined
  readonly amountFrom?: number | undefined
  readonly amountTo?: number | undefined
  readonly currencyID?: string | undefined
}

/**
 * Whether the party may read the withdrawal: it made it, or it owns the wallet it came out of (a
 * withdrawal made with a wallet grant; the owner's webhooks tell of it, and the reference lists
 * withdrawals by their wallet's party).
 *
 * @since 0.1.0
 */
export const visibleTo = (w: WithdrawalRecord, partyID: string): boolean => w.partyID === partyID || w.walletPartyID === partyID

/** Whether a withdrawal passes `filter` (the memory adapter's and the tests' reading). @since 0.1.0 */
export const matches = (w: WithdrawalRecord, filter: WithdrawalFilter): boolean =>
  visibleTo(w, filter.partyID) &&
  (filter.walletID === undefined || w.walletID === filter.walletID) &&
  (filter.identityID === undefined || w.identityID === filter.identityID) &&
  (filter.withdrawalID === undefined || w.id === filter.withdrawalID) &&
  (filter.destinationID === undefined || w.destinationID === filter.destinationID) &&
  (filter.status === undefined || w.status === filter.status) &&
  (filter.createdAtFrom === undefined || w.createdAt.getTime() >= filter.createdAtFrom.getTime()) &&
  (filter.createdAtTo === undefined || w.createdAt.getTime() <= filter.createdAtTo.getTime()) &&
  (filter.amountFrom === undefined || w.amount >= filter.amountFrom) &&
  (filter.amountTo === undefined || w.amount <= filter.amountTo) &&
  (filter.currencyID === undefined || w.currency === filter.currencyID)

/**
 * The wallet: e-money of an identity in one currency, kept in one ledger account.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Identifier } from "../Ids.js"
import { Amount, Currency } from "../Money.js"
import { DateTime } from "../Time.js"

/** createWallet's body. @since 0.1.0 @category schemas */
export const WalletParams = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)),
  identity: Identifier,
  currency: Currency,
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  externalID: Schema.optional(Identifier)
}).annotations({ identifier: "WalletParams" })
/** @since 0.1.0 */
export type WalletParams = typeof WalletParams.Type

/** The wallet as stored. @since 0.1.0 @category models */
export interface WalletRecord {
  readonly id: string
  readonly partyID: string
  readonly identityID: string
  readonly name: string
  readonly currency: string
  readonly isBlocked: boolean
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly externalID?: string | undefined
  readonly createdAt: Date
  readonly version: number
}

/** @since 0.1.0 */
export const toWallet = (w: WalletRecord) => ({
  id: w.id,
  name: w.name,
  createdAt: w.createdAt,
  isBlocked: w.isBlocked,
  identity: w.identityID,
  currency: w.currency,
  ...(w.metadata === undefined ? {} : { metadata: w.metadata }),
  ...(w.externalID === undefined ? {} : { externalID: w.externalID })
})

/** What `listWallets` filters by. @since 0.1.0 @category models */
export interface WalletFilter {
  readonly partyID: string
  readonly identityID?: string | undefined
  readonly currencyID?: string | undefined
}

/** An amount of one currency, as the wallet interface writes cash. @since 0.1.0 @category schemas */
export const Cash = Schema.Struct({ amount: Schema.Int, currency: Currency })
/** @since 0.1.0 */
export type Cash = typeof Cash.Type

/** issueWalletGrant's body. @since 0.1.0 @category schemas */
export const WalletGrantParams = Schema.Struct({
  asset: Schema.Struct({ amount: Amount, currency: Currency }),
  validUntil: DateTime
}).annotations({ identifier: "WalletGrantRequest" })
/** @since 0.1.0 */
export type WalletGrantParams = typeof WalletGrantParams.Type

/** A grant as stored: its asset and what spending with it took so far. @since 0.1.0 @category models */
export interface WalletGrantRecord {
  /** The token's id (`jti`). */
  readonly id: string
  readonly partyID: string
  readonly walletID: string
  readonly amount: number
  readonly currency: string
  readonly validUntil: Date
  readonly spent: number
  readonly createdAt: Date
  readonly version: number
}

/**
 * Destinations: where withdrawals go (a tokenized bank card, a crypto or a digital wallet), and
 * their grants.
 *
 * @since 0.1.0
 */
import { Money, Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { GrantToken } from "./Wallets.js"

/** A resource as sent: the card token from `storeBankCard`, or a wallet's id. @since 0.1.0 @category schemas */
export const DestinationResourceParams = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("BankCardDestinationResource"),
    token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
  }),
  Schema.Struct({
    type: Schema.Literal("CryptoWalletDestinationResource"),
    id: Schema.String.pipe(Schema.minLength(16), Schema.maxLength(256)),
    currency: Schema.String,
    tag: Schema.optional(Schema.String.pipe(Schema.pattern(/^[0-9]{9}$/)))
  }),
  Schema.Struct({
    type: Schema.Literal("DigitalWalletDestinationResource"),
    id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    accountName: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))),
    provider: Schema.String,
    token: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000)))
  })
)

/** A resource as answered: a card adds what its token stands for, never the number. @since 0.1.0 @category schemas */
export const DestinationResource = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("BankCardDestinationResource"),
    token: Schema.String,
    bin: Schema.optional(Schema.String),
    lastDigits: Schema.optional(Schema.String),
    paymentSystem: Schema.optional(Schema.String)
  }),
  Schema.Struct({
    type: Schema.Literal("CryptoWalletDestinationResource"),
    id: Schema.String,
    currency: Schema.String,
    tag: Schema.optional(Schema.String)
  }),
  Schema.Struct({
    type: Schema.Literal("DigitalWalletDestinationResource"),
    id: Schema.String,
    accountName: Schema.optional(Schema.String),
    provider: Schema.String
  })
)

/** `createDestination`'s body. @since 0.1.0 @category schemas */
export const DestinationParams = Schema.Struct({
  name: Schema.String,
  identity: Schema.String,
  currency: Money.Currency,
  resource: DestinationResourceParams,
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String)
})

/** @since 0.1.0 @category schemas */
export const DestinationStatus = Schema.Literal("Unauthorized", "Authorized")

/** @since 0.1.0 @category schemas */
export const Destination = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Time.DateTime,
  isBlocked: Schema.Boolean,
  identity: Schema.String,
  currency: Money.Currency,
  resource: DestinationResource,
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String),
  status: DestinationStatus,
  validUntil: Schema.optional(Time.DateTime)
}).annotations({ identifier: "Destination" })
/** @since 0.1.0 */
export type Destination = typeof Destination.Type

/** `issueDestinationGrant`'s body. @since 0.1.0 @category schemas */
export const DestinationGrantParams = Schema.Struct({ validUntil: Time.DateTime })

/** @since 0.1.0 @category schemas */
export const DestinationGrant = Schema.Struct({ token: GrantToken, validUntil: Time.DateTime }).annotations({
  identifier: "DestinationGrantRequest"
})

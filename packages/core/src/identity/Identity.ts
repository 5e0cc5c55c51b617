/**
 * The identity: who owns wallets and destinations, bound to a provider and a class, at a level
 * that challenges raise.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Identifier } from "../Ids.js"

/** createIdentity's body, both revisions: `class` is optional (the provider's default). @since 0.1.0 @category schemas */
export const IdentityParams = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)),
  provider: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40)),
  class: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  externalID: Schema.optional(Identifier),
  partyID: Schema.optional(Identifier)
}).annotations({ identifier: "IdentityParams" })
/** @since 0.1.0 */
export type IdentityParams = typeof IdentityParams.Type

/** The identity as stored. @since 0.1.0 @category models */
export interface IdentityRecord {
  readonly id: string
  readonly partyID: string
  readonly name: string
  readonly provider: string
  readonly class: string
  readonly level: string
  /** The last challenge that completed. */
  readonly effectiveChallenge?: string | undefined
  readonly isBlocked: boolean
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly externalID?: string | undefined
  readonly createdAt: Date
  readonly version: number
}

/** The identity as both revisions show it (their union). @since 0.1.0 */
export const toIdentity = (i: IdentityRecord) => ({
  id: i.id,
  name: i.name,
  createdAt: i.createdAt,
  provider: i.provider,
  class: i.class,
  level: i.level,
  ...(i.effectiveChallenge === undefined ? {} : { effectiveChallenge: i.effectiveChallenge }),
  isBlocked: i.isBlocked,
  ...(i.metadata === undefined ? {} : { metadata: i.metadata }),
  ...(i.externalID === undefined ? {} : { externalID: i.externalID }),
  partyID: i.partyID
})

/** What `listIdentities` filters by. @since 0.1.0 @category models */
export interface IdentityFilter {
  readonly partyID: string
  readonly providerID?: string | undefined
  readonly classID?: string | undefined
  readonly levelID?: string | undefined
}

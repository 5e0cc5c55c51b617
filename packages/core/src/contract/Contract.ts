/**
 * The contract between a party and the platform: it names the payment institution whose terms
 * govern the party's shops.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ContractID, PartyID } from "../Ids.js"

/**
 * The contractor: `LegalEntity`, `PrivateEntity` or `RegisteredUser`, with the fields of its kind.
 *
 * @since 0.1.0 @category models
 */
export const Contractor = Schema.Union(
  Schema.Struct({ contractorType: Schema.Literal("RegisteredUser"), email: Schema.String.pipe(Schema.maxLength(100)) }),
  Schema.Struct(
    { contractorType: Schema.Literal("LegalEntity"), entityType: Schema.String },
    Schema.Record({ key: Schema.String, value: Schema.Unknown })
  ),
  Schema.Struct(
    { contractorType: Schema.Literal("PrivateEntity"), entityType: Schema.String },
    Schema.Record({ key: Schema.String, value: Schema.Unknown })
  )
)
/** @since 0.1.0 */
export type Contractor = typeof Contractor.Type

/** @since 0.1.0 @category models */
export const LegalAgreement = Schema.Struct({
  id: Schema.String,
  signedAt: Schema.DateFromString,
  validUntil: Schema.optional(Schema.DateFromString)
})

/**
 * The contract as the interface shows it.
 *
 * @since 0.1.0 @category models
 */
export const Contract = Schema.Struct({
  id: ContractID,
  createdAt: Schema.DateFromString,
  status: Schema.Literal("active", "terminated"),
  validSince: Schema.optional(Schema.DateFromString),
  validUntil: Schema.optional(Schema.DateFromString),
  terminatedAt: Schema.optional(Schema.DateFromString),
  contractor: Contractor,
  legalAgreement: Schema.optional(LegalAgreement),
  paymentInstitutionID: Schema.Int
})
/** @since 0.1.0 */
export type Contract = typeof Contract.Type

/**
 * The contract as stored.
 *
 * @since 0.1.0 @category models
 */
export interface ContractRecord extends Contract {
  readonly partyID: PartyID
}

/** A contract is in force while active and inside its validity window. @since 0.1.0 */
export const isInForce = (c: Contract, now: Date): boolean =>
  c.status === "active" &&
  (c.validSince === undefined || c.validSince.getTime() <= now.getTime()) &&
  (c.validUntil === undefined || now.getTime() < c.validUntil.getTime())

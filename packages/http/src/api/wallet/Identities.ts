/**
 * Identities: who holds wallets, under a provider and (older revision) an identity class and
 * level, raised by identity challenges.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { ConflictRequest, InvalidOperationParameters, NotFound } from "./Errors.js"
import { ContinuationToken, Id, Int32, Limit, Page, PartyIdQuery } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/**
 * `createIdentity`'s body: `class` optional (the provider's default), as the newer revision
 * has none.
 *
 * @since 0.1.0 @category schemas
 */
export const IdentityParams = Schema.Struct({
  name: Schema.String,
  provider: Schema.String,
  class: Schema.optional(Schema.String),
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String),
  partyID: Schema.optional(Id)
})

/** @since 0.1.0 @category schemas */
export const Identity = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Time.DateTime,
  provider: Schema.String,
  class: Schema.optional(Schema.String),
  level: Schema.optional(Schema.String),
  effectiveChallenge: Schema.optional(Schema.String),
  isBlocked: Schema.Boolean,
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String),
  partyID: Schema.optional(Schema.String)
}).annotations({ identifier: "Identity" })
/** @since 0.1.0 */
export type Identity = typeof Identity.Type

/** The proof documents a challenge may ask for. @since 0.1.0 @category schemas */
export const ProofType = Schema.Literal("RUSDomesticPassport", "RUSRetireeInsuranceCertificate")

/** A tokenized proof document as sent. @since 0.1.0 @category schemas */
export const ProofParams = Schema.Struct({ token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)) })

/** A proof as answered: its type and masked fields beside the token. @since 0.1.0 @category schemas */
export const Proof = Schema.Struct({
  type: Schema.optional(ProofType),
  token: Schema.String,
  seriesMasked: Schema.optional(Schema.String),
  numberMasked: Schema.optional(Schema.String),
  fullnameMasked: Schema.optional(Schema.String)
})

/** @since 0.1.0 @category schemas */
export const ChallengeStatus = Schema.Literal("Pending", "Completed", "Failed", "Cancelled")

/** `startIdentityChallenge`'s body. @since 0.1.0 @category schemas */
export const IdentityChallengeParams = Schema.Struct({
  type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40)),
  proofs: Schema.Array(ProofParams).pipe(Schema.maxItems(10))
})

/** @since 0.1.0 @category schemas */
export const IdentityChallenge = Schema.Struct({
  id: Schema.String,
  createdAt: Time.DateTime,
  type: Schema.String,
  proofs: Schema.Array(Proof),
  status: ChallengeStatus,
  validUntil: Schema.optional(Time.DateTime),
  failureReason: Schema.optional(Schema.String)
}).annotations({ identifier: "IdentityChallenge" })
/** @since 0.1.0 */
export type IdentityChallenge = typeof IdentityChallenge.Type

/** @since 0.1.0 @category schemas */
export const IdentityChallengeEvent = Schema.Struct({
  eventID: Schema.Int,
  occuredAt: Time.DateTime,
  changes: Schema.Array(Schema.Struct({
    type: Schema.Literal("IdentityChallengeStatusChanged"),
    status: ChallengeStatus,
    validUntil: Schema.optional(Time.DateTime),
    failureReason: Schema.optional(Schema.String)
  }))
}).annotations({ identifier: "IdentityChallengeEvent" })

/** What an identity may withdraw to (`getWithdrawalMethods`). @since 0.1.0 @category schemas */
export const WithdrawalMethod = Schema.Union(
  Schema.Struct({ method: Schema.Literal("WithdrawalMethodBankCard"), paymentSystems: Schema.Array(Schema.String) }),
  Schema.Struct({ method: Schema.Literal("WithdrawalMethodDigitalWallet"), providers: Schema.Array(Schema.String) }),
  Schema.Struct({ method: Schema.Literal("WithdrawalMethodGeneric"), providers: Schema.Array(Schema.String) })
)

const IdentityPath = Schema.Struct({ identityID: Id })
const ChallengePath = Schema.Struct({ identityID: Id, challengeID: Id })

/** @since 0.1.0 @category groups */
export class IdentitiesGroup extends HttpApiGroup.make("WalletIdentities")
  .add(
    HttpApiEndpoint.get("listIdentities", "/identities")
      .setUrlParams(Schema.Struct({
        partyID: PartyIdQuery,
        providerID: Schema.optional(Id),
        class: Schema.optional(Id),
        level: Schema.optional(Id),
        // required by the older revision, absent from the newer
        limit: Schema.optional(Limit),
        continuationToken: Schema.optional(ContinuationToken)
      }))
      .addSuccess(Page(Identity))
  )
  .add(
    HttpApiEndpoint.post("createIdentity", "/identities")
      .setPayload(IdentityParams)
      .addSuccess(Identity, { status: 201 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getIdentity", "/identities/:identityID").setPath(IdentityPath).addSuccess(Identity).addError(
      NotFound
    )
  )
  .add(
    HttpApiEndpoint.get("getWithdrawalMethods", "/identities/:identityID/withdrawal-methods")
      .setPath(IdentityPath)
      .addSuccess(Schema.Struct({ methods: Schema.Array(WithdrawalMethod) }))
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("listIdentityChallenges", "/identities/:identityID/challenges")
      .setPath(IdentityPath)
      .setUrlParams(Schema.Struct({ status: Schema.optional(ChallengeStatus) }))
      .addSuccess(Schema.Array(IdentityChallenge))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("startIdentityChallenge", "/identities/:identityID/challenges")
      .setPath(IdentityPath)
      .setPayload(IdentityChallengeParams)
      .addSuccess(IdentityChallenge, { status: 202 })
      .addError(NotFound)
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getIdentityChallenge", "/identities/:identityID/challenges/:challengeID")
      .setPath(ChallengePath)
      .addSuccess(IdentityChallenge)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("pollIdentityChallengeEvents", "/identities/:identityID/challenges/:challengeID/events")
      .setPath(ChallengePath)
      .setUrlParams(Schema.Struct({ limit: Limit, eventCursor: Schema.optional(Int32) }))
      .addSuccess(Schema.Array(IdentityChallengeEvent))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getIdentityChallengeEvent", "/identities/:identityID/challenges/:challengeID/events/:eventID")
      .setPath(Schema.Struct({ identityID: Id, challengeID: Id, eventID: Int32 }))
      .addSuccess(IdentityChallengeEvent)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Identities")
{}

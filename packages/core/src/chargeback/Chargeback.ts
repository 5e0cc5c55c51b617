/**
 * The chargeback: the payer's bank claws a captured payment back. The platform opens and
 * decides chargebacks (operator API); merchants read them. Stages `chargeback` →
 * `pre-arbitration` → `arbitration`; statuses `pending`, `accepted`, `rejected`, `cancelled`.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { BusinessError } from "../Errors.js"
import { Amount, Currency } from "../Money.js"
import { DateTime } from "../Time.js"

/** @since 0.1.0 @category schemas */
export const ChargebackStage = Schema.Literal("chargeback", "pre-arbitration", "arbitration")
/** @since 0.1.0 */
export type ChargebackStage = typeof ChargebackStage.Type

/** @since 0.1.0 @category schemas */
export const ChargebackStatus = Schema.Literal("pending", "accepted", "rejected", "cancelled")
/** @since 0.1.0 */
export type ChargebackStatus = typeof ChargebackStatus.Type

/** @since 0.1.0 @category schemas */
export const Chargeback = Schema.Struct({
  id: Schema.String,
  createdAt: DateTime,
  body: Schema.Int,
  levy: Schema.Int,
  currency: Schema.String,
  reasonCode: Schema.optional(Schema.String),
  stage: ChargebackStage,
  status: ChargebackStatus
}).annotations({ identifier: "Chargeback" })
/** @since 0.1.0 */
export type Chargeback = typeof Chargeback.Type

/** The operator's parameters to open a chargeback. @since 0.1.0 @category schemas */
export const ChargebackParams = Schema.Struct({
  body: Schema.optional(Amount),
  levy: Amount,
  currency: Currency,
  reasonCode: Schema.optional(Schema.String.pipe(Schema.maxLength(1000)))
})
/** @since 0.1.0 */
export type ChargebackParams = typeof ChargebackParams.Type

/** The operator's decision on a pending chargeback, or a reopening. @since 0.1.0 @category schemas */
export const ChargebackDecision = Schema.Struct({
  body: Schema.optional(Amount),
  levy: Schema.optional(Amount),
  stage: Schema.optional(ChargebackStage)
})
/** @since 0.1.0 */
export type ChargebackDecision = typeof ChargebackDecision.Type

/** The chargeback as stored. @since 0.1.0 @category models */
export interface ChargebackRecord extends Chargeback {
  readonly invoiceID: string
  readonly paymentID: string
  readonly partyID: string
  readonly shopID: string
  readonly version: number
}

/** @since 0.1.0 */
export const toChargeback = (r: ChargebackRecord): Chargeback => ({
  id: r.id,
  createdAt: r.createdAt,
  body: r.body,
  levy: r.levy,
  currency: r.currency,
  ...(r.reasonCode === undefined ? {} : { reasonCode: r.reasonCode }),
  stage: r.stage,
  status: r.status
})

/** @since 0.1.0 @category models */
export type ChargebackCommand = Data.TaggedEnum<{
  Accept: { readonly body?: number | undefined; readonly levy?: number | undefined }
  Reject: { readonly levy?: number | undefined }
  Cancel: {}
  Reopen: { readonly body?: number | undefined; readonly levy?: number | undefined; readonly stage?: ChargebackStage | undefined }
}>

/** @since 0.1.0 @category constructors */
export const ChargebackCommand = Data.taggedEnum<ChargebackCommand>()

const stages: ReadonlyArray<ChargebackStage> = ["chargeback", "pre-arbitration", "arbitration"]

/** The state a chargeback's money depends on. @since 0.1.0 @category models */
export interface ChargebackState {
  readonly stage: ChargebackStage
  readonly status: ChargebackStatus
  readonly body: number
  readonly levy: number
}

/**
 * The chargeback machine: decisions only from `pending`; a reopening only from `rejected` and
 * not after arbitration, one stage further (or, from the first stage, to a later one named).
 *
 * @since 0.1.0
 */
export const decide = (state: ChargebackState, command: ChargebackCommand): Either.Either<ChargebackState, BusinessError> => {
  const refuse = (message: string) => Either.left(BusinessError.of("invalidRequest", message))
  switch (command._tag) {
    case "Accept":
      if (state.status !== "pending") return refuse(`Cannot accept a chargeback in status ${state.status}`)
      return Either.right({ ...state, status: "accepted", body: command.body ?? state.body, levy: command.levy ?? state.levy })
    case "Reject":
      if (state.status !== "pending") return refuse(`Cannot reject a chargeback in status ${state.status}`)
      return Either.right({ ...state, status: "rejected", levy: command.levy ?? state.levy })
    case "Cancel":
      if (state.status !== "pending") return refuse(`Cannot cancel a chargeback in status ${state.status}`)
      return Either.right({ ...state, status: "cancelled" })
    case "Reopen": {
      if (state.status !== "rejected") return refuse(`Cannot reopen a chargeback in status ${state.status}`)
      const at = stages.indexOf(state.stage)
      if (state.stage === "arbitration") return refuse("Cannot reopen a chargeback after arbitration")
      const next = command.stage ?? stages[at + 1]!
      const to = stages.indexOf(next)
      if (to <= at || (to > at + 1 && state.stage !== "chargeback")) {
        return refuse(`Cannot move a chargeback from ${state.stage} to ${next}`)
      }
      return Either.right({
        stage: next,
        status: "pending",
        body: command.body ?? state.body,
        levy: command.levy ?? state.levy
      })
    }
  }
}

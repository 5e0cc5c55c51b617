/**
 * The destination's facade for handlers and embedders: create one (`CreateDestination`), read
 * them, and grant another party the right to withdraw to one (`issueGrant`: a signed token that
 * expires at `validUntil`).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { InvalidOperation } from "../Errors.js"
import * as PartyReads from "../internal/partyReads.js"
import * as Traced from "../internal/traced.js"
import type * as Page from "../Page.js"
import { BankCards } from "../payres/BankCards.js"
import * as CreateDestination from "./CreateDestination.js"
import { type DestinationGrantParams, toDestination } from "./Destination.js"
import * as DestinationContext from "./DestinationContext.js"

/** @since 0.1.0 */
export { OPERATION } from "./CreateDestination.js"
/** @since 0.1.0 */
export { AUTHORIZE_TIMER } from "./DestinationContext.js"

/** @since 0.1.0 @category models */
export interface ListParams {
  readonly partyID?: string | undefined
  readonly identityID?: string | undefined
  readonly currencyID?: string | undefined
  readonly limit: number
  readonly after?: Page.Cursor | undefined
}

/** What builds the service: `DestinationService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* DestinationContext.make
  const { destinations, externalIDs, ids, jwt } = ctx
  const { get, getByExternalID, list } = PartyReads.make({
    service: "DestinationService",
    what: "Destination",
    operation: CreateDestination.OPERATION,
    externalIDs,
    findById: destinations.findById,
    list: destinations.list,
    show: toDestination
  })

  const issueGrant = Traced.fn("DestinationService.issueGrant")(function*(partyID: string, id: string, params: DestinationGrantParams) {
    const destination = yield* get(partyID, id)
    if (params.validUntil.getTime() <= (yield* Clock.currentTimeMillis)) return yield* InvalidOperation.of("Invalid expiration: already expired")
    const token = yield* jwt.issue({ kind: "destination-grant", sub: partyID, jti: yield* ids.next, destinationID: destination.id }, params.validUntil)
    return { token, validUntil: params.validUntil }
  })

  /** Whether `token` is a live grant to withdraw to destination `id`. */
  const granted = (token: string, id: string) =>
    jwt.verify(token).pipe(
      Effect.map((claims) => claims.kind === "destination-grant" && claims.destinationID === id),
      Effect.orElseSucceed(() => false)
    )

  return { create: CreateDestination.make(ctx), get, getByExternalID, list, issueGrant, granted } as const
})

/** @since 0.1.0 @category services */
export class DestinationService extends Effect.Service<DestinationService>()("kassa/DestinationService", {
  effect: make,
  dependencies: [BankCards.Default]
}) {}

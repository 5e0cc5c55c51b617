/**
 * The destination's facade for handlers and embedders: create one (`CreateDestination`), read
 * them, and grant another party the right to withdraw to one (`issueGrant`: a signed token that
 * expires at `validUntil`).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation, NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import * as Page from "../Page.js"
import { BankCards } from "../payres/BankCards.js"
import * as Ref from "../Ref.js"
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

/** @since 0.1.0 @category services */
export class DestinationService extends Effect.Service<DestinationService>()("kassa/DestinationService", {
  effect: Effect.gen(function*() {
    const ctx = yield* DestinationContext.make
    const { destinations, externalIDs, find, ids, jwt } = ctx

    const get = Traced.fn("DestinationService.get")(function*(partyID: string, id: string) {
      const found = yield* find(partyID, id)
      if (Option.isNone(found)) return yield* NotFound.of("Destination", id)
      return found.value
    })

    const getByExternalID = Traced.fn("DestinationService.getByExternalID")(function*(partyID: string, externalID: string) {
      const ref = yield* externalIDs.find(Ref.Id, partyID, CreateDestination.OPERATION, externalID, "Destination")
      return yield* get(partyID, ref.id)
    })

    const list = Traced.fn("DestinationService.list")(function*(partyID: string, params: ListParams) {
      if (params.partyID !== undefined && params.partyID !== partyID) return { result: [] } as Page.Page<ReturnType<typeof toDestination>>
      const rows = yield* destinations.list(
        { partyID, identityID: params.identityID, currencyID: params.currencyID },
        { limit: params.limit, after: params.after }
      )
      return Page.of(rows, params.limit, toDestination)
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
  }),
  dependencies: [BankCards.Default]
}) {}

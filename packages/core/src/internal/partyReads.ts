/**
 * @internal
 * The reads the wallet side's facades answer alike: one of the party's objects by id (another
 * party's reads as not found, unless `visibleTo` lets the party see it), by the `externalID` its creation took, and a page of the party's,
 * empty when the query names another party.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Page from "../Page.js"
import * as Ref from "../Ref.js"
import type * as Idempotent from "./idempotent.js"
import * as Traced from "./traced.js"

/** A list's paging and the `partyID` a query may name. */
export interface ListParams extends Page.PageRequest {
  readonly partyID?: string | undefined
}

export const make = <R extends Page.Cursor & { readonly partyID: string }, F extends { readonly partyID: string }, A>(of: {
  /** The facade, as the spans name it: `WalletService`. */
  readonly service: string
  /** The object, as `NotFound` names it: `Wallet`. */
  readonly what: string
  /** The idempotency operation of its creation. */
  readonly operation: string
  readonly externalIDs: ReturnType<typeof Idempotent.make>
  readonly findById: (id: string) => Effect.Effect<Option.Option<R>>
  readonly list: (filter: F, page: Page.PageRequest) => Effect.Effect<ReadonlyArray<R>>
  readonly show: (record: R) => A
  /** Whether the party may read the record (default: its own only); `list` must answer alike. */
  readonly visibleTo?: ((record: R, partyID: string) => boolean) | undefined
}) => {
  const visibleTo = of.visibleTo ?? ((r: R, partyID: string) => r.partyID === partyID)

  const get = Traced.fn(`${of.service}.get`)(function*(partyID: string, id: string) {
    const found = Option.filter(yield* of.findById(id), (r) => visibleTo(r, partyID))
    if (Option.isNone(found)) return yield* NotFound.of(of.what, id)
    return found.value
  })

  const getByExternalID = Traced.fn(`${of.service}.getByExternalID`)(function*(partyID: string, externalID: string) {
    const ref = yield* of.externalIDs.find(Ref.Id, partyID, of.operation, externalID, of.what)
    return yield* get(partyID, ref.id)
  })

  const list = Traced.fn(`${of.service}.list`)(function*(partyID: string, params: ListParams & Omit<F, "partyID">) {
    if (params.partyID !== undefined && params.partyID !== partyID) return { result: [] } as Page.Page<A>
    const { after, limit, partyID: _, ...filter } = params
    return Page.of(yield* of.list({ ...filter, partyID } as unknown as F, { limit, after }), limit, of.show)
  })

  return { get, getByExternalID, list } as const
}

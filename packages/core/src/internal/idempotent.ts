import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ExternalIdConflict, NotFound } from "../Errors.js"
import { type Idempotency, type IdempotencyRecord, PARTY_NAMESPACE } from "../ports/Idempotency.js"
import type { Ids } from "../ports/Ids.js"
import type { Transactions } from "../ports/Transactions.js"
import { Id, type Parts, type Ref } from "../Ref.js"

/** Another request with the same `externalID` claimed it first: the create answers its object. */
/** @internal */
export class Claimed extends Data.TaggedError("Claimed")<{ readonly record: IdempotencyRecord }> {}

/** @internal Records the created object's reference under the request's `externalID`, inside the create's transaction. */
export type Claim<K extends string> = (parts: Parts<K>) => Effect.Effect<void, Claimed>

/** @internal A create request that may carry an `externalID`. */
export interface CreateRequest<K extends string, A, E, R> {
  readonly partyID: string
  /** Who sent the externalID (`PARTY_NAMESPACE` unless an access token did). */
  readonly namespace?: string | undefined
  readonly operation: string
  readonly externalID: string | undefined
  /** The features two requests with one `externalID` must share; computed only when there is one. */
  readonly fingerprint: () => string
  readonly ref: Ref<K>
  /** The object an earlier request created. */
  readonly load: (parts: Parts<K>) => Effect.Effect<A, E, R>
}

/**
 * @internal
 * Idempotency by `externalID`, written once:
 * - `create`: an `externalID` seen before answers the original object when the request's features
 *   match the first one's, else a conflict naming it; otherwise the body creates, and its `claim`
 *   (inside its transaction) records the new object, or, when a concurrent request claimed the key
 *   first, abandons the body (its transaction rolls back) for that request's answer.
 * - `find`: the reference an `externalID` of the party's own names.
 */
export const make = (idempotency: Context.Tag.Service<Idempotency>) => {
  const create = <K extends string, A, E, R, E2, R2>(
    request: CreateRequest<K, A, E, R>,
    body: (claim: Claim<K>) => Effect.Effect<A, E2 | Claimed, R2>
  ): Effect.Effect<A, E | Exclude<E2, Claimed> | ExternalIdConflict, R | R2> => {
    const { externalID } = request
    if (externalID === undefined) return body(() => Effect.void) as Effect.Effect<A, Exclude<E2, Claimed>, R2>
    const key = { partyID: request.partyID, namespace: request.namespace ?? PARTY_NAMESPACE, operation: request.operation, externalID }
    const fingerprint = request.fingerprint()
    const replay = (record: IdempotencyRecord): Effect.Effect<A, E | ExternalIdConflict, R> =>
      record.fingerprint === fingerprint
        ? Effect.suspend(() => request.load(request.ref.decode(record.entityID)))
        : Effect.fail(
          new ExternalIdConflict({
            externalID,
            id: request.ref.idOf(record.entityID),
            message: "This 'externalID' has been used by another request"
          })
        )
    const claim: Claim<K> = (parts) =>
      Effect.flatMap(
        idempotency.claim(key, { entityID: request.ref.encode(parts), fingerprint }),
        Option.match({ onNone: () => Effect.void, onSome: (record) => Effect.fail(new Claimed({ record })) })
      )
    return Effect.flatMap(idempotency.find(key), (prior) =>
      Option.isSome(prior)
        ? replay(prior.value)
        : body(claim).pipe(
          Effect.catchIf((e): e is Claimed => e instanceof Claimed, (e) => replay(e.record))
        ) as Effect.Effect<A, E | Exclude<E2, Claimed> | ExternalIdConflict, R | R2>)
  }

  const find = <K extends string>(ref: Ref<K>, partyID: string, operation: string, externalID: string, what: string) =>
    Effect.flatMap(
      idempotency.find({ partyID, namespace: PARTY_NAMESPACE, operation, externalID }),
      Option.match({
        onNone: () => Effect.fail(NotFound.of(`${what} with externalID`, externalID)),
        onSome: (record) => Effect.sync(() => ref.decode(record.entityID))
      })
    )

  return { create, find } as const
}

/** @internal What `createById` works with: a module context's idempotency, ids and transactions. */
export interface ByIdContext {
  readonly externalIDs: ReturnType<typeof make>
  readonly ids: Context.Tag.Service<Ids>
  readonly tx: Context.Tag.Service<Transactions>
}

/**
 * @internal
 * A create whose object is named by a fresh id alone: in one transaction the id is drawn, claimed
 * under the request's `externalID`, and given to `body`, which writes the object.
 */
export const createById = <A, E, R, E2, R2>(
  ctx: ByIdContext,
  request: Omit<CreateRequest<"id", A, E, R>, "ref" | "load"> & { readonly load: (id: string) => Effect.Effect<A, E, R> },
  body: (id: string) => Effect.Effect<A, E2, R2>
) =>
  ctx.externalIDs.create({ ...request, ref: Id, load: ({ id }) => request.load(id) }, (claim) =>
    ctx.tx.withTransaction(Effect.flatMap(Effect.tap(ctx.ids.next, (id) => claim({ id })), body)))

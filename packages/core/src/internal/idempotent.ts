import * as Effect from "effect/Effect"
import { ExternalIdConflict } from "../Errors.js"
import type { IdempotencyKey, IdempotencyRecord } from "../ports/Idempotency.js"

/** @internal The key of a create request, when it has an `externalID`. */
export const keyOf = (
  partyID: string,
  namespace: string,
  operation: string,
  externalID: string | undefined
): IdempotencyKey | undefined => externalID === undefined ? undefined : { partyID, namespace, operation, externalID }

/**
 * @internal
 * The answer to a request whose `externalID` was seen before: the original object when the
 * request's features match the first one's, else a conflict naming the original object (the
 * last segment of the entity id, as entity ids are paths like `invoice/payment`).
 */
export const replay = <A, E, R>(
  externalID: string,
  fingerprint: string,
  record: IdempotencyRecord,
  load: (entityID: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ExternalIdConflict, R> =>
  record.fingerprint === fingerprint
    ? load(record.entityID)
    : Effect.fail(
      new ExternalIdConflict({
        externalID,
        id: record.entityID.split("/").at(-1)!,
        message: "This 'externalID' has been used by another request"
      })
    )

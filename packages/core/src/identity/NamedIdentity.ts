/**
 * An identity an operation names in its request (a wallet's, a destination's, a report's, a
 * webhook's): it must be one of the caller's, and, where the operation acts through it, usable.
 * Another party's identity reads as missing.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation } from "../Errors.js"
import type { IdentityRepository } from "../ports/IdentityRepository.js"
import type { IdentityRecord } from "./Identity.js"

/** @since 0.1.0 @category constructors */
export const make = (identities: Context.Tag.Service<IdentityRepository>) => {
  /** The caller's identity, or "No such identity". */
  const owned = (partyID: string, identityID: string): Effect.Effect<IdentityRecord, InvalidOperation> =>
    Effect.flatMap(identities.findById(identityID), (found) =>
      Option.isSome(found) && found.value.partyID === partyID
        ? Effect.succeed(found.value)
        : Effect.fail(InvalidOperation.of("No such identity")))

  /** The caller's identity when it is not blocked, or "Identity inaccessible". */
  const usable = (partyID: string, identityID: string): Effect.Effect<IdentityRecord, InvalidOperation> =>
    Effect.filterOrFail(owned(partyID, identityID), (i) => !i.isBlocked, () => InvalidOperation.of("Identity inaccessible"))

  return { owned, usable } as const
}

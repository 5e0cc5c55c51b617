/**
 * `IdentityRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChallengeRecord } from "../identity/Challenge.js"
import type { IdentityRecord } from "../identity/Identity.js"
import { isAfter } from "../Page.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { byCreatedAt } from "./internal/order.js"
import { key, MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const storedIdentity = (i: IdentityRecord) => omitUndefined(i, ["effectiveChallenge", "metadata", "externalID"])
const storedChallenge = (c: ChallengeRecord) => omitUndefined(c, ["failureReason", "validUntil"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<IdentityRepository, never, MemoryStore> = Layer.effect(
  IdentityRepository,
  Effect.map(MemoryStore, (store) => {
    const identities = store.table<IdentityRecord>("identities")
    const challenges = store.table<ChallengeRecord>("identity_challenges")
    return {
      findById: (id) => identities.get(id),
      list: (filter, page) =>
        Effect.map(identities.values, (all) =>
          byCreatedAt(all.filter((i) =>
            i.partyID === filter.partyID && (filter.providerID === undefined || i.provider === filter.providerID) &&
            (filter.classID === undefined || i.class === filter.classID) &&
            (filter.levelID === undefined || i.level === filter.levelID) &&
            isAfter(i, page.after)
          )).slice(0, page.limit + 1)),
      insert: (i) => identities.insert(i.id, storedIdentity(i)),
      // the SQL adapter writes the level, effective challenge, blocking, and version
      update: (i, expected) =>
        updateIfVersion(store, identities, i.id, expected, (before) =>
          storedIdentity(withFields(before, i, ["level", "effectiveChallenge", "isBlocked", "version"]))),
      findChallenge: (identityID, id) => challenges.get(key(identityID, id)),
      challengesOf: (identityID) => Effect.map(challenges.values, (all) => byCreatedAt(all.filter((c) => c.identityID === identityID))),
      insertChallenge: (c) => challenges.insert(key(c.identityID, c.id), storedChallenge(c)),
      updateChallenge: (c, expected) =>
        updateIfVersion(store, challenges, key(c.identityID, c.id), expected, (before) =>
          storedChallenge(withFields(before, c, ["status", "failureReason", "validUntil", "events", "version"])))
    }
  })
)

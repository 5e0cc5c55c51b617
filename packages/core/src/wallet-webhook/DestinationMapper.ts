/**
 * The destination's notifications (`DestinationsTopic` webhooks), ordered per destination: its
 * creation (`DestinationCreated`) and its authorization (`DestinationAuthorized`, or
 * `DestinationUnauthorized` for a move back), as logged (`destination/DestinationEvents`), at the
 * time they were logged.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { AGGREGATE, decodeChanges } from "../destination/DestinationEvents.js"
import { DestinationRepository } from "../ports/DestinationRepository.js"
import { mapper } from "./WalletDeliveries.js"
import { ofDestinationCreated, ofDestinationStatus } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const DestinationMapper = Effect.flatMap(DestinationRepository, (destinations) =>
  mapper({
    topic: "DestinationsTopic",
    aggregate: AGGREGATE,
    find: destinations.findById,
    notifications: (d, logged) =>
      decodeChanges(logged.changes).map((change) =>
        change.type === "DestinationCreated"
          ? ofDestinationCreated(d, logged.id)
          : ofDestinationStatus({ ...d, status: change.status }, logged.id, logged.createdAt)
      )
  }))

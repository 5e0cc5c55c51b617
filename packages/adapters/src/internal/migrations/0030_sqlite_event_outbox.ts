import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * SQLite: an event's outbox row is written by the insert of the event (a trigger), when its party
 * has a webhook (or a wallet webhook), as `SqlOutbox.notifiable` says at this migration: one
 * statement, where it took two (SQLite has no data-modifying CTE; PostgreSQL's statement writes
 * both already, so nothing changes there).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => Effect.void,
    orElse: () =>
      sql.unsafe(`CREATE TRIGGER events_outbox AFTER INSERT ON events
        WHEN EXISTS (SELECT 1 FROM webhooks WHERE party_id = NEW.party_id AND deleted_at IS NULL)
          OR EXISTS (SELECT 1 FROM wallet_webhooks WHERE party_id = NEW.party_id)
        BEGIN
          INSERT INTO outbox (aggregate_type, aggregate_id, event_id, party_id, created_at)
            VALUES (NEW.aggregate_type, NEW.aggregate_id, NEW.id, NEW.party_id, NEW.created_at);
        END`)
  })
})

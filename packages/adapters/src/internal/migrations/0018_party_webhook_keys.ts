import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/**
 * @internal
 * One webhook key pair per party (`webhook_keys`), instead of one per webhook.
 *
 * - `webhook_keys`: a party's current key (`retired_at` NULL, at most one per party) and its
 *   retired ones; the private half sealed, never in the clear.
 * - `webhook_deliveries.key_id`: the key current when the notification was queued; it signs the
 *   notification until `ROTATION_WINDOW_MS` after its retirement (NULL: the party's current key).
 *
 * Existing rows converge: every webhook's key becomes a key of its party under the webhook's id;
 * the party's oldest live webhook's key (else its oldest webhook's) is the current one, the others
 * are retired now, so what was queued for a webhook before this migration is still signed with
 * that webhook's key for the window, and everything after with the party's key.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const now = yield* Clock.currentTimeMillis
  yield* sql.unsafe(`CREATE TABLE webhook_keys (
    id TEXT PRIMARY KEY,
    party_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    private_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    retired_at BIGINT
  )`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX webhook_keys_current ON webhook_keys (party_id) WHERE retired_at IS NULL`)
  yield* sql.unsafe(`ALTER TABLE webhook_deliveries ADD COLUMN key_id TEXT`)
  yield* sql`INSERT INTO webhook_keys (id, party_id, public_key, private_key, created_at, retired_at)
    SELECT id, party_id, public_key, private_key, created_at, CASE WHEN rn = 1 THEN NULL ELSE CAST(${now} AS BIGINT) END
    FROM (SELECT w.id, w.party_id, w.public_key, w.private_key, w.created_at, ROW_NUMBER() OVER (
      PARTITION BY w.party_id ORDER BY CASE WHEN w.deleted_at IS NULL THEN 0 ELSE 1 END, w.created_at, w.id) AS rn
      FROM webhooks w) ranked`
  yield* sql`UPDATE webhook_deliveries SET key_id = webhook_id WHERE status = 'pending'`
  yield* sql.unsafe(`ALTER TABLE webhooks DROP COLUMN public_key`)
  yield* sql.unsafe(`ALTER TABLE webhooks DROP COLUMN private_key`)
})

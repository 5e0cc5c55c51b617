/**
 * `ProviderTermsRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { ProviderTermsRepository } from "@kassa/core/ports/ProviderTermsRepository"
import * as Effect from "effect/Effect"
import * as Repository from "./internal/repository.js"

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  ProviderTermsRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      forbidden: (providerID) =>
        sql<{ readonly paymentSystem: string }>`SELECT payment_system FROM provider_forbidden_payment_systems
            WHERE provider_id = ${providerID} ORDER BY payment_system`.pipe(
          Effect.map((rows) => rows.map((r) => r.paymentSystem)),
          Effect.orDie
        ),
      setForbidden: (providerID, paymentSystem, forbidden) =>
        (forbidden
          ? sql`INSERT INTO provider_forbidden_payment_systems (provider_id, payment_system)
              VALUES (${providerID}, ${paymentSystem}) ON CONFLICT DO NOTHING`
          : sql`DELETE FROM provider_forbidden_payment_systems
              WHERE provider_id = ${providerID} AND payment_system = ${paymentSystem}`).pipe(Effect.asVoid, Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

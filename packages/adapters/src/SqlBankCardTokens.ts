/**
 * `BankCardTokenRepository` on `SqlClient` (table `bank_card_tokens`, migration
 * `0022_bank_card_tokens`).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type BankCardTokenRecord, BankCardTokenRepository } from "@kassa/core/ports/BankCardTokenRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, OptionalText, reader } from "./internal/rows.js"
import { insert } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const Row = Schema.Struct({
  token: Schema.String,
  partyId: Schema.String,
  vaultToken: Schema.String,
  bin: Schema.String,
  lastDigits: Schema.String,
  paymentSystem: Schema.String,
  authData: OptionalText,
  createdAt: DateColumn,
  validUntil: DateColumn
})

const rows = reader(Row, (r): BankCardTokenRecord => ({
  token: r.token,
  partyID: r.partyId,
  vaultToken: r.vaultToken,
  bin: r.bin,
  lastDigits: r.lastDigits,
  paymentSystem: r.paymentSystem,
  authData: r.authData,
  createdAt: r.createdAt,
  validUntil: r.validUntil
}))

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  BankCardTokenRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      insert: (r) =>
        insert(sql, "bank_card_tokens", sql`INSERT INTO bank_card_tokens ${
          sql.insert({
            token: r.token,
            partyId: r.partyID,
            vaultToken: r.vaultToken,
            bin: r.bin,
            lastDigits: r.lastDigits,
            paymentSystem: r.paymentSystem,
            authData: r.authData ?? null,
            createdAt: r.createdAt.getTime(),
            validUntil: r.validUntil.getTime()
          })
        }`),
      findByToken: (token) =>
        sql`SELECT token, party_id, vault_token, bin, last_digits, payment_system, auth_data, created_at, valid_until
            FROM bank_card_tokens WHERE token = ${token}`.pipe(Effect.map(rows.first), Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

/**
 * `ContractRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Contract, Ids } from "@kassa/core"
import { ContractRepository } from "@kassa/core/ports/ContractRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalDate, optMs, optToJson, reader, toJson } from "./internal/rows.js"
import * as Repository from "./internal/repository.js"

/** A `contracts` row. */
const ContractRow = Schema.Struct({
  id: Ids.ContractID,
  partyId: Ids.PartyID,
  createdAt: DateColumn,
  status: Contract.Contract.fields.status,
  validSince: OptionalDate,
  validUntil: OptionalDate,
  terminatedAt: OptionalDate,
  contractor: JsonColumn(Contract.Contractor),
  legalAgreement: Schema.optionalWith(JsonColumn(Contract.LegalAgreement), { nullable: true, exact: true }),
  paymentInstitutionId: IntColumn
})

const contracts = reader(ContractRow, (r): Contract.ContractRecord => ({
  id: r.id,
  partyID: r.partyId,
  createdAt: r.createdAt,
  status: r.status,
  ...opt("validSince", r.validSince),
  ...opt("validUntil", r.validUntil),
  ...opt("terminatedAt", r.terminatedAt),
  contractor: r.contractor,
  ...opt("legalAgreement", r.legalAgreement),
  paymentInstitutionID: r.paymentInstitutionId
}))

/** @internal Reads a `contracts` row (the shops' governed read joins one). */
export const fromRow = contracts.one

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  ContractRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      findById: (partyID, id) =>
        sql`SELECT * FROM contracts WHERE party_id = ${partyID} AND id = ${id}`.pipe(
          Effect.map(contracts.first),
          Effect.orDie
        ),
      listByParty: (partyID) =>
        sql`SELECT * FROM contracts WHERE party_id = ${partyID} ORDER BY created_at, id`.pipe(
          Effect.map(contracts.all),
          Effect.orDie
        ),
      insert: (c) =>
        sql`INSERT INTO contracts ${
          sql.insert({
            partyId: c.partyID,
            id: c.id,
            createdAt: c.createdAt.getTime(),
            status: c.status,
            validSince: optMs(c.validSince),
            validUntil: optMs(c.validUntil),
            terminatedAt: optMs(c.terminatedAt),
            contractor: toJson(c.contractor),
            legalAgreement: optToJson(c.legalAgreement),
            paymentInstitutionId: c.paymentInstitutionID
          })
        }`.pipe(Effect.asVoid, Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

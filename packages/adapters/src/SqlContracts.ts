/**
 * `ContractRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Contract, Ids } from "@kassa/core"
import { ContractRepository } from "@kassa/core/ports/ContractRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { date, int, json, opt, optDate, optJson, optMs, optToJson, toJson } from "./internal/rows.js"

/** @internal */
export const fromRow = (r: any): Contract.ContractRecord => ({
  id: Ids.ContractID.make(r.id),
  partyID: Ids.PartyID.make(r.partyId),
  createdAt: date(r.createdAt),
  status: r.status,
  ...opt("validSince", optDate(r.validSince)),
  ...opt("validUntil", optDate(r.validUntil)),
  ...opt("terminatedAt", optDate(r.terminatedAt)),
  contractor: json(r.contractor),
  ...opt("legalAgreement", optJson<any>(r.legalAgreement)),
  paymentInstitutionID: int(r.paymentInstitutionId)
})

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  ContractRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      findById: (partyID, id) =>
        sql`SELECT * FROM contracts WHERE party_id = ${partyID} AND id = ${id}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))),
          Effect.orDie
        ),
      listByParty: (partyID) =>
        sql`SELECT * FROM contracts WHERE party_id = ${partyID} ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(fromRow)),
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

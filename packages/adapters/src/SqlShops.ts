/**
 * `ShopRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Ids, Shop } from "@kassa/core"
import { type GovernedShop, ShopRepository } from "@kassa/core/ports/ShopRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, flag, IntColumn, JsonColumn, reader, toJson } from "./internal/rows.js"
import { SqlDriver } from "./sql/driver/Driver.js"
import { withWork } from "./sql/driver/Statements.js"
import { fromRow as contractFromRow } from "./SqlContracts.js"
import { fromRow as partyFromRow } from "./SqlParties.js"
import * as Repository from "./internal/repository.js"

/** A `shops` row. */
const ShopRow = Schema.Struct({
  id: Ids.ShopID,
  partyId: Ids.PartyID,
  createdAt: DateColumn,
  isBlocked: BoolColumn,
  isSuspended: BoolColumn,
  currency: Schema.String,
  categoryId: IntColumn,
  location: JsonColumn(Shop.Shop.fields.location),
  details: JsonColumn(Shop.Shop.fields.details),
  contractId: Ids.ContractID,
  version: IntColumn
})

const shops = reader(ShopRow, (r): Shop.ShopRecord => ({
  id: r.id,
  partyID: r.partyId,
  createdAt: r.createdAt,
  isBlocked: r.isBlocked,
  isSuspended: r.isSuspended,
  currency: r.currency,
  categoryID: r.categoryId,
  location: r.location,
  details: r.details,
  contractID: r.contractId,
  version: r.version
}))

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  ShopRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { governance } = yield* SqlDriver
    const governed = governance.make<Option.Option<GovernedShop>>()
    const readGoverned = (partyID: string, id: string) =>
      sql`SELECT s.*, p.name AS p_name, p.email AS p_email, p.is_blocked AS p_is_blocked,
        p.is_suspended AS p_is_suspended, p.created_at AS p_created_at, p.version AS p_version,
        c.id AS c_id, c.party_id AS c_party_id, c.created_at AS c_created_at, c.status AS c_status,
        c.valid_since AS c_valid_since, c.valid_until AS c_valid_until, c.terminated_at AS c_terminated_at,
        c.contractor AS c_contractor, c.legal_agreement AS c_legal_agreement,
        c.payment_institution_id AS c_payment_institution_id
      FROM shops s JOIN parties p ON p.id = s.party_id
      LEFT JOIN contracts c ON c.party_id = s.party_id AND c.id = s.contract_id
      WHERE s.party_id = ${partyID} AND s.id = ${id}`.pipe(
      Effect.map((rows) =>
        Option.fromNullable(rows[0]).pipe(Option.map((r) => ({
          shop: shops.one(r),
          party: partyFromRow({
            id: r.partyId,
            name: r.pName,
            email: r.pEmail,
            isBlocked: r.pIsBlocked,
            isSuspended: r.pIsSuspended,
            createdAt: r.pCreatedAt,
            version: r.pVersion
          }),
          contract: r.cId === null || r.cId === undefined ? Option.none() : Option.some(contractFromRow({
            id: r.cId,
            partyId: r.cPartyId,
            createdAt: r.cCreatedAt,
            status: r.cStatus,
            validSince: r.cValidSince,
            validUntil: r.cValidUntil,
            terminatedAt: r.cTerminatedAt,
            contractor: r.cContractor,
            legalAgreement: r.cLegalAgreement,
            paymentInstitutionId: r.cPaymentInstitutionId
          }))
        })))
      ),
      Effect.orDie
      )
    return {
      findById: (partyID, id) =>
        sql`SELECT * FROM shops WHERE party_id = ${partyID} AND id = ${id}`.pipe(
          Effect.map(shops.first),
          Effect.orDie
        ),
      // Read before almost every command: kept for a moment (see sql/driver/governance).
      findGoverned: (partyID, id) =>
        Effect.suspend(() => {
          const key = `${partyID}\u0000${id}`
          const hit = governed.get(key)
          if (hit !== undefined) return Effect.succeed(hit)
          const readIn = governance.current()
          // a shop not found is not remembered: it may be created the next moment; the read is
          // counted as the cache's, not as the request's that found the entry expired
          return Effect.tap(withWork("cache")(readGoverned(partyID, id)), (found) =>
            Effect.sync(() => Option.isSome(found) && governed.set(key, found, readIn)))
        }),
      listByParty: (partyID) =>
        sql`SELECT * FROM shops WHERE party_id = ${partyID} ORDER BY created_at, id`.pipe(
          Effect.map(shops.all),
          Effect.orDie
        ),
      insert: (s) =>
        sql`INSERT INTO shops ${
          sql.insert({
            partyId: s.partyID,
            id: s.id,
            createdAt: s.createdAt.getTime(),
            isBlocked: flag(s.isBlocked),
            isSuspended: flag(s.isSuspended),
            currency: s.currency,
            categoryId: s.categoryID,
            location: toJson(s.location),
            details: toJson(s.details),
            contractId: s.contractID,
            version: s.version
          })
        }`.pipe(Effect.asVoid, Effect.orDie),
      update: (s, expected) =>
        sql`UPDATE shops SET is_blocked = ${flag(s.isBlocked)}, is_suspended = ${flag(s.isSuspended)},
            version = ${s.version}
            WHERE party_id = ${s.partyID} AND id = ${s.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie,
          Effect.ensuring(Effect.sync(governance.invalidate))
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)

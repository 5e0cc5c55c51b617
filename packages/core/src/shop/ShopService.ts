/**
 * Use cases of the shop: list and read a party's shops, suspend and activate them (the
 * merchant), block and unblock them (the platform), and the precondition every payment-side
 * operation checks.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Standing from "../Standing.js"
import { BusinessError, NotFound } from "../Errors.js"
import type { PartyID, ShopID } from "../Ids.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { ContractRepository } from "../ports/ContractRepository.js"
import { ReferenceData } from "../ports/ReferenceData.js"
import { ShopRepository } from "../ports/ShopRepository.js"
import { Transactions } from "../ports/Transactions.js"
import type { ContractRecord } from "../contract/Contract.js"
import type { ShopRecord } from "./Shop.js"

/** What builds the service: `ShopService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const shops = yield* ShopRepository
  const tx = yield* Transactions
  const contracts = yield* ContractRepository
  const reference = yield* ReferenceData

  const list = Traced.fn("ShopService.list")(function*(partyID: PartyID) {
    return yield* shops.listByParty(partyID)
  })

  const get = Traced.fn("ShopService.get")(function*(partyID: PartyID, id: ShopID) {
    const found = yield* shops.findById(partyID, id)
    if (Option.isNone(found)) return yield* NotFound.of("Shop", id)
    return found.value
  })

  const setStanding = Traced.fn("ShopService.setStanding")(
    function*(partyID: PartyID, id: ShopID, command: Standing.StandingCommand) {
      return yield* Optimistic.command(tx.withTransaction, { read: get(partyID, id), update: shops.update, what: `shop ${id}` }, ({
        current: shop,
        save
      }) => {
        const next = Standing.decide(shop, command)
        if (Either.isLeft(next)) return Effect.fail(BusinessError.of("invalidRequest", "Shop is blocked by the platform"))
        if (next.right.isBlocked === shop.isBlocked && next.right.isSuspended === shop.isSuspended) return Effect.succeed(shop)
        return save({ ...shop, ...next.right })
      })
    }
  )

  const termsOf = (shop: ShopRecord, contract: Option.Option<ContractRecord>) =>
    Effect.gen(function*() {
      if (Option.isNone(contract)) return yield* Effect.dieMessage(`Shop ${shop.id} has no contract ${shop.contractID}`)
      const institution = yield* reference.paymentInstitution(contract.value.paymentInstitutionID)
      if (Option.isNone(institution)) {
        return yield* Effect.dieMessage(`Unknown payment institution ${contract.value.paymentInstitutionID}`)
      }
      return { contract: contract.value, institution: institution.value }
    })

  /**
   * The precondition of operations on a shop's business, with the contract and the payment
   * institution whose terms govern the shop: the shop exists for this party (`invalidShopID`),
   * the party is active (`invalidPartyStatus`), the shop is active (`invalidShopStatus`).
   * One read.
   */
  const requireActiveWithTerms = Traced.fn("ShopService.requireActiveWithTerms")(function*(partyID: PartyID, id: ShopID) {
    const found = yield* shops.findGoverned(partyID, id)
    if (Option.isNone(found)) return yield* BusinessError.of("invalidShopID", `Shop not found: ${id}`)
    const { contract, party, shop } = found.value
    if (!Standing.isActive(party)) {
      return yield* BusinessError.of("invalidPartyStatus", party.isBlocked ? "Party is blocked" : "Party is suspended")
    }
    if (!Standing.isActive(shop)) {
      return yield* BusinessError.of("invalidShopStatus", shop.isBlocked ? "Shop is blocked" : "Shop is suspended")
    }
    return { shop, ...(yield* termsOf(shop, contract)) }
  })

  /** The shop with the contract and payment institution that govern it, whatever its status. One read. */
  const withTerms = Traced.fn("ShopService.withTerms")(function*(partyID: PartyID, id: ShopID) {
    const found = yield* shops.findGoverned(partyID, id)
    if (Option.isNone(found)) return yield* NotFound.of("Shop", id)
    return { shop: found.value.shop, ...(yield* termsOf(found.value.shop, found.value.contract)) }
  })

  /** `requireActiveWithTerms` for operations that need only the shop. */
  const requireActive = (partyID: PartyID, id: ShopID) => Effect.map(requireActiveWithTerms(partyID, id), (x) => x.shop)

  /** The contract and the payment institution whose terms govern the shop. */
  const terms = Traced.fn("ShopService.terms")(function*(shop: ShopRecord) {
    return yield* termsOf(shop, yield* contracts.findById(shop.partyID, shop.contractID))
  })

  return { list, get, setStanding, requireActive, requireActiveWithTerms, terms, withTerms } as const
})

/** @since 0.1.0 @category services */
export class ShopService extends Effect.Service<ShopService>()("kassa/ShopService", {
  effect: make
}) {}

/**
 * What the wallet's modules work with, resolved once by the facade.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import { Idempotency } from "../ports/Idempotency.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { Ids } from "../ports/Ids.js"
import { Jwt } from "../ports/Jwt.js"
import { Ledger } from "../ports/Ledger.js"
import { Transactions } from "../ports/Transactions.js"
import { WalletGrantRepository } from "../ports/WalletGrantRepository.js"
import { WalletRepository } from "../ports/WalletRepository.js"

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const wallets = yield* WalletRepository
  return {
    wallets,
    identities: yield* IdentityRepository,
    grants: yield* WalletGrantRepository,
    ledger: yield* Ledger,
    jwt: yield* Jwt,
    ids: yield* Ids,
    tx: yield* Transactions,
    externalIDs: Idempotent.make(yield* Idempotency),
    /** The wallet when it is the party's (another party's reads as missing). */
    find: (partyID: string, id: string) => Effect.map(wallets.findById(id), Option.filter((w) => w.partyID === partyID)),
    load: (id: string) =>
      Effect.flatMap(wallets.findById(id), (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Wallet", id))))
  }
})

/** @since 0.1.0 @category models */
export type WalletContext = Effect.Effect.Success<typeof make>

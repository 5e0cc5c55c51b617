/**
 * Use cases of the wallet webhook: create (the identity and, when given, the wallet must be the
 * caller's; the URL must not lead into a private network), list, read and delete an identity's
 * webhooks. The answer carries the party's public key, made with its first webhook.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { BusinessError, InvalidOperation, NotFound } from "../Errors.js"
import * as NamedIdentity from "../identity/NamedIdentity.js"
import * as Traced from "../internal/traced.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { Ids } from "../ports/Ids.js"
import { WalletRepository } from "../ports/WalletRepository.js"
import { WalletWebhookRepository } from "../ports/WalletWebhookRepository.js"
import { WebhookUrlGuard } from "../ports/WebhookUrlGuard.js"
import * as PartyKeys from "../webhook/PartyKeys.js"
import { isHttpUrl } from "../webhook/Webhook.js"
import { toWalletWebhook, type WalletWebhookRecord, type WalletWebhookScope } from "./WalletWebhook.js"

/** createWebhook's parameters. @since 0.1.0 @category models */
export interface WalletWebhookParams {
  readonly identityID: string
  readonly scope: WalletWebhookScope
  readonly url: string
}

/** What builds the service: `WalletWebhookService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const webhooks = yield* WalletWebhookRepository
  const identities = yield* IdentityRepository
  const wallets = yield* WalletRepository
  const guard = yield* WebhookUrlGuard
  const ids = yield* Ids
  const keys = yield* PartyKeys.make

  const named = NamedIdentity.make(identities)

  const answer = (partyID: string, records: ReadonlyArray<WalletWebhookRecord>) =>
    records.length === 0
      ? Effect.succeed([])
      : Effect.map(keys.current(partyID), (key) => records.map((r) => toWalletWebhook(r, key.publicKey)))

  const create = Traced.fn("WalletWebhookService.create")(function*(partyID: string, params: WalletWebhookParams) {
    yield* named.owned(partyID, params.identityID)
    if (params.scope.topic === "WithdrawalsTopic" && params.scope.walletID !== undefined) {
      const wallet = yield* wallets.findById(params.scope.walletID)
      if (Option.isNone(wallet) || wallet.value.partyID !== partyID || wallet.value.identityID !== params.identityID) {
        return yield* InvalidOperation.of("No such wallet")
      }
    }
    if (!isHttpUrl(params.url)) return yield* BusinessError.of("invalidRequest", "url: expected an absolute http or https URL")
    const refused = yield* guard.check(params.url)
    if (Option.isSome(refused)) return yield* BusinessError.of("invalidRequest", `url: ${refused.value}`)
    const record: WalletWebhookRecord = {
      id: yield* ids.next,
      partyID,
      identityID: params.identityID,
      scope: params.scope.topic === "WithdrawalsTopic"
        ? {
          topic: "WithdrawalsTopic",
          ...(params.scope.walletID === undefined ? {} : { walletID: params.scope.walletID }),
          eventTypes: [...new Set(params.scope.eventTypes)]
        }
        : { topic: "DestinationsTopic", eventTypes: [...new Set(params.scope.eventTypes)] },
      url: params.url,
      createdAt: new Date(yield* Clock.currentTimeMillis)
    }
    const [answered] = yield* answer(partyID, [record])
    yield* webhooks.insert(record)
    return answered!
  })

  const list = Traced.fn("WalletWebhookService.list")(function*(partyID: string, identityID: string) {
    yield* named.owned(partyID, identityID)
    return yield* answer(partyID, yield* webhooks.listByIdentity(partyID, identityID))
  })

  /** The caller's webhook of that identity; another party's, or another identity's, is not found. */
  const find = (partyID: string, identityID: string, id: string) =>
    Effect.gen(function*() {
      yield* named.owned(partyID, identityID)
      const found = Option.filter(yield* webhooks.findById(partyID, id), (w) => w.identityID === identityID)
      if (Option.isNone(found)) return yield* NotFound.of("Webhook", id)
      return found.value
    })

  const get = Traced.fn("WalletWebhookService.get")(function*(partyID: string, identityID: string, id: string) {
    const [answered] = yield* answer(partyID, [yield* find(partyID, identityID, id)])
    return answered!
  })

  const remove = Traced.fn("WalletWebhookService.delete")(function*(partyID: string, identityID: string, id: string) {
    yield* find(partyID, identityID, id)
    if (!(yield* webhooks.delete(partyID, id))) return yield* NotFound.of("Webhook", id)
  })

  return { create, list, get, delete: remove } as const
})

/** @since 0.1.0 @category services */
export class WalletWebhookService extends Effect.Service<WalletWebhookService>()("kassa/WalletWebhookService", {
  effect: make
}) {}

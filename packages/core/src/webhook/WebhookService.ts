/**
 * Use cases of the webhook: create (shop checks, the SSRF guard, the per-shop limit, the party's
 * key pair, made with its first webhook), list, read and delete a party's webhooks; and for the
 * operator, the delivery queue of a webhook (deliveries, attempts, redelivery) and the rotation
 * of a party's key pair.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { BusinessError, LimitExceeded, NotFound } from "../Errors.js"
import { type PartyID, ShopID } from "../Ids.js"
import * as Traced from "../internal/traced.js"
import { Ids } from "../ports/Ids.js"
import { Transactions } from "../ports/Transactions.js"
import { WebhookDeliveries } from "../ports/WebhookDeliveries.js"
import { WebhookKeyRepository } from "../ports/WebhookKeyRepository.js"
import { WebhookRepository } from "../ports/WebhookRepository.js"
import { WebhookUrlGuard } from "../ports/WebhookUrlGuard.js"
import { ShopService } from "../shop/ShopService.js"
import type { Delivery } from "./Delivery.js"
import {
  LIMIT_MESSAGE,
  MAX_INVOICE_WEBHOOKS_PER_SHOP,
  storedScope,
  toWebhook,
  type WebhookParams,
  type WebhookRecord
} from "./Webhook.js"
import * as PartyKeys from "./PartyKeys.js"
import { rotated } from "./WebhookKey.js"

/** The most deliveries one read answers. @since 0.1.0 */
export const MAX_DELIVERIES_PER_READ = 1000

/** What builds the service: `WebhookService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const webhooks = yield* WebhookRepository
  const partyKeys = yield* WebhookKeyRepository
  const guard = yield* WebhookUrlGuard
  const deliveries = yield* WebhookDeliveries
  const shops = yield* ShopService
  const ids = yield* Ids
  const tx = yield* Transactions

  const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
  const limitOf = (topic: string) => (topic === "InvoicesTopic" ? MAX_INVOICE_WEBHOOKS_PER_SHOP : undefined)

  const { current: partyKey, newKey } = yield* PartyKeys.make

  /**
   * Creates a webhook for the caller's party: `partyID`, when given, must be the caller's
   * (`invalidPartyID`); the shop must be the party's (`invalidShopID`); the URL must not lead
   * into a private network (`invalidRequest`); a shop has at most 10 invoice webhooks (429).
   */
  const create = Traced.fn("WebhookService.create")(function*(caller: PartyID, params: WebhookParams) {
    if (params.partyID !== undefined && params.partyID !== caller) {
      return yield* BusinessError.of("invalidPartyID", `Party not found: ${params.partyID}`)
    }
    const shopID = params.scope.shopID
    yield* shops.get(caller, ShopID.make(shopID)).pipe(
      Effect.catchTag("NotFound", () => BusinessError.of("invalidShopID", `Shop not found: ${shopID}`))
    )
    const refused = yield* guard.check(params.url)
    if (Option.isSome(refused)) return yield* BusinessError.of("invalidRequest", `url: ${refused.value}`)
    const limit = limitOf(params.scope.topic)
    if (limit !== undefined && (yield* webhooks.countForShop(caller, shopID, params.scope.topic)) >= limit) {
      return yield* new LimitExceeded({ message: LIMIT_MESSAGE })
    }
    const key = yield* partyKey(caller)
    const record: WebhookRecord = {
      id: yield* ids.next,
      active: true,
      scope: storedScope(params.scope),
      partyID: caller,
      url: params.url,
      publicKey: key.publicKey,
      createdAt: yield* now
    }
    if (!(yield* tx.withTransaction(webhooks.insertWithin(record, limit)))) {
      return yield* new LimitExceeded({ message: LIMIT_MESSAGE })
    }
    return toWebhook(record)
  })

  const list = Traced.fn("WebhookService.list")(function*(caller: PartyID) {
    return (yield* webhooks.listByParty(caller)).map(toWebhook)
  })

  const get = Traced.fn("WebhookService.get")(function*(caller: PartyID, id: string) {
    const found = yield* webhooks.findById(caller, id)
    if (Option.isNone(found)) return yield* NotFound.of("Webhook", id)
    return toWebhook(found.value)
  })

  /** Deletes the webhook: it is gone for every read, and nothing more is sent to it. */
  const remove = Traced.fn("WebhookService.delete")(function*(caller: PartyID, id: string) {
    const at = yield* now
    if (!(yield* tx.withTransaction(webhooks.delete(caller, id, at)))) return yield* NotFound.of("Webhook", id)
  })

  // -------------------------------------------------------------------------------------------
  // The operator's view of the queue
  // -------------------------------------------------------------------------------------------

  const requireWebhook = (webhookID: string) =>
    Effect.flatMap(deliveries.webhookExists(webhookID), (found) =>
      Option.match(found, { onNone: () => Effect.fail(NotFound.of("Webhook", webhookID)), onSome: Effect.succeed }))

  const listDeliveries = Traced.fn("WebhookService.deliveries")(
    function*(webhookID: string, query: { readonly limit?: number | undefined; readonly status?: Delivery["status"] | undefined } = {}) {
      yield* requireWebhook(webhookID)
      const limit = Math.min(Math.max(1, query.limit ?? 100), MAX_DELIVERIES_PER_READ)
      return yield* deliveries.list(webhookID, { limit, status: query.status })
    }
  )

  const attempts = Traced.fn("WebhookService.attempts")(function*(webhookID: string, deliveryID: string) {
    yield* requireWebhook(webhookID)
    if (Option.isNone(yield* deliveries.get(webhookID, deliveryID))) return yield* NotFound.of("Delivery", deliveryID)
    return yield* deliveries.attempts(webhookID, deliveryID)
  })

  /** Queues the delivery's notification again, at the end of its subject's queue. */
  const redeliver = Traced.fn("WebhookService.redeliver")(function*(webhookID: string, deliveryID: string) {
    const webhook = yield* requireWebhook(webhookID)
    if (webhook.deleted) return yield* BusinessError.of("invalidRequest", `Webhook ${webhookID} is deleted`)
    const at = yield* now
    const copy = yield* tx.withTransaction(deliveries.redeliver(webhookID, deliveryID, at))
    if (Option.isNone(copy)) return yield* NotFound.of("Delivery", deliveryID)
    return copy.value
  })

  /**
   * The operator's rotation of the party's key pair: a new pair signs from now on and every
   * webhook of the party shows its `publicKey`; notifications queued before keep the old
   * signature for `ROTATION_WINDOW_MS`.
   */
  const rotateKey = Traced.fn("WebhookService.rotateKey")(function*(partyID: PartyID) {
    const key = yield* newKey(partyID)
    const previous = yield* tx.withTransaction(partyKeys.rotate(key))
    return rotated(key, Option.getOrUndefined(previous))
  })

  return { create, list, get, delete: remove, deliveries: listDeliveries, attempts, redeliver, rotateKey } as const
})

/** @since 0.1.0 @category services */
export class WebhookService extends Effect.Service<WebhookService>()("kassa/WebhookService", {
  effect: make,
  dependencies: [ShopService.Default]
}) {}

/**
 * Handlers of the Webhooks group (the merchant's) and of the AdminWebhooks group (the
 * operator's).
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Ids, PartyService } from "@kassa/core"
import { WebhookService } from "@kassa/core/webhook/WebhookService"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* WebhookService
    return handlers
      .handle("createWebhook", ({ payload }) => Effect.flatMap(merchantParty, (party) => webhooks.create(party, payload)))
      .handle("getWebhooks", () => Effect.flatMap(merchantParty, webhooks.list))
      .handle("getWebhooksForParty", ({ path }) => Effect.flatMap(namedParty(path.partyID), webhooks.list))
      .handle("getWebhookByID", ({ path }) => Effect.flatMap(merchantParty, (party) => webhooks.get(party, path.webhookID)))
      .handle("deleteWebhookByID", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => webhooks.delete(party, path.webhookID)))
  }))

/** @since 0.1.0 @category layers */
export const adminLayer = HttpApiBuilder.group(KassaApi, "AdminWebhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* WebhookService
    const parties = yield* PartyService.PartyService
    return handlers
      .handle("listWebhookDeliveries", ({ path, urlParams }) =>
        webhooks.deliveries(path.webhookID, { limit: urlParams.limit, status: urlParams.status }))
      .handle("listWebhookDeliveryAttempts", ({ path }) => webhooks.attempts(path.webhookID, path.deliveryID))
      .handle("redeliverWebhookDelivery", ({ path }) => webhooks.redeliver(path.webhookID, path.deliveryID))
      .handle("rotateWebhookKey", ({ path }) => {
        const party = Ids.PartyID.make(path.partyID)
        return Effect.zipRight(parties.get(party), webhooks.rotateKey(party))
      })
  }))

/**
 * Handlers of the Webhooks group (the merchant's) and of the AdminWebhooks group (the
 * operator's).
 *
 * @since 0.1.0
 */
import { Ids, PartyService } from "@kassa/core"
import { WebhookService } from "@kassa/core/webhook/WebhookService"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The Webhooks group's handlers, by operation. @since 0.1.0 @category handlers */
export const webhooksHandlers = Effect.gen(function*() {
  const webhooks = yield* WebhookService
  return Group.handlers(KassaApi, "Webhooks")({
    createWebhook: ({ payload }) => Effect.flatMap(merchantParty, (party) => webhooks.create(party, payload)),
    getWebhooks: () => Effect.flatMap(merchantParty, webhooks.list),
    getWebhooksForParty: ({ path }) => Effect.flatMap(namedParty(path.partyID), webhooks.list),
    getWebhookByID: ({ path }) => Effect.flatMap(merchantParty, (party) => webhooks.get(party, path.webhookID)),
    deleteWebhookByID: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => webhooks.delete(party, path.webhookID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Webhooks", webhooksHandlers)

/** The AdminWebhooks group's handlers, by operation. @since 0.1.0 @category handlers */
export const adminWebhooksHandlers = Effect.gen(function*() {
  const webhooks = yield* WebhookService
  const parties = yield* PartyService.PartyService
  return Group.handlers(KassaApi, "AdminWebhooks")({
    listWebhookDeliveries: ({ path, urlParams }) =>
      webhooks.deliveries(path.webhookID, { limit: urlParams.limit, status: urlParams.status }),
    listWebhookDeliveryAttempts: ({ path }) => webhooks.attempts(path.webhookID, path.deliveryID),
    redeliverWebhookDelivery: ({ path }) => webhooks.redeliver(path.webhookID, path.deliveryID),
    rotateWebhookKey: ({ path }) => {
      const party = Ids.PartyID.make(path.partyID)
      return Effect.zipRight(parties.get(party), webhooks.rotateKey(party))
    }
  })
})

/** @since 0.1.0 @category layers */
export const adminLayer = Group.layer(KassaApi, "AdminWebhooks", adminWebhooksHandlers)

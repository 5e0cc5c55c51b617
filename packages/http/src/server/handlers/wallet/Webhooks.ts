/**
 * Handlers of the wallet interface's webhooks.
 *
 * @since 0.1.0
 */
import { WalletWebhookService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The WalletWebhooks group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const webhooks = yield* WalletWebhookService.WalletWebhookService
  return Group.handlers(KassaApi, "WalletWebhooks")({
    createWebhook: ({ payload }) =>
      located("/wallet/v0/webhooks")(Effect.flatMap(merchantParty, (party) => webhooks.create(party, payload)), (w) => w.id),
    getWebhooks: ({ urlParams }) =>
      Effect.flatMap(merchantParty, (party) => webhooks.list(party, urlParams.identityID)),
    getWebhookByID: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => webhooks.get(party, urlParams.identityID, path.webhookID)),
    deleteWebhookByID: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => webhooks.delete(party, urlParams.identityID, path.webhookID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "WalletWebhooks", handlers)

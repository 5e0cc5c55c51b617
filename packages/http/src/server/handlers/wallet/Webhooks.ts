/**
 * Handlers of the wallet interface's webhooks.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { WalletWebhookService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { merchantParty } from "../../wallet/WalletCaller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletWebhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* WalletWebhookService.WalletWebhookService
    return handlers
      .handle("createWebhook", ({ payload }) =>
        located("/wallet/v0/webhooks")(Effect.flatMap(merchantParty, (party) => webhooks.create(party, payload)), (w) => w.id))
      .handle("getWebhooks", ({ urlParams }) =>
        Effect.flatMap(merchantParty, (party) => webhooks.list(party, urlParams.identityID)))
      .handle("getWebhookByID", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => webhooks.get(party, urlParams.identityID, path.webhookID)))
      .handle("deleteWebhookByID", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => webhooks.delete(party, urlParams.identityID, path.webhookID)))
  }))

/**
 * Wallet webhooks: an identity's subscriptions to withdrawal and destination events.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { InvalidOperationParameters, NotFound } from "./Errors.js"
import { Id } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const WebhookScope = Schema.Union(
  Schema.Struct({
    topic: Schema.Literal("WithdrawalsTopic"),
    walletID: Schema.optional(Id),
    eventTypes: Schema.Array(Schema.Literal("WithdrawalStarted", "WithdrawalSucceeded", "WithdrawalFailed")).pipe(
      Schema.minItems(1)
    )
  }),
  Schema.Struct({
    topic: Schema.Literal("DestinationsTopic"),
    eventTypes: Schema.Array(Schema.Literal("DestinationCreated", "DestinationUnauthorized", "DestinationAuthorized"))
      .pipe(Schema.minItems(1))
  })
)

/** `createWebhook`'s body. @since 0.1.0 @category schemas */
export const WebhookParams = Schema.Struct({
  identityID: Id,
  scope: WebhookScope,
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
})

/** @since 0.1.0 @category schemas */
export const Webhook = Schema.Struct({
  id: Schema.String,
  identityID: Schema.String,
  active: Schema.Boolean,
  scope: WebhookScope,
  url: Schema.String,
  publicKey: Schema.String
}).annotations({ identifier: "WalletWebhook" })

const ByIdentity = Schema.Struct({ identityID: Id })
const WebhookPath = Schema.Struct({ webhookID: Id })

/** @since 0.1.0 @category groups */
export class WebhooksGroup extends HttpApiGroup.make("WalletWebhooks")
  .add(
    HttpApiEndpoint.post("createWebhook", "/webhooks")
      .setPayload(WebhookParams)
      .addSuccess(Webhook, { status: 201 })
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getWebhooks", "/webhooks")
      .setUrlParams(ByIdentity)
      .addSuccess(Schema.Array(Webhook))
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getWebhookByID", "/webhooks/:webhookID")
      .setPath(WebhookPath)
      .setUrlParams(ByIdentity)
      .addSuccess(Webhook)
      .addError(NotFound)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.del("deleteWebhookByID", "/webhooks/:webhookID")
      .setPath(WebhookPath)
      .setUrlParams(ByIdentity)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(InvalidOperationParameters)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Webhooks")
{}

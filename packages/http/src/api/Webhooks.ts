/**
 * Webhooks: the merchant's management operations (group `Webhooks`) and the operator's view of
 * their delivery queues and the rotation of a party's signing key (group `AdminWebhooks`, under
 * `/admin/v1`).
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Delivery from "@kassa/core/webhook/Delivery"
import * as Webhook from "@kassa/core/webhook/Webhook"
import * as WebhookKey from "@kassa/core/webhook/WebhookKey"
import * as Schema from "effect/Schema"
import { LimitExceeded } from "./Errors.js"
import { Id, PartyIdParam } from "./Params.js"
import { Authentication, OperatorAuthentication } from "./Security.js"

const WebhookPath = Schema.Struct({ webhookID: Id })

/** @since 0.1.0 @category groups */
export class WebhooksGroup extends HttpApiGroup.make("Webhooks")
  .add(
    HttpApiEndpoint.post("createWebhook", "/processing/webhooks")
      .setPayload(Webhook.WebhookParams)
      .addSuccess(Webhook.Webhook, { status: 201 })
      .addError(LimitExceeded)
  )
  .add(HttpApiEndpoint.get("getWebhooks", "/processing/webhooks").addSuccess(Schema.Array(Webhook.Webhook)))
  .add(
    HttpApiEndpoint.get("getWebhooksForParty", "/processing/parties/:partyID/webhooks")
      .setPath(Schema.Struct({ partyID: PartyIdParam }))
      .addSuccess(Schema.Array(Webhook.Webhook))
  )
  .add(HttpApiEndpoint.get("getWebhookByID", "/processing/webhooks/:webhookID").setPath(WebhookPath).addSuccess(Webhook.Webhook))
  .add(
    HttpApiEndpoint.del("deleteWebhookByID", "/processing/webhooks/:webhookID")
      .setPath(WebhookPath)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Webhooks: notifications of invoice (and customer) events POSTed to a merchant's URL, signed.")
{}

const OperatorWebhookPath = Schema.Struct({ webhookID: Schema.String.pipe(Schema.minLength(1)) })
const OperatorDeliveryPath = Schema.Struct({
  webhookID: Schema.String.pipe(Schema.minLength(1)),
  deliveryID: Schema.String.pipe(Schema.minLength(1))
})

/** @since 0.1.0 @category groups */
export class AdminWebhooksGroup extends HttpApiGroup.make("AdminWebhooks")
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", "/webhooks/:webhookID/deliveries")
      .setPath(OperatorWebhookPath)
      .setUrlParams(Schema.Struct({
        limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000))),
        status: Schema.optional(Delivery.DeliveryStatus)
      }))
      .addSuccess(Schema.Array(Delivery.Delivery))
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveryAttempts", "/webhooks/:webhookID/deliveries/:deliveryID/attempts")
      .setPath(OperatorDeliveryPath)
      .addSuccess(Schema.Array(Delivery.Attempt))
  )
  .add(
    HttpApiEndpoint.post("redeliverWebhookDelivery", "/webhooks/:webhookID/deliveries/:deliveryID/redeliver")
      .setPath(OperatorDeliveryPath)
      .addSuccess(Delivery.Delivery, { status: 202 })
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookKey", "/parties/:partyID/webhook-key/rotate")
      .setPath(Schema.Struct({ partyID: PartyIdParam }))
      .addSuccess(WebhookKey.RotatedWebhookKey)
  )
  .middleware(OperatorAuthentication)
  .prefix("/admin/v1")
  .annotate(OpenApi.Description, "The operator's view of webhook delivery queues (deliveries, attempts, redelivery) and the rotation of a party's signing key.")
{}

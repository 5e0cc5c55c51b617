/**
 * Webhooks' adapters in one place: the dispatcher (`webhooks/Dispatcher`) over the SQL delivery
 * queue and outbox (`webhooks/SqlDeliveryQueue`, `webhooks/SqlOutbox`,
 * `webhooks/SqlInvoiceHistories`) with core's fan-out, the parties' key pairs (`webhooks/Keys`),
 * the URL guard (`webhooks/Guard`) and the signed HTTP sender (`webhooks/Sender`).
 *
 * @since 0.1.0
 */
import { WebhookFanOut } from "@kassa/core/webhook/WebhookFanOut"
import * as Layer from "effect/Layer"
import * as Dispatcher from "./webhooks/Dispatcher.js"
import * as Guard from "./webhooks/Guard.js"
import * as Keys from "./webhooks/Keys.js"
import * as SqlDeliveryQueue from "./webhooks/SqlDeliveryQueue.js"
import * as SqlInvoiceHistories from "./webhooks/SqlInvoiceHistories.js"
import * as SqlOutbox from "./webhooks/SqlOutbox.js"

export {
  /** @since 0.1.0 */
  WebhookDispatcher,
  /** @since 0.1.0 */
  type WebhookOptions
} from "./webhooks/Dispatcher.js"
export {
  /** @since 0.1.0 */
  CONTENT_TYPE,
  /** @since 0.1.0 */
  MAX_SOCKETS_PER_HOST,
  /** @since 0.1.0 */
  signatureHeader
} from "./webhooks/Sender.js"

/** Key pairs sealed under a given 32-byte master key (tests, embedding). @since 0.1.0 @category layers */
export const keysLayerWithKey = Keys.layerWithKey

/** Key pairs sealed under the card vault's master key. @since 0.1.0 @category layers */
export const keysLayer = Keys.layer

/** @since 0.1.0 @category layers */
export const urlGuardLayer = Guard.layer

/**
 * The dispatcher with its loops and core's fan-out, over whichever storage provides the queue,
 * outbox and invoice histories (with the webhooks' storage, the event log, customers and
 * `WebhookKeys`): the memory ports, say.
 *
 * @since 0.1.0 @category layers
 */
export const portsDispatcherLayer = (options: Dispatcher.WebhookOptions = {}) =>
  Dispatcher.layer(options).pipe(Layer.provide(WebhookFanOut.Default))

/**
 * The dispatcher with its loops, over the SQL queue and outbox and core's fan-out; needs the
 * webhooks' storage (`SqlWebhooks.layer`), the event log and customers, and `WebhookKeys`.
 *
 * @since 0.1.0 @category layers
 */
export const dispatcherLayer = (options: Dispatcher.WebhookOptions = {}) =>
  portsDispatcherLayer(options).pipe(
    Layer.provide(Layer.mergeAll(SqlDeliveryQueue.layer, SqlOutbox.layer, SqlInvoiceHistories.layer))
  )

/**
 * Everything webhooks need besides storage (`SqlWebhooks.layer`): key pairs, the URL guard and
 * the dispatcher with its loops.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: Dispatcher.WebhookOptions & { readonly dataDir: string; readonly masterKey?: string | undefined }) =>
  dispatcherLayer(options).pipe(
    Layer.provideMerge(Layer.mergeAll(keysLayer(options), urlGuardLayer(options)))
  )

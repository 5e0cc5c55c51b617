/**
 * Which aggregates notify webhooks: one mapper per aggregate type, keyed by the type its events
 * are stored under. The fan-out, the delivery queue and the sender know no aggregate type, so an
 * aggregate with notifications of its own adds one module and one line here: a
 * `NotificationMapper` for the payments webhooks of a topic (its notifications go to the shop's
 * webhooks that asked for their types), or a `DeliveryMapper` that reads and chooses its
 * subscribers itself (the wallet's withdrawals and destinations).
 *
 * @since 0.1.0
 */
import { DestinationMapper } from "../wallet-webhook/DestinationMapper.js"
import { WithdrawalMapper } from "../wallet-webhook/WithdrawalMapper.js"
import { CustomerMapper } from "./CustomerMapper.js"
import { InvoiceMapper } from "./InvoiceMapper.js"

/** @since 0.1.0 */
export const mappers = {
  invoice: InvoiceMapper,
  customer: CustomerMapper,
  withdrawal: WithdrawalMapper,
  destination: DestinationMapper
}

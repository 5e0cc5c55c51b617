/**
 * Which aggregates notify webhooks: one mapper per aggregate type, keyed by the type its events
 * are stored under. The fan-out, the delivery queue and the sender know no aggregate type, so an
 * aggregate with notifications of its own (a withdrawal, say) adds one module and one line:
 *
 * ```ts
 * // webhook/WithdrawalMapper.ts
 * export const WithdrawalMapper: Effect.Effect<NotificationMapper, never, WithdrawalRepository> =
 *   Effect.map(WithdrawalRepository, (withdrawals) => ({
 *     topic: "WithdrawalsTopic",
 *     prepare: (entries) => … read the entries' withdrawals together, then answer each entry's
 *       { subject: { type: "withdrawal", id, shopID }, eventID, notifications }
 *   }))
 * // here
 * withdrawal: WithdrawalMapper
 * ```
 *
 * @since 0.1.0
 */
import { CustomerMapper } from "./CustomerMapper.js"
import { InvoiceMapper } from "./InvoiceMapper.js"

/** @since 0.1.0 */
export const mappers = {
  invoice: InvoiceMapper,
  customer: CustomerMapper
}

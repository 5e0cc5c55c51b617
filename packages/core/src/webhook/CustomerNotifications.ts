/**
 * From customer events to `CustomersTopic` notifications, as pure functions.
 *
 * | change | delivered `eventType` |
 * |---|---|
 * | CustomerCreated / CustomerDeleted / CustomerReady | the same |
 * | CustomerBindingStarted | CustomerBindingStarted |
 * | CustomerBindingStatusChanged succeeded / failed | CustomerBindingSucceeded / CustomerBindingFailed |
 *
 * Interactions of bindings have no notification. Each notification carries the customer (and
 * binding) as they stood right after the event.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type Binding, type Customer, CustomerChange, LifecycleChange } from "../customer/Customer.js"
import type * as N from "./Notification.js"
import { toWebhookDetails } from "./NotificationMapping.js"

/** The customer changes notifications are made of, as stored. @since 0.1.0 @category schemas */
export const CustomerWebhookChange = Schema.Union(LifecycleChange, ...CustomerChange.members)
/** @since 0.1.0 */
export type CustomerWebhookChange = typeof CustomerWebhookChange.Type

const decodeOne = Schema.decodeUnknownOption(CustomerWebhookChange)

/** Decodes stored changes, leaving out unknown ones. @since 0.1.0 */
export const decodeCustomerChanges = (stored: ReadonlyArray<unknown>): ReadonlyArray<CustomerWebhookChange> =>
  stored.flatMap((c) => Option.toArray(decodeOne(c)))

/** @since 0.1.0 @category models */
export interface CustomerEvent {
  readonly id: number
  readonly createdAt: Date
  readonly changes: ReadonlyArray<CustomerWebhookChange>
}

/** @since 0.1.0 @category models */
export interface CustomerSnapshots {
  readonly customer: Customer
  readonly bindings: ReadonlyMap<string, Binding>
}

/**
 * The customer and its bindings right after event `eventID`: the status folded from the history
 * (created unready, ready once a binding succeeded), the rest from the current record, which the
 * history does not carry (None without it).
 *
 * @since 0.1.0
 */
export const customerSnapshotsAt = (
  history: ReadonlyArray<CustomerEvent>,
  eventID: number,
  current: Customer | undefined
): Option.Option<CustomerSnapshots> => {
  if (current === undefined) return Option.none()
  let status = current.status
  const bindings = new Map<string, Binding>()
  for (const event of [...history].filter((e) => e.id <= eventID).sort((a, b) => a.id - b.id)) {
    for (const change of event.changes) {
      switch (change.changeType) {
        case "CustomerCreated":
          status = "unready"
          break
        case "CustomerReady":
          status = "ready"
          break
        case "CustomerBindingStarted":
          bindings.set(change.customerBinding.id, change.customerBinding)
          break
        case "CustomerBindingStatusChanged": {
          const b = bindings.get(change.customerBindingID)
          if (b === undefined) break
          const { error: _error, ...rest } = b
          bindings.set(change.customerBindingID, change.error === undefined ? { ...rest, status: change.status } : { ...rest, status: change.status, error: change.error })
          break
        }
      }
    }
  }
  return Option.some({ customer: { ...current, status }, bindings })
}

/** The customer as notifications show it. @since 0.1.0 */
export const toWebhookCustomer = (c: Customer): N.Customer => ({
  id: c.id,
  shopID: c.shopID,
  status: c.status,
  contactInfo: {
    ...(c.contactInfo.email === undefined ? {} : { email: c.contactInfo.email }),
    ...(c.contactInfo.phoneNumber === undefined ? {} : { phoneNumber: c.contactInfo.phoneNumber })
  },
  metadata: c.metadata
})

/** The binding as notifications show it: the card by BIN and last digits only. @since 0.1.0 */
export const toWebhookBinding = (b: Binding): N.CustomerBinding => {
  const details = b.paymentResource.paymentToolDetails === undefined ? undefined : toWebhookDetails(b.paymentResource.paymentToolDetails)
  const client = b.paymentResource.clientInfo
  return {
    status: b.status,
    ...(b.error === undefined ? {} : { error: { code: b.error.code, message: b.error.message } }),
    id: b.id,
    paymentResource: {
      paymentToolToken: b.paymentResource.paymentToolToken,
      paymentSession: b.paymentResource.paymentSession,
      ...(details === undefined ? {} : { paymentToolDetails: details }),
      ...(client === undefined ? {} : { clientInfo: { ...(client.ip === undefined ? {} : { ip: client.ip }), fingerprint: client.fingerprint } })
    }
  }
}

/**
 * The notifications of one customer event, in change order.
 *
 * @since 0.1.0
 */
export const customerNotificationsOf = (event: CustomerEvent, snapshots: CustomerSnapshots): ReadonlyArray<N.CustomerNotification> => {
  const head = { eventID: event.id, occuredAt: event.createdAt.toISOString(), topic: "CustomersTopic" as const }
  const customer = toWebhookCustomer(snapshots.customer)
  const out: Array<N.CustomerNotification> = []
  for (const change of event.changes) {
    switch (change.changeType) {
      case "CustomerCreated":
      case "CustomerDeleted":
      case "CustomerReady":
        out.push({ ...head, eventType: change.changeType, customer })
        break
      case "CustomerBindingStarted": {
        const b = snapshots.bindings.get(change.customerBinding.id)
        if (b !== undefined) out.push({ ...head, eventType: "CustomerBindingStarted", customer, binding: toWebhookBinding(b) })
        break
      }
      case "CustomerBindingStatusChanged": {
        const b = snapshots.bindings.get(change.customerBindingID)
        if (b === undefined || change.status === "pending") break
        const eventType = change.status === "succeeded" ? "CustomerBindingSucceeded" : "CustomerBindingFailed"
        out.push({ ...head, eventType, customer, binding: toWebhookBinding(b) })
        break
      }
    }
  }
  return out
}

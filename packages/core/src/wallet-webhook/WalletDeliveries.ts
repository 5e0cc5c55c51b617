/**
 * The deliveries of one wallet notification: one per subscriber that wants it (`wants`: its
 * identity, its wallet when it names one, one of its event types), queued on the subject (the
 * withdrawal or destination), signed with the party's key current when it is queued.
 *
 * @since 0.1.0
 */
import type { QueuedNotification } from "../ports/DeliveryQueue.js"
import type { WalletSubscriber } from "../ports/WalletWebhookRepository.js"
import { type WalletNotification, wants } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const deliveriesTo = (
  subscribers: ReadonlyArray<WalletSubscriber>,
  about: { readonly identityID: string; readonly walletID?: string | undefined },
  subject: { readonly type: string; readonly id: string },
  eventID: number,
  notification: WalletNotification
): Array<QueuedNotification> =>
  subscribers.filter((s) => wants(s.hook, about, notification)).map((s) => ({
    subject: { webhookID: s.hook.id, type: subject.type, id: subject.id },
    eventID,
    topic: notification.topic,
    eventType: notification.eventType,
    body: JSON.stringify(notification),
    keyID: s.keyID
  }))

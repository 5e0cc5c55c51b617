import { assert, describe, it } from "@effect/vitest"
import type { DestinationRecord } from "@kassa/core/destination/Destination"
import type { WalletWebhookRecord, WalletWebhookScope } from "@kassa/core/wallet-webhook/WalletWebhook"
import * as WalletNotifications from "@kassa/core/wallet-webhook/WalletNotifications"
import { type WithdrawalRecord, withStatusEvent } from "@kassa/core/withdrawal/Withdrawal"

const at = (s: number) => new Date(Date.UTC(2026, 0, 15, 12, 0, s))

const pending: WithdrawalRecord = {
  id: "w-1",
  partyID: "p",
  walletPartyID: "p",
  walletID: "wallet-1",
  identityID: "i-1",
  destinationID: "d-1",
  amount: 1000,
  currency: "RUB",
  fee: 10,
  payout: { amount: 1000, currency: "RUB" },
  externalID: "ext-1",
  status: "Pending",
  attempts: 0,
  events: [{ eventID: 1, occuredAt: at(0), status: "Pending" }],
  createdAt: at(0),
  version: 1
}

const hook = (id: string, scope: WalletWebhookScope, identityID = "i-1"): WalletWebhookRecord => ({
  id,
  partyID: "p",
  identityID,
  scope,
  url: "https://hooks.example.com",
  createdAt: at(0)
})

const destination: DestinationRecord = {
  id: "d-1",
  partyID: "p",
  identityID: "i-1",
  name: "Card",
  currency: "RUB",
  resource: { type: "BankCardDestinationResource", token: "secret-token", bin: "424242", lastDigits: "4242", paymentSystem: "visa" },
  vaultToken: "vault-secret",
  status: "Authorized",
  isBlocked: false,
  createdAt: at(0),
  version: 1
}

describe("WalletNotifications", () => {
  it("a withdrawal's life notifies, in order, only the webhooks whose scope matches", () => {
    const succeeded = withStatusEvent({ ...pending, status: "Succeeded" }, at(5))
    const notifications = succeeded.events.map((e) => WalletNotifications.ofWithdrawalEvent(succeeded, e))
    assert.deepStrictEqual(notifications, [
      {
        eventID: "1",
        occuredAt: at(0).toISOString(),
        topic: "WithdrawalTopic",
        eventType: "WithdrawalStarted",
        withdrawal: {
          id: "w-1",
          createdAt: at(0).toISOString(),
          wallet: "wallet-1",
          destination: "d-1",
          body: { amount: 1000, currency: "RUB" },
          externalID: "ext-1"
        }
      },
      {
        eventID: "2",
        occuredAt: at(5).toISOString(),
        topic: "WithdrawalTopic",
        eventType: "WithdrawalSucceeded",
        withdrawalID: "w-1",
        externalID: "ext-1",
        fee: { amount: 10, currency: "RUB" },
        body: { amount: 1000, currency: "RUB" }
      }
    ])
    const hooks = [
      hook("all", { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalStarted", "WithdrawalSucceeded", "WithdrawalFailed"] }),
      hook("wallet", { topic: "WithdrawalsTopic", walletID: "wallet-1", eventTypes: ["WithdrawalSucceeded"] }),
      hook("other-wallet", { topic: "WithdrawalsTopic", walletID: "wallet-2", eventTypes: ["WithdrawalSucceeded"] }),
      hook("failures", { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalFailed"] }),
      hook("destinations", { topic: "DestinationsTopic", eventTypes: ["DestinationCreated"] }),
      hook("other-identity", { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalStarted"] }, "i-2")
    ]
    const delivered = notifications.flatMap((n) =>
      hooks.filter((h) => WalletNotifications.wants(h, { identityID: "i-1", walletID: "wallet-1" }, n)).map((h) => [h.id, n.eventType])
    )
    assert.deepStrictEqual(delivered, [["all", "WithdrawalStarted"], ["all", "WithdrawalSucceeded"], ["wallet", "WithdrawalSucceeded"]])
  })

  it("a failed withdrawal: WithdrawalFailed with its ids only", () => {
    const failed = withStatusEvent({ ...pending, status: "Failed", failure: { code: "authorization_failed" } }, at(3))
    assert.deepStrictEqual(WalletNotifications.ofWithdrawalEvent(failed, failed.events[1]!), {
      eventID: "2",
      occuredAt: at(3).toISOString(),
      topic: "WithdrawalTopic",
      eventType: "WithdrawalFailed",
      withdrawalID: "w-1",
      externalID: "ext-1"
    })
  })

  it("a destination's creation and authorization show the card masked, never its tokens", () => {
    const created = WalletNotifications.ofDestinationCreated(destination, 1)
    const authorized = WalletNotifications.ofDestinationStatus(destination, 2, at(1))
    const text = JSON.stringify([created, authorized])
    assert.notInclude(text, "secret")
    assert.deepStrictEqual(created.eventType === "DestinationCreated" && created.destination.resource, {
      type: "BankCard",
      cardNumberMask: "424242******4242",
      bin: "424242",
      lastDigits: "4242",
      paymentSystem: "visa"
    })
    assert.deepStrictEqual(authorized, {
      eventID: "2",
      occuredAt: at(1).toISOString(),
      topic: "DestinationTopic",
      eventType: "DestinationAuthorized",
      destinationID: "d-1"
    })
    const wanting = hook("d", { topic: "DestinationsTopic", eventTypes: ["DestinationAuthorized"] })
    assert.isTrue(WalletNotifications.wants(wanting, { identityID: "i-1" }, authorized))
    assert.isFalse(WalletNotifications.wants(wanting, { identityID: "i-1" }, created))
  })
})

/**
 * What the customer's modules work with, resolved once by the facade.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccessTokens } from "../auth/AccessTokens.js"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import type { UserInteraction } from "../payment/PaymentChange.js"
import { Acquirer } from "../ports/Acquirer.js"
import { CardVault } from "../ports/CardVault.js"
import { CustomerRepository } from "../ports/CustomerRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { KassaSettings } from "../Settings.js"
import { ShopService } from "../shop/ShopService.js"
import { PaymentResources } from "../tokenization/PaymentResources.js"
import { CustomerChange, type CustomerRecord } from "./Customer.js"

/** The aggregate type of customer events. @since 0.1.0 */
export const AGGREGATE = "customer"

const publicChange = Schema.is(CustomerChange)
const encodeChange = Schema.encodeSync(CustomerChange)

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const customers = yield* CustomerRepository
  const events = yield* EventLog
  const settings = yield* KassaSettings
  return {
    customers,
    events,
    settings,
    shops: yield* ShopService,
    resources: yield* PaymentResources,
    vault: yield* CardVault,
    acquirer: yield* Acquirer,
    externalIDs: Idempotent.make(yield* Idempotency),
    ids: yield* Ids,
    timers: yield* Timers,
    tx: yield* Transactions,
    tokens: yield* AccessTokens,
    now: Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms)),
    /** The party's customer, unless deleted. */
    load: (partyID: string, id: string) =>
      Effect.flatMap(customers.findById(partyID, id), (o) =>
        Option.isSome(o) && o.value.deletedAt === undefined ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Customer", id))),
    loadBinding: (customerID: string, id: string) =>
      Effect.flatMap(customers.findBinding(customerID, id), (o) =>
        Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Binding", id))),
    /** Appends customer changes: the specification's ones encoded, lifecycle ones as they are. */
    append: (c: CustomerRecord, changes: ReadonlyArray<CustomerChange | { readonly changeType: string }>) =>
      events.append({
        aggregateType: AGGREGATE,
        aggregateID: c.id,
        partyID: c.partyID,
        changes: changes.map((x) => (publicChange(x) ? encodeChange(x) : x))
      }),
    interactionOf: (interactionID: string): UserInteraction => ({
      interactionType: "Redirect",
      request: { requestType: "BrowserGetRequest", uriTemplate: `${settings.publicUrl}/3ds/${interactionID}` }
    })
  }
})

/** @since 0.1.0 @category models */
export type CustomerContext = Effect.Effect.Success<typeof make>

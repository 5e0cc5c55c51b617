/**
 * The SSRF guard: whether a webhook URL may be called. A host that resolves to anything but a
 * global unicast address (see `AddressPolicy`) is refused; a deployment that allows private
 * networks (development, tests) lets loopback and private addresses through too.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** @since 0.1.0 @category tags */
export class WebhookUrlGuard extends Context.Tag("kassa/WebhookUrlGuard")<WebhookUrlGuard, {
  /** Why the URL is refused, or None. A host that does not resolve is not refused here. */
  readonly check: (url: string) => Effect.Effect<Option.Option<string>>
}>() {}

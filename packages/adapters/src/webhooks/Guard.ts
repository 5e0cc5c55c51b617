/**
 * `WebhookUrlGuard`: the SSRF guard over node:dns: every address a host resolves to must be allowed by core's
 * `AddressPolicy` (with the development allowance when the deployment gives it). Used at
 * creation (a refused URL is a 400) and at every send, where the checked addresses are the ones
 * connected to (no second lookup an attacker's DNS could answer differently; see `Sender`).
 *
 * @since 0.1.0
 */
import { WebhookUrlGuard } from "@kassa/core/ports/WebhookUrlGuard"
import { forbiddenReason, isIpLiteral, type PolicyOptions } from "@kassa/core/webhook/AddressPolicy"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as dns from "node:dns"

/** @since 0.1.0 */
export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** @since 0.1.0 */
export type Resolver = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** @since 0.1.0 All addresses of a host, as the system resolver (getaddrinfo) answers them. */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dns.lookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
  )

/** @since 0.1.0 A host as a URL writes it, without IPv6 brackets. */
export const bareHost = (hostname: string): string =>
  hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname

/** @since 0.1.0 Why one of the addresses is refused, or undefined. */
export const refusedAddress = (
  host: string,
  addresses: ReadonlyArray<ResolvedAddress>,
  policy: PolicyOptions
): string | undefined => {
  for (const a of addresses) {
    const reason = forbiddenReason(a.address, policy)
    if (reason !== undefined) return `host ${host} resolves to ${a.address} (${reason}), which webhooks may not reach`
  }
  return undefined
}

/** @since 0.1.0 Why an IP literal host is refused, or undefined (also for names). */
export const refusedLiteral = (hostname: string, policy: PolicyOptions): string | undefined => {
  const host = bareHost(hostname)
  if (!isIpLiteral(host)) return undefined
  const reason = forbiddenReason(host, policy)
  return reason === undefined ? undefined : `address ${host} (${reason}) may not be reached by webhooks`
}

/**
 * Why the URL is refused, or undefined. A host that does not resolve (or not within
 * `timeoutMs`) is not refused: nothing can be reached through it now, and every send checks again.
 *
 * @since 0.1.0
 */
export const checkUrl = async (
  text: string,
  options: { readonly allowPrivateNetworks: boolean; readonly resolver?: Resolver | undefined; readonly timeoutMs?: number }
): Promise<string | undefined> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "not a valid URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "only http and https URLs are allowed"
  const policy = { allowPrivateNetworks: options.allowPrivateNetworks }
  const host = bareHost(url.hostname)
  if (isIpLiteral(host)) return refusedLiteral(url.hostname, policy)
  const resolver = options.resolver ?? systemResolver
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const addresses = await Promise.race([
      resolver(host),
      new Promise<ReadonlyArray<ResolvedAddress>>((resolve) => {
        timer = setTimeout(() => resolve([]), options.timeoutMs ?? 5_000)
      })
    ])
    return refusedAddress(host, addresses, policy)
  } catch {
    return undefined
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}

/** @since 0.1.0 @category models */
export interface GuardOptions {
  /**
   * Lets webhooks reach loopback and private networks too (development, tests), never
   * link-local or cloud metadata: `KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`.
   */
  readonly allowPrivateNetworks?: boolean | undefined
  /** Resolves host names for the SSRF guard (default: the system resolver). */
  readonly resolve?: Resolver | undefined
}

/** @since 0.1.0 @category layers */
export const layer = (options: GuardOptions = {}): Layer.Layer<WebhookUrlGuard> =>
  Layer.succeed(WebhookUrlGuard, {
    check: (url) =>
      Effect.promise(() =>
        checkUrl(url, { allowPrivateNetworks: options.allowPrivateNetworks === true, resolver: options.resolve })
      ).pipe(Effect.map(Option.fromNullable))
  })

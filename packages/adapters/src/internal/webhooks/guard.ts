/**
 * @internal
 * The SSRF guard over node:dns: every address a host resolves to must be allowed by core's
 * `AddressPolicy` (with the development allowance when the deployment gives it). Used at
 * creation (a refused URL is a 400) and at every send, where the checked addresses are the ones
 * connected to (no second lookup an attacker's DNS could answer differently).
 */
import { forbiddenReason, isIpLiteral, type PolicyOptions } from "@kassa/core/webhook/AddressPolicy"
import * as dns from "node:dns"

/** @internal */
export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** @internal */
export type Resolver = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** @internal All addresses of a host, as the system resolver (getaddrinfo) answers them. */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dns.lookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
  )

/** @internal A host as a URL writes it, without IPv6 brackets. */
export const bareHost = (hostname: string): string =>
  hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname

/** @internal Why one of the addresses is refused, or undefined. */
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

/** @internal Why an IP literal host is refused, or undefined (also for names). */
export const refusedLiteral = (hostname: string, policy: PolicyOptions): string | undefined => {
  const host = bareHost(hostname)
  if (!isIpLiteral(host)) return undefined
  const reason = forbiddenReason(host, policy)
  return reason === undefined ? undefined : `address ${host} (${reason}) may not be reached by webhooks`
}

/**
 * @internal
 * Why the URL is refused, or undefined. A host that does not resolve (or not within
 * `timeoutMs`) is not refused: nothing can be reached through it now, and every send checks again.
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

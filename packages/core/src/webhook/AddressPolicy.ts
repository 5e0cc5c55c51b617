/**
 * Which IP addresses a webhook may reach (the SSRF guard's rules), as pure functions over
 * `ipaddr.js`'s copy of the IANA special-purpose address registries: only global unicast passes.
 *
 * - Every spelling `ipaddr.js` (like `inet_aton`) reads is the address it spells: `0xa9fea9fe`,
 *   `2852039166` and `0251.0376.0251.0376` are all 169.254.169.254.
 * - An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is judged as the IPv4 address it carries;
 *   every other IPv6 form that embeds IPv4 (NAT64, 6to4, Teredo, IPv4-translated) is refused
 *   whole, and so is IPv6 outside 2000::/3, the only block IANA allocates for global unicast.
 * - The development allowance (`allowPrivateNetworks`) adds loopback, RFC 1918 and unique local
 *   (fc00::/7), never link-local or a cloud's metadata endpoint.
 *
 * @since 0.1.0
 */
import ipaddr from "ipaddr.js"

type Address = ipaddr.IPv4 | ipaddr.IPv6

/** The registry name of global unicast, the only class a webhook may always reach. @since 0.1.0 */
export const GLOBAL_UNICAST = "unicast"

/** The classes the development allowance lets through. @since 0.1.0 */
export const PRIVATE_NETWORK_CLASSES: ReadonlySet<string> = new Set(["loopback", "private", "uniqueLocal"])

/** The class of a cloud's instance metadata endpoint, refused even under the development allowance. @since 0.1.0 */
export const CLOUD_METADATA = "cloudMetadata"

// 169.254.169.254 (AWS, GCP, Azure, …) is link-local already; AWS's IPv6 endpoint is unique local.
const metadataEndpoints: ReadonlyArray<Address> = [ipaddr.parse("169.254.169.254"), ipaddr.parse("fd00:ec2::254")]

// Global unicast IPv6 is 2000::/3 (IANA's IPv6 address space); `ipaddr.js` calls the rest of
// the space unicast too (e.g. the deprecated IPv4-compatible ::a.b.c.d).
const globalUnicastV6 = ipaddr.parseCIDR("2000::/3")

const withoutBrackets = (text: string): string => (text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text)

const parse = (text: string): Address | undefined => {
  const bare = withoutBrackets(text)
  if (!ipaddr.isValid(bare)) return undefined
  const address = ipaddr.parse(bare)
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address
}

const sameAddress = (a: Address, b: Address): boolean => a.kind() === b.kind() && a.toNormalizedString() === b.toNormalizedString()

/** Whether `host` (as in a URL, IPv6 in brackets) is an IP literal. @since 0.1.0 */
export const isIpLiteral = (host: string): boolean => parse(host) !== undefined

/**
 * The class of `address`: a range name of the special-purpose registries as `ipaddr.js` names
 * them (`loopback`, `private`, `linkLocal`, `reserved`, `rfc6052`, …), `cloudMetadata` for a
 * cloud's metadata endpoint, `unicast` for global unicast; undefined when it is not an address.
 *
 * @since 0.1.0
 */
export const classify = (address: string): string | undefined => {
  const parsed = parse(address)
  if (parsed === undefined) return undefined
  if (metadataEndpoints.some((m) => sameAddress(m, parsed))) return CLOUD_METADATA
  const range = parsed.range()
  if (range === GLOBAL_UNICAST && parsed.kind() === "ipv6" && !parsed.match(globalUnicastV6)) return "reserved"
  return range
}

/** @since 0.1.0 */
export interface PolicyOptions {
  /** The development allowance: loopback and private networks may be reached too. */
  readonly allowPrivateNetworks?: boolean | undefined
}

/**
 * Why a webhook may not reach `address` (an IPv4 or IPv6 address): its class, or undefined when
 * it may. Anything that is not an IP address is refused.
 *
 * @since 0.1.0
 */
export const forbiddenReason = (address: string, options: PolicyOptions = {}): string | undefined => {
  const kind = classify(address)
  if (kind === undefined) return "not an IP address"
  if (kind === GLOBAL_UNICAST) return undefined
  if (options.allowPrivateNetworks === true && PRIVATE_NETWORK_CLASSES.has(kind)) return undefined
  return kind
}

/** @since 0.1.0 */
export const isForbidden = (address: string, options: PolicyOptions = {}): boolean => forbiddenReason(address, options) !== undefined

/**
 * Which IP addresses a webhook may not reach (the SSRF guard's rules), as pure functions:
 * loopback, private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), CGNAT
 * (100.64/10), unspecified (0.0.0.0/8, ::), multicast and reserved, IPv6 unique local
 * (fc00::/7), and IPv4 addresses written inside IPv6 ones (IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) by the IPv4 they carry.
 *
 * @since 0.1.0
 */

/** The four octets of a dotted-decimal IPv4 address, or undefined. @since 0.1.0 */
export const parseIPv4 = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const octets: Array<number> = []
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith("0"))) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    octets.push(n)
  }
  return octets
}

/** The eight 16-bit groups of an IPv6 address (zone ids and brackets allowed), or undefined. @since 0.1.0 */
export const parseIPv6 = (input: string): ReadonlyArray<number> | undefined => {
  let text = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  if (!text.includes(":")) return undefined
  // An IPv4 tail becomes two groups.
  const lastColon = text.lastIndexOf(":")
  const tail = text.slice(lastColon + 1)
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail)
    if (v4 === undefined) return undefined
    text = `${text.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groupsOf = (s: string): Array<number> | undefined => {
    if (s === "") return []
    const out: Array<number> = []
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined
      out.push(parseInt(g, 16))
    }
    return out
  }
  const head = groupsOf(halves[0]!)
  if (head === undefined) return undefined
  if (halves.length === 1) return head.length === 8 ? head : undefined
  const rest = groupsOf(halves[1]!)
  if (rest === undefined || head.length + rest.length > 7) return undefined
  return [...head, ...Array<number>(8 - head.length - rest.length).fill(0), ...rest]
}

/** Whether `host` (as in a URL, IPv6 in brackets) is an IP literal. @since 0.1.0 */
export const isIpLiteral = (host: string): boolean => parseIPv4(host) !== undefined || parseIPv6(host) !== undefined

const inV4 = (o: ReadonlyArray<number>, prefix: ReadonlyArray<number>, bits: number): boolean => {
  const value = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0
  const net = ((prefix[0]! << 24) | (prefix[1]! << 16) | (prefix[2]! << 8) | prefix[3]!) >>> 0
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0
  return (value & mask) === (net & mask)
}

const v4Rules: ReadonlyArray<readonly [ReadonlyArray<number>, number, string]> = [
  [[0, 0, 0, 0], 8, "unspecified"],
  [[10, 0, 0, 0], 8, "private"],
  [[100, 64, 0, 0], 10, "carrier-grade NAT"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local"],
  [[172, 16, 0, 0], 12, "private"],
  [[192, 168, 0, 0], 16, "private"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[240, 0, 0, 0], 4, "reserved"]
]

const v4Reason = (o: ReadonlyArray<number>): string | undefined => {
  for (const [prefix, bits, reason] of v4Rules) if (inV4(o, prefix, bits)) return reason
  return undefined
}

const v4Of = (hi: number, lo: number): ReadonlyArray<number> => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]

const v6Reason = (g: ReadonlyArray<number>): string | undefined => {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 8)) return "unspecified"
  if (zeros(0, 7) && g[7] === 1) return "loopback"
  const embedded = (v4: ReadonlyArray<number>, kind: string) => {
    const reason = v4Reason(v4)
    return reason === undefined ? undefined : `${kind} ${reason}`
  }
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible)
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return embedded(v4Of(g[6]!, g[7]!), "IPv4-mapped")
  // 64:ff9b::/96 (NAT64)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded(v4Of(g[6]!, g[7]!), "NAT64")
  // 2002::/16 (6to4) carries the IPv4 in the next 32 bits
  if (g[0] === 0x2002) return embedded(v4Of(g[1]!, g[2]!), "6to4")
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique local"
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local"
  if ((g[0]! & 0xffc0) === 0xfec0) return "site-local"
  if ((g[0]! & 0xff00) === 0xff00) return "multicast"
  return undefined
}

/**
 * Why a webhook may not reach `address` (an IPv4 or IPv6 address), or undefined when it may.
 * Anything that is not an IP address is refused.
 *
 * @since 0.1.0
 */
export const forbiddenReason = (address: string): string | undefined => {
  const v4 = parseIPv4(address)
  if (v4 !== undefined) return v4Reason(v4)
  const v6 = parseIPv6(address)
  if (v6 !== undefined) return v6Reason(v6)
  return "not an IP address"
}

/** @since 0.1.0 */
export const isForbidden = (address: string): boolean => forbiddenReason(address) !== undefined

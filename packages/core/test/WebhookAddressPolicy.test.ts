import { assert, describe, it } from "@effect/vitest"
import { classify, forbiddenReason, isIpLiteral } from "@kassa/core/webhook/AddressPolicy"
import { isHttpUrl } from "@kassa/core/webhook/Webhook"

const dev = { allowPrivateNetworks: true }

/** address, its class, whether it passes in production, whether it passes under the development allowance */
const table: ReadonlyArray<readonly [string, string, boolean, boolean]> = [
  // global unicast
  ["8.8.8.8", "unicast", true, true],
  ["93.184.216.34", "unicast", true, true],
  ["2606:4700:4700::1111", "unicast", true, true],
  ["::ffff:8.8.8.8", "unicast", true, true],
  ["::ffff:808:808", "unicast", true, true],
  // loopback, in several spellings
  ["127.0.0.1", "loopback", false, true],
  ["127.1.2.3", "loopback", false, true],
  ["0177.0.0.1", "loopback", false, true],
  ["2130706433", "loopback", false, true],
  ["0x7f.1", "loopback", false, true],
  ["::1", "loopback", false, true],
  ["[::1]", "loopback", false, true],
  ["::ffff:127.0.0.1", "loopback", false, true],
  ["::ffff:7f00:1", "loopback", false, true],
  // RFC 1918 and unique local
  ["10.1.2.3", "private", false, true],
  ["172.16.0.1", "private", false, true],
  ["172.31.255.255", "private", false, true],
  ["192.168.1.1", "private", false, true],
  ["::ffff:192.168.1.1", "private", false, true],
  ["fd12:3456:789a::1", "uniqueLocal", false, true],
  ["fc00::1", "uniqueLocal", false, true],
  // link-local and cloud metadata: never
  ["169.254.0.1", "linkLocal", false, false],
  ["fe80::1", "linkLocal", false, false],
  ["fe80::1%eth0", "linkLocal", false, false],
  ["169.254.169.254", "cloudMetadata", false, false],
  ["0xa9fea9fe", "cloudMetadata", false, false],
  ["2852039166", "cloudMetadata", false, false],
  ["0251.0376.0251.0376", "cloudMetadata", false, false],
  ["169.254.43518", "cloudMetadata", false, false],
  ["::ffff:169.254.169.254", "cloudMetadata", false, false],
  ["::ffff:a9fe:a9fe", "cloudMetadata", false, false],
  ["[::ffff:a9fe:a9fe]", "cloudMetadata", false, false],
  ["fd00:ec2::254", "cloudMetadata", false, false],
  ["fd00:ec2:0:0:0:0:0:254", "cloudMetadata", false, false],
  // the ranges the hand-written guard missed
  ["::ffff:0:0", "unspecified", false, false],
  ["::ffff:0:7f00:1", "rfc6145", false, false],
  ["::ffff:0:a9fe:a9fe", "rfc6145", false, false],
  ["64:ff9b:1::1", "rfc6052", false, false],
  ["64:ff9b:1::a9fe:a9fe", "rfc6052", false, false],
  ["198.18.0.1", "reserved", false, false],
  ["198.19.255.255", "reserved", false, false],
  ["192.0.0.8", "reserved", false, false],
  ["192.0.0.170", "reserved", false, false],
  // other special-purpose ranges
  ["64:ff9b::7f00:1", "rfc6052", false, false],
  ["2002:c0a8:101::1", "6to4", false, false],
  ["2001:0:4136:e378::1", "teredo", false, false],
  ["100.64.0.1", "carrierGradeNat", false, false],
  ["0.0.0.0", "unspecified", false, false],
  ["::", "unspecified", false, false],
  ["224.0.0.1", "multicast", false, false],
  ["ff02::1", "multicast", false, false],
  ["255.255.255.255", "broadcast", false, false],
  ["240.0.0.1", "reserved", false, false],
  ["192.0.2.1", "reserved", false, false],
  ["203.0.113.7", "reserved", false, false],
  ["2001:db8::1", "reserved", false, false],
  ["::a9fe:a9fe", "reserved", false, false],
  ["::127.0.0.1", "loopback", false, true]
]

describe("AddressPolicy", () => {
  it("classifies each special-purpose range and spelling; only global unicast passes", () => {
    for (const [address, kind, production, development] of table) {
      assert.strictEqual(classify(address), kind, `class of ${address}`)
      assert.strictEqual(forbiddenReason(address) === undefined, production, `${address} in production`)
      assert.strictEqual(forbiddenReason(address, dev) === undefined, development, `${address} under the development allowance`)
    }
  })

  it("the development allowance never lets link-local or cloud metadata through", () => {
    for (const a of ["169.254.169.254", "0xa9fea9fe", "::ffff:169.254.169.254", "fd00:ec2::254", "169.254.1.1", "fe80::1"]) {
      assert.isDefined(forbiddenReason(a, dev), a)
    }
    assert.strictEqual(forbiddenReason("fd00:ec2::254", dev), "cloudMetadata")
    assert.strictEqual(forbiddenReason("169.254.169.254", dev), "cloudMetadata")
    assert.strictEqual(forbiddenReason("169.254.1.1", dev), "linkLocal")
  })

  it("anything that is not an address is refused", () => {
    for (const a of ["", "localhost", "1.2.3.4.5", "256.1.1.1", "1::2::3", "gggg::1", "[::1"]) {
      assert.isUndefined(classify(a), a)
      assert.strictEqual(forbiddenReason(a, dev), "not an IP address", a)
    }
    assert.isTrue(isIpLiteral("[::1]"))
    assert.isFalse(isIpLiteral("example.com"))
  })

  it("URL hosts in odd notations reach the policy normalised by the URL parser", () => {
    for (const u of ["http://0xa9.0xfe.0xa9.0xfe/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://[::ffff:169.254.169.254]/"]) {
      const host = new URL(u).hostname
      assert.isTrue(isIpLiteral(host), `${u} → ${host}`)
      assert.strictEqual(classify(host), "cloudMetadata", u)
    }
  })

  it("webhook URLs are absolute http(s) URLs", () => {
    for (const u of ["https://merchant.example/hook", "http://127.0.0.1:8080/x?y=1", "https://[2001:db8::1]/"]) assert.isTrue(isHttpUrl(u), u)
    for (const u of ["ftp://merchant.example/", "merchant.example/hook", "javascript:alert(1)", "file:///etc/passwd", "", "http://"]) {
      assert.isFalse(isHttpUrl(u), u)
    }
  })
})

import { assert, describe, it } from "@effect/vitest"
import { forbiddenReason, isIpLiteral, parseIPv4, parseIPv6 } from "@kassa/core/webhook/AddressPolicy"
import { isHttpUrl } from "@kassa/core/webhook/Webhook"

const refused = (a: string) => assert.isDefined(forbiddenReason(a), `${a} should be refused`)
const allowed = (a: string) => assert.isUndefined(forbiddenReason(a), `${a} should be allowed`)

describe("AddressPolicy", () => {
  it("loopback", () => {
    for (const a of ["127.0.0.1", "127.255.255.254", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1"]) refused(a)
    assert.strictEqual(forbiddenReason("127.0.0.1"), "loopback")
    assert.strictEqual(forbiddenReason("::1"), "loopback")
  })

  it("private networks 10/8, 172.16/12, 192.168/16, and their edges", () => {
    for (const a of ["10.0.0.0", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.255"]) refused(a)
    for (const a of ["9.255.255.255", "11.0.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0"]) allowed(a)
    assert.strictEqual(forbiddenReason("172.20.1.1"), "private")
  })

  it("link-local 169.254/16 and fe80::/10", () => {
    for (const a of ["169.254.0.1", "169.254.169.254", "fe80::1", "fe80::1%eth0", "febf:ffff::1"]) refused(a)
    for (const a of ["169.253.255.255", "169.255.0.0", "fec0::1".replace("fec0", "fe00")]) allowed(a)
    assert.strictEqual(forbiddenReason("169.254.169.254"), "link-local")
    assert.strictEqual(forbiddenReason("fe80::1"), "link-local")
  })

  it("carrier-grade NAT 100.64/10", () => {
    for (const a of ["100.64.0.0", "100.100.100.100", "100.127.255.255"]) refused(a)
    for (const a of ["100.63.255.255", "100.128.0.0"]) allowed(a)
  })

  it("unique local fc00::/7", () => {
    for (const a of ["fc00::1", "fd12:3456:789a::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]) refused(a)
    assert.strictEqual(forbiddenReason("fd00::1"), "unique local")
    allowed("fb00::1")
  })

  it("unspecified, multicast and reserved", () => {
    for (const a of ["0.0.0.0", "0.1.2.3", "::", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1", "ff02::1"]) refused(a)
  })

  it("IPv4 inside IPv6: mapped, compatible, NAT64, 6to4 are judged by the IPv4 they carry", () => {
    for (
      const a of [
        "::ffff:127.0.0.1",
        "::ffff:7f00:1",
        "::FFFF:10.1.2.3",
        "::ffff:192.168.1.1",
        "::ffff:169.254.169.254",
        "::ffff:100.64.0.1",
        "0:0:0:0:0:ffff:172.16.0.1",
        "::127.0.0.1",
        "64:ff9b::7f00:1",
        "64:ff9b::10.0.0.1",
        "2002:7f00:1::1",
        "2002:c0a8:101::1"
      ]
    ) refused(a)
    assert.strictEqual(forbiddenReason("::ffff:127.0.0.1"), "IPv4-mapped loopback")
    for (const a of ["::ffff:8.8.8.8", "::ffff:93.184.216.34", "64:ff9b::808:808", "2002:808:808::1"]) allowed(a)
  })

  it("public addresses are allowed", () => {
    for (const a of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "203.0.113.7", "2606:4700:4700::1111", "2001:4860:4860::8888"]) allowed(a)
  })

  it("anything that is not an address is refused", () => {
    for (const a of ["", "localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1::2::3", "gggg::1", "[::1"]) refused(a)
  })

  it("parses the forms URLs and resolvers write", () => {
    assert.deepStrictEqual(parseIPv4("192.168.0.1"), [192, 168, 0, 1])
    assert.deepStrictEqual(parseIPv6("::1"), [0, 0, 0, 0, 0, 0, 0, 1])
    assert.deepStrictEqual(parseIPv6("[fe80::1]"), [0xfe80, 0, 0, 0, 0, 0, 0, 1])
    assert.deepStrictEqual(parseIPv6("::ffff:1.2.3.4"), [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304])
    assert.deepStrictEqual(parseIPv6("1:2:3:4:5:6:7:8"), [1, 2, 3, 4, 5, 6, 7, 8])
    assert.isUndefined(parseIPv6("1:2:3:4:5:6:7:8:9"))
    assert.isTrue(isIpLiteral("[::1]"))
    assert.isFalse(isIpLiteral("example.com"))
  })

  it("URL hosts in odd IPv4 notations reach the policy normalised by the URL parser", () => {
    for (const u of ["http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/", "http://[::ffff:127.0.0.1]/"]) {
      const host = new URL(u).hostname
      assert.isTrue(isIpLiteral(host), `${u} → ${host}`)
      refused(host)
    }
  })

  it("webhook URLs are absolute http(s) URLs", () => {
    for (const u of ["https://merchant.example/hook", "http://127.0.0.1:8080/x?y=1", "https://[2001:db8::1]/"]) assert.isTrue(isHttpUrl(u), u)
    for (const u of ["ftp://merchant.example/", "merchant.example/hook", "javascript:alert(1)", "file:///etc/passwd", "", "http://"]) {
      assert.isFalse(isHttpUrl(u), u)
    }
  })
})

import { assert, describe, it } from "@effect/vitest"
import * as Continuation from "@kassa/core/search/Continuation"
import * as GeoIDs from "@kassa/core/search/GeoIDs"
import * as SearchParams from "@kassa/core/search/SearchParams"
import * as SearchQuery from "@kassa/core/search/SearchQuery"
import * as Statistics from "@kassa/core/search/Statistics"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { createHmac } from "node:crypto"

const signer = (key: string): Continuation.Signer => {
  const sign = (data: string) => createHmac("sha256", key).update(data).digest("base64url")
  return { sign, verify: (data, code) => sign(data) === code }
}
const DAY = 86_400_000

describe("Search parameters", () => {
  const decode = Schema.decodeUnknownEither(SearchParams.PaymentSearchParams, { errors: "all" })
  const base = { fromTime: "2025-01-01T00:00:00Z", toTime: "2025-02-01T00:00:00+03:00", limit: "10" }

  it("decode from a URL's strings", () => {
    const ok = decode({ ...base, offset: "5", paymentAmount: "100", first6: "424242", last4: "", bin: "12345678" })
    assert.isTrue(Either.isRight(ok))
    const p = Either.getOrThrow(ok)
    assert.strictEqual(p.limit, 10)
    assert.strictEqual(p.offset, 5)
    assert.strictEqual(p.toTime.toISOString(), "2025-01-31T21:00:00.000Z")
  })

  it("refuse every bad value, naming the field", () => {
    const bad: ReadonlyArray<readonly [string, string]> = [
      ["limit", "0"],
      ["limit", "1001"],
      ["limit", "1.5"],
      ["limit", "x"],
      ["offset", "-1"],
      ["fromTime", "2025-01-01"],
      ["toTime", "yesterday"],
      ["paymentStatus", "paid"],
      ["paymentFlow", "PaymentFlowHold"],
      ["paymentMethod", "card"],
      ["paymentTerminalProvider", "qiwi"],
      ["invoiceID", "x".repeat(41)],
      ["paymentID", ""],
      ["payerEmail", "nobody"],
      ["payerEmail", `${"a".repeat(95)}@b.com`],
      ["payerIP", "10.0.0.256"],
      ["payerIP", "1::2::3"],
      ["payerFingerprint", "f".repeat(1001)],
      ["customerID", "c".repeat(41)],
      ["bankCardTokenProvider", "ApplePay"],
      ["bankCardPaymentSystem", "VISA"],
      ["first6", "42424"],
      ["last4", "12345"],
      ["bin", "12345"],
      ["cardNumberMask", "1"],
      ["rrn", "12345678901"],
      ["rrn", "12345678901!"],
      ["approvalCode", ""],
      ["paymentAmount", "0"],
      ["paymentAmount", "9007199254740992"]
    ]
    for (const [field, value] of bad) {
      const result = decode({ ...base, [field]: value })
      assert.isTrue(Either.isLeft(result), `${field}=${value} was accepted`)
      if (Either.isLeft(result)) assert.include(String(result.left), field)
    }
  })

  it("know IPv4 and IPv6 addresses", () => {
    for (const ip of ["10.0.0.1", "255.255.255.255", "::", "::1", "2001:db8::8a2e:370:7334", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.1", "1:2:3:4:5:6:1.2.3.4"]) {
      assert.isTrue(SearchParams.isIpAddress(ip), ip)
    }
    for (const ip of ["", "1.2.3", "01.2.3.4x", "256.1.1.1", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1:2:3:4:5:6:7", "12345::", "::ffff:1.2.3.256", "1:2:3:4:5:6:7:1.2.3.4"]) {
      assert.isFalse(SearchParams.isIpAddress(ip), ip)
    }
  })
})

describe("Search windows and paging", () => {
  const at = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms)

  it("a window runs forward and at most 366 days", () => {
    assert.deepStrictEqual(SearchQuery.window(at(0), at(366 * DAY)), Either.right({ from: at(0).getTime(), to: at(366 * DAY).getTime() }))
    const codeOf = (e: Either.Either<unknown, { code: string; message: string }>) => Either.isLeft(e) ? e.left.code : "ok"
    assert.strictEqual(codeOf(SearchQuery.window(at(0), at(0))), "invalidRequest")
    assert.strictEqual(codeOf(SearchQuery.window(at(1), at(0))), "invalidRequest")
    assert.strictEqual(codeOf(SearchQuery.window(at(0), at(366 * DAY + 1))), "limitExceeded")
    assert.strictEqual(codeOf(SearchQuery.paging({ limit: 10, offset: 0, continuationToken: "t" })), "invalidRequest")
    assert.strictEqual(codeOf(SearchQuery.paging({ limit: 1000, offset: 99_000 })), "ok")
    assert.strictEqual(codeOf(SearchQuery.paging({ limit: 1000, offset: 99_001 })), "limitExceeded")
  })

  it("filters become conditions on stored values", () => {
    assert.deepStrictEqual(
      SearchQuery.paymentConditions({
        paymentFlow: "hold",
        paymentMethod: "paymentTerminal",
        payerEmail: "A@B.c",
        first6: "424242",
        bin: "42424242",
        last4: "",
        cardNumberMask: "42"
      }),
      {
        flow: "PaymentFlowHold",
        method: "PaymentToolDetailsPaymentTerminal",
        email: "a@b.c",
        bin: ["424242", "42424242"],
        lastDigits: ["42"]
      }
    )
    assert.isUndefined(SearchQuery.paymentConditions({ last4: "" }))
  })
})

describe("Continuation tokens", () => {
  const key = signer("k".repeat(32))
  const keyset = { createdAt: 1_735_689_600_123, ids: ["inv-1", "2"] }

  it.prop(
    "decode to the position they were issued at, for the same kind and conditions only",
    [
      FastCheck.integer({ min: 0, max: 2 ** 45 }),
      FastCheck.array(FastCheck.string({ maxLength: 40 }), { minLength: 1, maxLength: 3 }),
      FastCheck.string({ maxLength: 20 })
    ],
    ([createdAt, ids, conditions]) => {
      const token = Continuation.encode(key, "payments", conditions, { createdAt, ids })
      assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      assert.deepStrictEqual(Continuation.decode(key, "payments", conditions, ids.length, token), Either.right({ createdAt, ids }))
      assert.isTrue(Either.isLeft(Continuation.decode(key, "payments", conditions + "x", ids.length, token)))
      assert.isTrue(Either.isLeft(Continuation.decode(key, "invoices", conditions, ids.length, token)))
      assert.isTrue(Either.isLeft(Continuation.decode(signer("other key of 32 bytes.........."), "payments", conditions, ids.length, token)))
    },
    { fastCheck: { numRuns: 30 } }
  )

  it("refuse altered and malformed tokens", () => {
    const token = Continuation.encode(key, "payments", "c", keyset)
    const [position, code] = token.split(".") as [string, string]
    const forged = Continuation.encode(key, "payments", "c", { createdAt: keyset.createdAt + 1, ids: keyset.ids })
    for (const bad of ["", ".", token + "x", `${forged.split(".")[0]}.${code}`, `${position}.`, position, `${position}x.${code}`]) {
      assert.isTrue(Either.isLeft(Continuation.decode(key, "payments", "c", 2, bad)), bad)
    }
    // a genuine token of another shape (wrong number of ids)
    assert.isTrue(Either.isLeft(Continuation.decode(key, "payments", "c", 1, token)))
  })

  it("canonical text ignores key order and absent values", () => {
    assert.strictEqual(Continuation.canonical({ b: 1, a: [1, { d: undefined, c: "x" }] }), Continuation.canonical({ a: [1, { c: "x" }], b: 1 }))
    assert.notStrictEqual(Continuation.canonical({ a: 1 }), Continuation.canonical({ a: "1" }))
  })

  it.prop(
    "base64url round-trips",
    [FastCheck.uint8Array({ maxLength: 64 })],
    ([bytes]) => {
      const text = Continuation.base64url(bytes)
      assert.strictEqual(text, Buffer.from(bytes).toString("base64url"))
      assert.deepStrictEqual(Continuation.fromBase64url(text), bytes)
    },
    { fastCheck: { numRuns: 30 } }
  )
})

describe("Statistics segments", () => {
  const from = new Date(Date.UTC(2025, 0, 31, 10, 30))

  it("fixed units: buckets of splitSize × unit from fromTime", () => {
    const s = Statistics.segmentation(from, new Date(from.getTime() + 25 * 3_600_000), "hour", 6)
    assert.strictEqual(s.bucketMs, 6 * 3_600_000)
    assert.strictEqual(s.count, 5)
    assert.strictEqual(s.segmentOf(3), 3)
    const w = Statistics.segmentation(from, new Date(from.getTime() + 3 * DAY), "week", 2_000_000_000)
    assert.strictEqual(w.count, 1)
    assert.strictEqual(Statistics.segmentation(from, new Date(from.getTime() + DAY), "minute", 1).count, 1440)
  })

  it("months and years: calendar months of UTC from fromTime, grouped by day", () => {
    const s = Statistics.segmentation(from, new Date(Date.UTC(2025, 4, 1)), "month", 1)
    // Jan 31 → Feb 28 → Mar 31 → Apr 30 → (May 31 is past the window)
    assert.strictEqual(s.bucketMs, DAY)
    assert.strictEqual(s.count, 4)
    const day = (y: number, m: number, d: number) => Math.floor((Date.UTC(y, m, d, 11) - from.getTime()) / DAY)
    assert.strictEqual(s.segmentOf(day(2025, 1, 27)), 0)
    assert.strictEqual(s.segmentOf(day(2025, 1, 28)), 1)
    assert.strictEqual(s.segmentOf(day(2025, 2, 30)), 1)
    assert.strictEqual(s.segmentOf(day(2025, 2, 31)), 2)
    assert.strictEqual(s.segmentOf(day(2025, 3, 30)), 3)
    assert.strictEqual(Statistics.addMonths(new Date(Date.UTC(2024, 0, 31, 5)), 1).toISOString(), "2024-02-29T05:00:00.000Z")
    const y = Statistics.segmentation(from, new Date(from.getTime() + 366 * DAY), "year", 1)
    assert.strictEqual(y.count, 2)
    assert.strictEqual(y.segmentOf(364), 0)
    assert.strictEqual(y.segmentOf(365), 1)
  })

  it("geo ids are ISO 3166-1 numeric codes, 0 when unknown", () => {
    assert.strictEqual(GeoIDs.geoIDOf("RUS"), 643)
    assert.strictEqual(GeoIDs.geoIDOf("USA"), 840)
    assert.strictEqual(GeoIDs.geoIDOf("AFG"), 4)
    assert.strictEqual(GeoIDs.geoIDOf(undefined), GeoIDs.unknownGeoID)
    assert.strictEqual(GeoIDs.geoIDOf("XXX"), 0)
    assert.strictEqual(GeoIDs.alpha3Of(398), "KAZ")
  })
})

/**
 * The wallet interface's reports and downloads over HTTP, on SQLite and PostgreSQL: a
 * `withdrawalRegistry` report is 201 `pending`, then `created` with a file; its download link
 * answers the CSV of the withdrawals made here without the API key; a forged link is 403, and
 * (under the TestClock) an expired one; another party's report and file are 404.
 */
import { assert, layer } from "@effect/vitest"
import { Scheduler } from "@kassa/adapters/SqlTimers"
import { Dialects, Expect, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"

type Method = "GET" | "POST"

const call = (method: Method, path: string, token: string, body?: unknown) =>
  TestServer.raw(method, path, {
    headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** The link's path on the server (its origin is `KASSA_PUBLIC_URL`). */
const open = (url: string, headers: Record<string, string> = {}) => TestServer.raw("GET", new URL(url).pathname, { headers })

const operator = (method: Method, path: string, body?: unknown) =>
  Effect.flatMap(Fixtures.operatorToken, (token) => call(method, `/admin/v1/wallet${path}`, token, body))

const rub = (amount: number) => ({ amount, currency: "RUB" })
const iso = (ms: number) => new Date(ms).toISOString()

const identityOf = (apiKey: string) =>
  Effect.map(call("POST", "/wallet/v0/identities", apiKey, { name: "Ivan", provider: "test" }), (r) => r.json)

const cardToken = (apiKey: string) =>
  Effect.map(
    call("POST", "/payres/v0/bank-cards", apiKey, { type: "BankCard", cardNumber: "4242424242424242", expDate: "12/40" }),
    (r) => r.json.token as string
  )

/** A report of the identity over [from, to], once built. */
const built = (apiKey: string, identityID: string, id: number) =>
  Effect.map(
    Expect.poll(call("GET", `/wallet/v0/identities/${identityID}/reports/${id}`, apiKey), (r) => r.json.status === "created", `report ${id}`),
    (r) => r.json
  )

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Wallet reports [${dialect}]`, (it) => {
    it.effect("createReport 201 pending → created; getReport, getReports; downloadFile's link answers the CSV without the API key", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const identity = yield* identityOf(m.apiKey)
        const w = (yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "Main", identity: identity.id, currency: "RUB" })).json
        const dep = yield* operator("POST", "/deposits", { wallet: w.id, source: "src-1", body: rub(100_000) })
        yield* Expect.poll(operator("GET", `/deposits/${dep.json.id}`), (r) => r.json.status !== "Pending", "deposit")
        const payee = yield* identityOf(m.apiKey)
        const d = (yield* call("POST", "/wallet/v0/destinations", m.apiKey, {
          name: "Card",
          identity: payee.id,
          currency: "RUB",
          resource: { type: "BankCardDestinationResource", token: yield* cardToken(m.apiKey) }
        })).json
        yield* Expect.poll(call("GET", `/wallet/v0/destinations/${d.id}`, m.apiKey), (r) => r.json.status === "Authorized", "authorization")
        const from = (yield* Clock.currentTimeMillis) - 1000
        const made = []
        for (const amount of [1000, 2500]) {
          const x = yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, { wallet: w.id, destination: d.id, body: rub(amount) })
          assert.strictEqual(x.status, 202, x.text)
          made.push(
            (yield* Expect.poll(call("GET", `/wallet/v0/withdrawals/${x.json.id}`, m.apiKey), (r) => r.json.status !== "Pending", "withdrawal"))
              .json
          )
        }
        const to = (yield* Clock.currentTimeMillis) + 1000
        const params = { reportType: "withdrawalRegistry", fromTime: iso(from), toTime: iso(to) }
        const created = yield* call("POST", `/wallet/v0/identities/${identity.id}/reports`, m.apiKey, params)
        assert.strictEqual(created.status, 201, created.text)
        assert.deepInclude(created.json, { status: "pending", type: "withdrawalRegistry", fromTime: iso(from), toTime: iso(to) })
        assert.deepStrictEqual(created.json.files, [])
        const report = yield* built(m.apiKey, identity.id, created.json.id)
        assert.strictEqual(report.files.length, 1)
        // lists: the range holds it; a later range does not
        const listed = yield* call("GET", `/wallet/v0/identities/${identity.id}/reports?fromTime=${iso(from)}&toTime=${iso(to)}`, m.apiKey)
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(listed.json, [report])
        const typed = yield* call(
          "GET",
          `/wallet/v0/identities/${identity.id}/reports?fromTime=${iso(from)}&toTime=${iso(to)}&type=withdrawalRegistry`,
          m.apiKey
        )
        assert.deepStrictEqual(typed.json, [report])
        const later = yield* call("GET", `/wallet/v0/identities/${identity.id}/reports?fromTime=${iso(from + 1)}&toTime=${iso(to)}`, m.apiKey)
        assert.deepStrictEqual(later.json, [])
        // the download
        const link = yield* call("POST", `/wallet/v0/files/${report.files[0].id}/download`, m.apiKey, {})
        assert.strictEqual(link.status, 201, link.text)
        const expiresAt = Date.parse(link.json.expiresAt)
        const now = yield* Clock.currentTimeMillis
        assert.isTrue(expiresAt > now && expiresAt <= now + 60_000, link.text)
        const csv = yield* open(link.json.url)
        assert.strictEqual(csv.status, 200, csv.text)
        assert.strictEqual(csv.headers["content-type"], "text/csv; charset=utf-8")
        assert.deepStrictEqual(csv.text.split("\r\n"), [
          "id,createdAt,wallet,destination,amount,fee,currency,status",
          ...made.map((x) => [x.id, x.createdAt, w.id, d.id, x.body.amount, x.fee.amount, "RUB", x.status].join(",")),
          ""
        ])
        // a forged link; the API key is no link; a link is no API key
        const token = new URL(link.json.url).pathname.split("/").pop()!
        const [h, p, sig] = token.split(".")
        const forged = `${h}.${p}.${sig!.startsWith("A") ? "B" : "A"}${sig!.slice(1)}`
        assert.strictEqual((yield* TestServer.raw("GET", `/downloads/${forged}`)).status, 403)
        assert.strictEqual((yield* TestServer.raw("GET", `/downloads/${m.apiKey}`)).status, 403)
        assert.strictEqual((yield* call("GET", "/wallet/v0/identities", token)).status, 401)
        // another party: 404 for the report and the file, 422 for the identity
        assert.strictEqual((yield* call("GET", `/wallet/v0/identities/${identity.id}/reports/${report.id}`, other.apiKey)).status, 404)
        assert.strictEqual((yield* call("POST", `/wallet/v0/files/${report.files[0].id}/download`, other.apiKey, {})).status, 404)
        const foreign = yield* call("POST", `/wallet/v0/identities/${identity.id}/reports`, other.apiKey, params)
        assert.strictEqual(foreign.status, 422, foreign.text)
        assert.deepStrictEqual(foreign.json, { message: "No such identity" })
        const foreignList = yield* call("GET", `/wallet/v0/identities/${identity.id}/reports?fromTime=${iso(from)}&toTime=${iso(to)}`, other.apiKey)
        assert.strictEqual(foreignList.status, 422, foreignList.text)
        // a bad range
        const bad = yield* call("POST", `/wallet/v0/identities/${identity.id}/reports`, m.apiKey, { ...params, fromTime: iso(to), toTime: iso(from) })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.deepInclude(bad.json, { errorType: "NotInRange", name: "toTime" })
        assert.strictEqual((yield* call("GET", `/wallet/v0/identities/${identity.id}/reports/999999`, m.apiKey)).status, 404)
      }))
  })

  // Time travel on a suite of its own.
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Wallet report links over time [${dialect}]`, (it) => {
    it.effect("a download link works until 60 s, then is 403", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const identity = yield* identityOf(m.apiKey)
        const now = yield* Clock.currentTimeMillis
        const r = yield* call("POST", `/wallet/v0/identities/${identity.id}/reports`, m.apiKey, {
          reportType: "withdrawalRegistry",
          fromTime: iso(now - 60_000),
          toTime: iso(now)
        })
        assert.strictEqual(r.status, 201, r.text)
        yield* Effect.flatMap(Scheduler, (s) => s.runDue)
        const report = (yield* call("GET", `/wallet/v0/identities/${identity.id}/reports/${r.json.id}`, m.apiKey)).json
        assert.strictEqual(report.status, "created")
        const link = (yield* call("POST", `/wallet/v0/files/${report.files[0].id}/download`, m.apiKey, {})).json
        assert.strictEqual(Date.parse(link.expiresAt), (yield* Clock.currentTimeMillis) + 60_000)
        yield* TestClock.adjust("59 seconds")
        const fresh = yield* open(link.url)
        assert.strictEqual(fresh.status, 200, fresh.text)
        assert.strictEqual(fresh.text, "id,createdAt,wallet,destination,amount,fee,currency,status\r\n")
        yield* TestClock.adjust("2 seconds")
        const expired = yield* open(link.url)
        assert.strictEqual(expired.status, 403)
        assert.strictEqual(expired.text, "")
      }))
  })
}

/**
 * The withdrawal flow (wallets): the operator deposits into a wallet and the deposit is polled
 * until Succeeded, then createQuote, createWithdrawal with the quote's token, and getWithdrawal
 * every `pollMs` until Succeeded. Each worker has its own identity, wallet and card destination
 * (made, and the destination authorised, before the load), so flows contend only as much as the
 * server makes them.
 *
 *   node packages/testing/bench/withdrawals.mjs pg|sqlite [seconds] [concurrency]   (dev helper)
 */
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import { HttpClient, sleep } from "./load.mjs"
import { idOf, requestId, serverLoad } from "./scenarios.mjs"

const rub = (amount) => ({ amount, currency: "RUB" })
const walletStatusOf = (body) => body.match(/"status":"([A-Za-z]+)"/)?.[1]

const clientAs = (server, token, connections) =>
  new HttpClient(server.baseUrl, { connections, timeoutMs: 15_000, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } })

const failure = (step, r) => new Error(`${step}: ${r.status} ${r.error ?? r.body.slice(0, 200)}`)

/** GETs `path` until its status leaves `pending`: answers that status and the GETs it took; throws past `maxMs`. */
const settle = async (client, path, { pollMs, maxMs, pending = "Pending" }) => {
  const t0 = performance.now()
  for (let polls = 1; ; polls++) {
    const r = await client.request("GET", path, undefined, { "x-request-id": requestId() })
    if (r.status !== 200) throw failure(`GET ${path}`, r)
    const status = walletStatusOf(r.body)
    if (status !== pending) return { status, polls }
    if (performance.now() - t0 > maxMs) throw new Error(`${path} still ${pending} after ${maxMs} ms`)
    await sleep(pollMs)
  }
}

/** One worker's wallet and authorised card destination. */
const walletOf = async (client, { pollMs, maxMs }) => {
  const post = async (path, body, expect = 201) => {
    const r = await client.request("POST", path, body, { "x-request-id": requestId() })
    if (r.status !== expect) throw failure(`POST ${path}`, r)
    return JSON.parse(r.body)
  }
  const identity = await post("/wallet/v0/identities", { name: "Bench", provider: "test" })
  const wallet = await post("/wallet/v0/wallets", { name: "Bench", identity: identity.id, currency: "RUB" })
  const card = await post("/payres/v0/bank-cards", { type: "BankCard", cardNumber: "4242424242424242", expDate: "12/40" })
  const destination = await post("/wallet/v0/destinations", {
    name: "Card",
    identity: identity.id,
    currency: "RUB",
    resource: { type: "BankCardDestinationResource", token: card.token }
  })
  const authorised = await settle(client, `/wallet/v0/destinations/${destination.id}`, { pollMs, maxMs, pending: "Unauthorized" })
  if (authorised.status !== "Authorized") throw new Error(`destination ${destination.id} ended ${authorised.status}`)
  return { walletID: wallet.id, destinationID: destination.id }
}

/**
 * `concurrency` withdrawal flows at a time for `durationMs` after `warmupMs`: resolves the load's
 * result (rate = completed flows/s, latency per flow), the server's CPU and the polls per flow.
 */
export const withdrawalScenario = async (server, { concurrency, durationMs, warmupMs, pollMs = 20, maxFlowMs = 15_000, amount = 1_000 }) => {
  const client = clientAs(server, server.credentials.apiKey, concurrency)
  const operator = clientAs(server, server.credentials.adminToken, concurrency)
  const load1 = os.loadavg()[0]
  let polls = 0
  let completed = 0
  try {
    const wallets = []
    for (let w = 0; w < concurrency; w++) wallets.push(await walletOf(client, { pollMs, maxMs: maxFlowMs }))
    const result = await serverLoad(server, `the withdrawal flow ×${concurrency}`, {
      concurrency,
      durationMs,
      warmupMs,
      onMeasureStart: () => {
        polls = 0
        completed = 0
      },
      op: async (w) => {
        const { walletID, destinationID } = wallets[w]
        const t0 = performance.now()
        const step = async (label, c, path, body, expect) => {
          const r = await c.request("POST", path, body, { "x-request-id": requestId() })
          if (r.status !== expect) throw failure(label, r)
          return r.body
        }
        const poll = async (c, path) => {
          const left = maxFlowMs - (performance.now() - t0)
          const r = await settle(c, path, { pollMs, maxMs: Math.max(0, left) })
          polls += r.polls
          return r.status
        }
        try {
          // the wallet pays body + fee: deposit twice the body, the rest accumulates
          const deposit = await step("createDeposit", operator, "/admin/v1/wallet/deposits", { wallet: walletID, source: "bench", body: rub(2 * amount) }, 201)
          const deposited = await poll(operator, `/admin/v1/wallet/deposits/${idOf(deposit)}`)
          if (deposited !== "Succeeded") return { ok: false, status: `deposit ${deposited}`, error: `deposit ${deposited}` }
          const quote = JSON.parse(
            await step("createQuote", client, "/wallet/v0/withdrawal-quotes", { walletID, destinationID, currencyFrom: "RUB", currencyTo: "RUB", cash: rub(amount) }, 202)
          )
          const withdrawal = await step("createWithdrawal", client, "/wallet/v0/withdrawals", { wallet: walletID, destination: destinationID, body: rub(amount), quoteToken: quote.quoteToken }, 202)
          const status = await poll(client, `/wallet/v0/withdrawals/${idOf(withdrawal)}`)
          if (status !== "Succeeded") return { ok: false, status: `withdrawal ${status}`, error: `withdrawal ${status}: ${idOf(withdrawal)}` }
          completed++
          return { ok: true, status: "Succeeded", ms: performance.now() - t0 }
        } catch (e) {
          return { ok: false, status: "error", error: String(e?.message ?? e) }
        }
      }
    })
    return { ...result, pollsPerFlow: completed > 0 ? polls / completed : 0, load1 }
  } finally {
    client.close()
    operator.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startDevKassa } = await import("./devServer.mjs")
  const dialect = process.argv[2] === "sqlite" ? "sqlite" : "pg"
  const seconds = Number(process.argv[3] ?? 8)
  const concurrency = Number(process.argv[4] ?? 8)
  const { server, stop } = await startDevKassa(dialect, { name: "withdrawals" })
  try {
    const r = await withdrawalScenario(server, { concurrency, durationMs: seconds * 1000, warmupMs: 1000 })
    console.log(JSON.stringify({ dialect, concurrency, ok: r.ok, failed: r.failed, rate: r.rate, pollsPerFlow: r.pollsPerFlow, latency: r.latency, cpu: r.cpu, errors: r.errorSamples }))
  } finally {
    await stop()
  }
}

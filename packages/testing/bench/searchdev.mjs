// Dev helper: the search benchmark on PostgreSQL against a store kept between runs
// (`kassa_searchdev`, seeded once), so a change to one query can be measured in seconds.
// node packages/testing/bench/searchdev.mjs [rows] [--only=<operation substring>] [--prof] [--drop]
import { dropKept, startDevKassa } from "./devServer.mjs"
import { benchSearch } from "./search.mjs"

const rows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1_000_000)
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7)
if (process.argv.includes("--drop")) {
  dropKept("searchdev")
  process.exit(0)
}
const { databaseUrl, server, stop } = await startDevKassa("pg", { name: "searchdev", keep: true, prof: process.argv.includes("--prof") })
try {
  const r = await benchSearch({
    databaseUrl,
    baseUrl: server.baseUrl,
    apiKey: server.credentials.apiKey,
    shopID: server.credentials.shopID,
    partyID: server.credentials.partyID,
    rows,
    ...(only === undefined ? {} : { only }),
    log: (...args) => console.error(...args)
  })
  for (const row of r.rows) console.log(JSON.stringify(row))
  console.log(r.markdown)
} finally {
  await stop()
}

/**
 * The floor: the least a server can do for createInvoice. A bare `node:http` server that reads
 * the JSON body, builds the invoice (id, timestamps, status) and performs ONE durable write: an
 * INSERT of an invoice-sized row (the invoice as ~1 KB of JSON plus the indexed columns Kassa's
 * `invoices` table has) into PostgreSQL through a `pg` Pool of 10 connections (Kassa's default
 * pool size) or into SQLite through `better-sqlite3` with the pragmas Kassa's
 * `@effect/sql-sqlite-node` client sets (journal_mode=WAL, synchronous left at its default,
 * FULL; better-sqlite3's defaults otherwise; FLOOR_SQLITE_SYNCHRONOUS=NORMAL for comparison). No framework, no auth, no schema validation.
 * The floor's read, `GET /v2/processing/invoices/<id>`, is one SELECT of the row by primary key,
 * answered as stored.
 *
 * Environment: FLOOR_DB=pg|sqlite, DATABASE_URL (pg), FLOOR_SQLITE_FILE (sqlite), PORT, HOST.
 * Prints one JSON line containing "Listening on" when ready. Run by run.mjs as a child process.
 */
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const dialect = process.env.FLOOR_DB ?? "sqlite"
const port = Number(process.env.PORT ?? 0)
const host = process.env.HOST ?? "127.0.0.1"

const columns = "id, party_id, shop_id, created_at, due_date, amount, currency, product, status, data, version"
const ddl = [
  `CREATE TABLE IF NOT EXISTS floor_invoices (
    id TEXT PRIMARY KEY, party_id TEXT NOT NULL, shop_id TEXT NOT NULL, created_at BIGINT NOT NULL,
    due_date BIGINT NOT NULL, amount BIGINT NOT NULL, currency TEXT NOT NULL, product TEXT NOT NULL,
    status TEXT NOT NULL, data TEXT NOT NULL, version INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS floor_invoices_shop_created ON floor_invoices (party_id, shop_id, created_at, id)`
]

/** @type {(params: unknown[]) => Promise<void>} */
let insert
/** @type {(id: string) => Promise<string | undefined>} the row's JSON by primary key */
let read
let close = async () => {}

if (dialect === "pg") {
  const pg = require("pg")
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
  for (const statement of ddl) await pool.query(statement)
  const text = `INSERT INTO floor_invoices (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`
  insert = async (params) => {
    await pool.query(text, params)
  }
  read = async (id) => (await pool.query("SELECT data FROM floor_invoices WHERE id = $1", [id])).rows[0]?.data
  close = () => pool.end()
} else {
  const Database = require("better-sqlite3")
  const db = new Database(process.env.FLOOR_SQLITE_FILE ?? "floor.db")
  db.pragma("journal_mode = WAL")
  // Kassa leaves synchronous at better-sqlite3's default (FULL); FLOOR_SQLITE_SYNCHRONOUS=NORMAL
  // measures what the relaxed setting would allow (informational row of the report).
  if (process.env.FLOOR_SQLITE_SYNCHRONOUS) db.pragma(`synchronous = ${process.env.FLOOR_SQLITE_SYNCHRONOUS === "NORMAL" ? "NORMAL" : "FULL"}`)
  for (const statement of ddl) db.exec(statement)
  const statement = db.prepare(`INSERT INTO floor_invoices (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  insert = async (params) => {
    statement.run(...params)
  }
  const select = db.prepare("SELECT data FROM floor_invoices WHERE id = ?").pluck()
  read = async (id) => select.get(id)
  close = async () => db.close()
}

const send = (res, status, body) => {
  const text = body === undefined ? "" : JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const createInvoice = async (req, res, raw) => {
  let params
  try {
    params = JSON.parse(raw)
  } catch {
    return send(res, 400, { code: "invalidRequest", message: "body is not JSON" })
  }
  if (typeof params?.shopID !== "string" || typeof params?.amount !== "number") {
    return send(res, 400, { code: "invalidRequest", message: "shopID and amount are required" })
  }
  const now = Date.now()
  const invoice = {
    id: randomBytes(12).toString("base64url"),
    shopID: params.shopID,
    createdAt: new Date(now).toISOString(),
    dueDate: params.dueDate,
    amount: params.amount,
    currency: params.currency,
    product: params.product,
    description: params.description,
    metadata: params.metadata,
    status: "unpaid"
  }
  const data = JSON.stringify(invoice)
  await insert([invoice.id, "floor-party", invoice.shopID, now, Date.parse(params.dueDate) || now, invoice.amount, invoice.currency, String(invoice.product), "unpaid", data, 1])
  send(res, 201, { invoice })
}

const getInvoice = async (res, id) => {
  const data = await read(id)
  if (data === undefined) return send(res, 404, { message: "Invoice not found" })
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(data) })
  res.end(data)
}

const invoicePath = /^\/v[12]\/processing\/invoices\/([\w-]+)$/

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/health") return send(res, 200, { status: "ok" })
  const byId = req.method === "GET" ? invoicePath.exec(req.url) : null
  if (byId !== null) {
    getInvoice(res, byId[1]).catch((e) => {
      if (!res.headersSent) send(res, 500, { message: String(e?.message ?? e) })
    })
    return
  }
  if (req.method === "POST" && (req.url === "/v2/processing/invoices" || req.url === "/v1/processing/invoices")) {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      createInvoice(req, res, Buffer.concat(chunks).toString()).catch((e) => {
        if (!res.headersSent) send(res, 500, { message: String(e?.message ?? e) })
      })
    })
    return
  }
  send(res, 404, { message: `Unknown route: ${req.method} ${req.url}` })
})

const shutdown = () => {
  server.close()
  server.closeAllConnections?.()
  close().finally(() => process.exit(0))
  setTimeout(() => process.exit(0), 2_000).unref()
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)

server.listen(port, host, () => {
  const address = server.address()
  console.log(JSON.stringify({ message: `Listening on http://${host}:${address.port}`, dialect }))
})

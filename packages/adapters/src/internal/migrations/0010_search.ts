import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Search and analytics storage.
 *
 * 1. The payment fields searches filter and group on, as columns of `payments` (`search_*`):
 *    SQLite virtual generated columns (`json_extract`, computed on read); PostgreSQL plain
 *    columns kept by a `BEFORE INSERT OR UPDATE` trigger that parses the JSON once per write.
 *
 * 2. Rollups, exact at every moment: every write of `invoices`, `payments` or `refunds`
 *    appends, in its own transaction, its contribution (+1 / −1 with amounts) to
 *    `search_deltas` (append-only: writers never wait on one another), per quarter hour `q`
 *    (`created_at / 900 000`); a compactor folds deltas into `search_rollups` at three grains:
 *    `d` days, `h` hours, `q` quarter hours (`t` counts them from the epoch, UTC). A reader sums
 *    rollups and deltas in one statement. Kinds and keys:
 *    - `i` invoices by status (k1); `r` refunds by status (k1) and currency (k2);
 *    - `ps` payments by status (k1) and currency (k2);
 *    - `pg` successful payments (captured, refunded) by payer country (k1, '' unknown), currency;
 *    - `pm` successful bank card payments by payment system (k1), currency.
 *
 * 3. Indexes: every search pages on (created_at DESC, ids DESC) inside one party's shop; payments
 *    also get one index per identifying filter (payer e-mail, IP, fingerprint, customer, RRN,
 *    approval code) ahead of the same order.
 */

const Q = 900_000
const H = 3_600_000
const D = 86_400_000

/** column, JSON source and path, whether lower-cased */
const fields: ReadonlyArray<readonly [column: string, source: "data" | "flow", path: ReadonlyArray<string>, lower: boolean]> = [
  ["search_flow", "flow", ["type"], false],
  ["search_method", "data", ["payer", "paymentToolDetails", "detailsType"], false],
  ["search_provider", "data", ["payer", "paymentToolDetails", "provider"], false],
  ["search_token_provider", "data", ["payer", "paymentToolDetails", "tokenProvider"], true],
  ["search_payment_system", "data", ["payer", "paymentToolDetails", "paymentSystem"], true],
  ["search_email", "data", ["payer", "contactInfo", "email"], true],
  ["search_country", "data", ["payer", "contactInfo", "country"], false],
  ["search_ip", "data", ["payer", "clientInfo", "ip"], false],
  ["search_fingerprint", "data", ["payer", "clientInfo", "fingerprint"], false],
  ["search_customer", "data", ["payer", "customerID"], false],
  ["search_rrn", "data", ["transactionInfo", "rrn"], false],
  ["search_approval_code", "data", ["transactionInfo", "approvalCode"], false]
]

/** Columns computed from the ones above: either revision's card names, and the payer. */
const derived: ReadonlyArray<readonly [column: string, sqlite: string, pg: string]> = [
  [
    "search_bin",
    "COALESCE(json_extract(data, '$.payer.paymentToolDetails.first6'), json_extract(data, '$.payer.paymentToolDetails.bin'))",
    "COALESCE(d #>> '{payer,paymentToolDetails,first6}', d #>> '{payer,paymentToolDetails,bin}')"
  ],
  [
    "search_last4",
    "COALESCE(json_extract(data, '$.payer.paymentToolDetails.last4'), json_extract(data, '$.payer.paymentToolDetails.lastDigits'))",
    "COALESCE(d #>> '{payer,paymentToolDetails,last4}', d #>> '{payer,paymentToolDetails,lastDigits}')"
  ],
  // who paid, for the unique payers statistic: the device, else the customer, else the e-mail
  [
    "search_payer",
    "COALESCE(json_extract(data, '$.payer.clientInfo.fingerprint'), json_extract(data, '$.payer.customerID'), lower(json_extract(data, '$.payer.contactInfo.email')))",
    "COALESCE(d #>> '{payer,clientInfo,fingerprint}', d #>> '{payer,customerID}', lower(d #>> '{payer,contactInfo,email}'))"
  ]
]

const sqliteColumns = [
  ...fields.map(([column, source, path, lower]) => {
    const value = `json_extract(${source}, '$.${path.join(".")}')`
    return `ALTER TABLE payments ADD COLUMN ${column} TEXT GENERATED ALWAYS AS (${lower ? `lower(${value})` : value}) VIRTUAL`
  }),
  ...derived.map(([column, sqlite]) => `ALTER TABLE payments ADD COLUMN ${column} TEXT GENERATED ALWAYS AS (${sqlite}) VIRTUAL`)
]

const pgColumns = [
  `ALTER TABLE payments ${[...fields, ...derived].map(([c]) => `ADD COLUMN ${c} TEXT`).join(", ")}`,
  `CREATE FUNCTION kassa_payments_search_fields() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      d jsonb := NEW.data::jsonb;
      f jsonb := NEW.flow::jsonb;
    BEGIN
      ${
    fields.map(([column, source, path, lower]) => {
      const value = `${source === "flow" ? "f" : "d"} #>> '{${path.join(",")}}'`
      return `NEW.${column} := ${lower ? `lower(${value})` : value};`
    }).join("\n      ")
  }
      ${derived.map(([column, , pg]) => `NEW.${column} := ${pg};`).join("\n      ")}
      RETURN NEW;
    END
  $fn$`,
  `CREATE TRIGGER search_payments_fields BEFORE INSERT OR UPDATE OF data, flow ON payments
    FOR EACH ROW EXECUTE FUNCTION kassa_payments_search_fields()`,
  // rows written before this migration
  `UPDATE payments SET data = data`
]

/** @internal The statuses of a successful payment, as an SQL list. */
export const SUCCESSFUL = "('captured', 'refunded')"
const CARD = "'PaymentToolDetailsBankCard'"

/** The contributions of row `R` (OLD or NEW) with sign `S`, as one INSERT (valid in both dialects). */
const contributions: Record<"invoices" | "payments" | "refunds", (R: string, S: string) => string> = {
  invoices: (R, S) =>
    `INSERT INTO search_deltas (kind, party_id, shop_id, q, k1, k2, n, amount, fee)
     SELECT 'i', ${R}.party_id, ${R}.shop_id, ${R}.created_at / ${Q}, ${R}.status, '', ${S}, ${S} * ${R}.amount, 0`,
  refunds: (R, S) =>
    `INSERT INTO search_deltas (kind, party_id, shop_id, q, k1, k2, n, amount, fee)
     SELECT 'r', ${R}.party_id, ${R}.shop_id, ${R}.created_at / ${Q}, ${R}.status, ${R}.currency, ${S}, ${S} * ${R}.amount, ${S} * ${R}.fee`,
  payments: (R, S) => {
    const row = (kind: string, k1: string) =>
      `SELECT '${kind}', ${R}.party_id, ${R}.shop_id, ${R}.created_at / ${Q}, ${k1}, ${R}.currency, ${S}, ${S} * ${R}.amount, ${S} * ${R}.fee`
    return `INSERT INTO search_deltas (kind, party_id, shop_id, q, k1, k2, n, amount, fee)
     ${row("ps", `${R}.status`)}
     UNION ALL ${row("pg", `COALESCE(${R}.search_country, '')`)} WHERE ${R}.status IN ${SUCCESSFUL}
     UNION ALL ${row("pm", `${R}.search_payment_system`)} WHERE ${R}.status IN ${SUCCESSFUL}
       AND ${R}.search_method = ${CARD} AND ${R}.search_payment_system IS NOT NULL`
  }
}

/** @internal The columns whose change moves a row between rollups. */
export const watched: Record<"invoices" | "payments" | "refunds", ReadonlyArray<string>> = {
  invoices: ["party_id", "shop_id", "created_at", "status", "amount"],
  refunds: ["party_id", "shop_id", "created_at", "status", "currency", "amount", "fee"],
  payments: [
    "party_id",
    "shop_id",
    "created_at",
    "status",
    "currency",
    "amount",
    "fee",
    "search_country",
    "search_method",
    "search_payment_system"
  ]
}

const tables = (serial: string) => [
  `CREATE TABLE search_deltas (
    seq ${serial},
    kind TEXT NOT NULL,
    party_id TEXT NOT NULL,
    shop_id TEXT NOT NULL,
    q BIGINT NOT NULL,
    k1 TEXT NOT NULL,
    k2 TEXT NOT NULL,
    n BIGINT NOT NULL,
    amount BIGINT NOT NULL,
    fee BIGINT NOT NULL
  )`,
  `CREATE INDEX search_deltas_scope ON search_deltas (party_id, shop_id, kind, q)`,
  `CREATE TABLE search_rollups (
    party_id TEXT NOT NULL,
    shop_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    grain TEXT NOT NULL,
    t BIGINT NOT NULL,
    k1 TEXT NOT NULL,
    k2 TEXT NOT NULL,
    n BIGINT NOT NULL,
    amount BIGINT NOT NULL,
    fee BIGINT NOT NULL,
    PRIMARY KEY (party_id, shop_id, kind, grain, t, k1, k2)
  )`
]

/** The backfill: every existing row's contribution, straight into the rollups at each grain. */
const backfill = (["d", "h", "q"] as const).flatMap((grain) => {
  const t = `created_at / ${{ d: D, h: H, q: Q }[grain]}`
  const into = `INSERT INTO search_rollups (party_id, shop_id, kind, grain, t, k1, k2, n, amount, fee)`
  return [
    `${into} SELECT party_id, shop_id, 'i', '${grain}', ${t}, status, '', COUNT(*), SUM(amount), 0
     FROM invoices GROUP BY party_id, shop_id, ${t}, status`,
    `${into} SELECT party_id, shop_id, 'r', '${grain}', ${t}, status, currency, COUNT(*), SUM(amount), SUM(fee)
     FROM refunds GROUP BY party_id, shop_id, ${t}, status, currency`,
    `${into} SELECT party_id, shop_id, 'ps', '${grain}', ${t}, status, currency, COUNT(*), SUM(amount), SUM(fee)
     FROM payments GROUP BY party_id, shop_id, ${t}, status, currency`,
    `${into} SELECT party_id, shop_id, 'pg', '${grain}', ${t}, COALESCE(search_country, ''), currency, COUNT(*), SUM(amount), SUM(fee)
     FROM payments WHERE status IN ${SUCCESSFUL} GROUP BY party_id, shop_id, ${t}, COALESCE(search_country, ''), currency`,
    `${into} SELECT party_id, shop_id, 'pm', '${grain}', ${t}, search_payment_system, currency, COUNT(*), SUM(amount), SUM(fee)
     FROM payments WHERE status IN ${SUCCESSFUL} AND search_method = ${CARD} AND search_payment_system IS NOT NULL
     GROUP BY party_id, shop_id, ${t}, search_payment_system, currency`
  ]
})

export const changed = (R1: string, R2: string, columns: ReadonlyArray<string>, distinct: string) =>
  columns.map((c) => `${R1}.${c} ${distinct} ${R2}.${c}`).join(" OR ")

const sqliteTriggers = (["invoices", "payments", "refunds"] as const).flatMap((table) => [
  `CREATE TRIGGER search_${table}_insert AFTER INSERT ON ${table} BEGIN ${contributions[table]("NEW", "1")}; END`,
  `CREATE TRIGGER search_${table}_update AFTER UPDATE ON ${table} WHEN ${changed("OLD", "NEW", watched[table], "IS NOT")}
   BEGIN ${contributions[table]("OLD", "-1")}; ${contributions[table]("NEW", "1")}; END`,
  `CREATE TRIGGER search_${table}_delete AFTER DELETE ON ${table} BEGIN ${contributions[table]("OLD", "-1")}; END`
])

const pgTriggers = (["invoices", "payments", "refunds"] as const).flatMap((table) => [
  `CREATE FUNCTION kassa_${table}_search_rollup() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'UPDATE' AND NOT (${changed("OLD", "NEW", watched[table], "IS DISTINCT FROM")}) THEN
        RETURN NULL;
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        ${contributions[table]("OLD", "-1")};
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        ${contributions[table]("NEW", "1")};
      END IF;
      RETURN NULL;
    END
  $fn$`,
  `CREATE TRIGGER search_${table}_rollup AFTER INSERT OR UPDATE OR DELETE ON ${table}
    FOR EACH ROW EXECUTE FUNCTION kassa_${table}_search_rollup()`
])

const byPayer = ["search_email", "search_ip", "search_fingerprint", "search_customer", "search_rrn", "search_approval_code"]

const indexes = (include: (columns: ReadonlyArray<string>) => string) => [
  `CREATE INDEX invoices_search ON invoices (party_id, shop_id, created_at DESC, id DESC) ${include(["status"])}`,
  `CREATE INDEX payments_search ON payments (party_id, shop_id, created_at DESC, invoice_id DESC, id DESC) ${
    include(["status", "search_payer"])
  }`,
  ...byPayer.map((column) =>
    `CREATE INDEX payments_${column} ON payments (party_id, shop_id, ${column}, created_at DESC, invoice_id DESC, id DESC)`
  ),
  `CREATE INDEX refunds_search ON refunds (party_id, shop_id, created_at DESC, invoice_id DESC, payment_id DESC, id DESC) ${
    include(["status"])
  }`
]

/** @internal */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = sql.onDialectOrElse({
    pg: () => [
      ...pgColumns,
      ...tables("BIGSERIAL PRIMARY KEY"),
      ...backfill,
      ...pgTriggers,
      ...indexes((columns) => `INCLUDE (${columns.join(", ")})`)
    ],
    orElse: () => [
      ...sqliteColumns,
      ...tables("INTEGER PRIMARY KEY AUTOINCREMENT"),
      ...backfill,
      ...sqliteTriggers,
      ...indexes(() => "")
    ]
  })
  for (const statement of statements) yield* sql.unsafe(statement)
})

#!/usr/bin/env node
// Compares the OpenAPI document that a running server publishes with the reference
// specifications in spec/ at the repository root, operation by operation (method + path,
// parameters ignored beyond their names). Usage, from the repository root:
//   node tools/spec-coverage.mjs [URL-or-file]   (default http://127.0.0.1:8022/openapi.json)
//   --min N   exit 1 when fewer than N reference operations are served
//   --verbose list every missing operation
// The reference set is the union the interface asks for: payments v2 (79) + v1-only
// operations, served under /v1 (a document that lists them under /v2 counts the same); wallet under /wallet/v0; card tokenization under /payres/v0.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const specDir = join(here, "..", "spec");
const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); if (i < 0) return undefined; const v = args[i + 1]; args.splice(i, 2); return v; };
const min = Number(flag("--min") ?? 0);
const verbose = args.includes("--verbose") ? (args.splice(args.indexOf("--verbose"), 1), true) : false;
const source = args[0] ?? "http://127.0.0.1:8022/openapi.json";

const METHODS = ["get", "post", "put", "delete", "patch"];
const norm = (p) => p.replace(/\{[^}]+\}/g, "{}").replace(/\/+$/, "").replace(/^\/v2\//, "/v1/");
const load = (f) => JSON.parse(readFileSync(join(specDir, f), "utf8"));

function ops(doc, prefix) {
  const out = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      if (!item[m]) continue;
      const params = [...(item.parameters ?? []), ...(item[m].parameters ?? [])]
        .map((p) => (p.$ref ? resolveRef(doc, p.$ref) : p))
        .filter((p) => p && p.in === "query" && p.required)
        .map((p) => p.name);
      out.set(`${m.toUpperCase()} ${norm(prefix + path)}`, { id: item[m].operationId, required: params });
    }
  }
  return out;
}
function resolveRef(doc, ref) {
  return ref.replace(/^#\//, "").split("/").reduce((o, k) => (o ? o[k] : undefined), doc);
}

const v2 = ops(load("payments-v2.swagger.json"), "/v1");
const v1 = ops(load("payments-v1.swagger.json"), "/v1");
const reference = new Map([["payments", new Map(v2)], ["wallet", ops(load("wallet-v0.swagger.json"), "/wallet/v0")], ["payres", ops(load("payres-v0.swagger.json"), "/payres/v0")]]);
for (const [k, v] of v1) if (!reference.get("payments").has(k)) reference.get("payments").set(k, v);
// The older wallet revision adds identity challenges and classes; count them as wallet operations too.
for (const [k, v] of ops(load("wallet-v0.rbkmoney.swagger.json"), "/wallet/v0")) if (!reference.get("wallet").has(k)) reference.get("wallet").set(k, v);

let served;
try {
  served = source.startsWith("http") ? await (await fetch(source)).json() : JSON.parse(readFileSync(source, "utf8"));
} catch (e) {
  console.log(`cannot read ${source}: ${e.message}`);
  console.log("coverage: 0/0 operations (no document)");
  process.exit(min > 0 ? 1 : 0);
}
const ours = ops(served, "");
let total = 0, hit = 0, idMismatch = 0, paramGaps = 0;
for (const [api, refOps] of reference) {
  const missing = [];
  let apiHit = 0;
  for (const [key, ref] of refOps) {
    total++;
    const mine = ours.get(key);
    if (!mine) { missing.push(`${key} (${ref.id})`); continue; }
    hit++; apiHit++;
    if (mine.id && ref.id && mine.id !== ref.id) { idMismatch++; if (verbose) console.log(`  operationId ${key}: ours ${mine.id}, reference ${ref.id}`); }
    const lacking = ref.required.filter((n) => !mine.required.includes(n));
    if (lacking.length) { paramGaps++; if (verbose) console.log(`  required params not declared ${key}: ${lacking.join(", ")}`); }
  }
  console.log(`${api}: ${apiHit}/${refOps.size} operations served`);
  if (verbose) for (const m of missing) console.log(`  missing ${m}`);
  else if (missing.length) console.log(`  missing (first 10): ${missing.slice(0, 10).join("; ")}`);
}
console.log(`operationId differences: ${idMismatch}; operations lacking required query params: ${paramGaps}`);
console.log(`coverage: ${hit}/${total} operations`);
process.exit(hit < min ? 1 : 0);

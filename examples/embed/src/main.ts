/**
 * The merchant service, serving until SIGTERM or SIGINT.
 *
 *   npm run build && KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true PORT=8080 npm start
 *   curl -X POST localhost:8080/orders -d '{"amount":10000,"product":"Tea"}'
 */
import * as Shop from "./Shop.js"

const shop = await Shop.start({
  port: Number(process.env.PORT ?? 8080),
  databaseUrl: process.env.KASSA_DATABASE_URL,
  dataDir: process.env.KASSA_DATA_DIR ?? ".kassa-embed",
  // the service receives its webhooks on loopback: allowed only when the environment says so
  allowPrivateNetworks: process.env.KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true"
})
console.log(JSON.stringify({ url: shop.url }))
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void shop.close())

/**
 * The merchant service, serving until SIGTERM or SIGINT.
 *
 *   npm run build && KASSA_DATA_DIR=.kassa-embed PORT=8080 npm start
 *   curl -X POST localhost:8080/orders -d '{"amount":10000,"product":"Tea"}'
 */
import * as Shop from "./Shop.js"

const shop = await Shop.start({
  port: Number(process.env.PORT ?? 8080),
  databaseUrl: process.env.KASSA_DATABASE_URL,
  dataDir: process.env.KASSA_DATA_DIR ?? ".kassa-embed"
})
console.log(JSON.stringify({ url: shop.url }))
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void shop.close())

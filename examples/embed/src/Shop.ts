/**
 * The merchant service: Node's own HTTP server with the shop's routes, Kassa inside it
 * (`Checkout`), and the route Kassa's webhooks arrive at.
 *
 *   POST /orders             {amount, product}  → 201 {orderID, paymentID, status}
 *   POST /orders/:id/refund  {amount}           → 201 the refund, or 400 {code, message}
 *   GET  /orders/:id                            → {orderID, events}: the notifications received for it
 *   POST /webhooks                              Kassa's notifications, answered 200 once their signature checks
 */
import { verifyNotification } from "@kassa/adapters/WebhookSignature"
import * as Either from "effect/Either"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Checkout from "./Checkout.js"

export interface Options {
  readonly port: number
  readonly databaseUrl?: string | undefined
  readonly dataDir: string
  /** Lets Kassa's webhooks reach this service on loopback (development only). */
  readonly allowPrivateNetworks: boolean
  /** Hears of every call the acquirer gets. */
  readonly record?: (call: string) => void
}

const reply = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

/** A Kassa error as this service answers it: the interface's code where it has one. */
const failed = (res: ServerResponse, error: { readonly _tag: string; readonly message: string; readonly code?: string }) =>
  reply(res, error._tag === "BusinessError" ? 400 : error._tag === "NotFound" ? 404 : 502, { code: error.code ?? error._tag, message: error.message })

const bodyOf = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export const start = async (options: Options) => {
  const checkout = await Checkout.open({ ...options, record: options.record ?? (() => {}) })
  const events = new Map<string, Array<string>>()
  let publicKey = ""

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const [, first, id, action] = new URL(req.url ?? "/", "http://shop").pathname.split("/")
    const raw = await bodyOf(req)
    if (req.method === "POST" && first === "webhooks" && id === undefined) {
      if (!verifyNotification(raw, req.headers["content-signature"], publicKey)) return reply(res, 400, { message: "bad signature" })
      const event = JSON.parse(raw.toString("utf8")) as { eventType: string; invoice?: { id: string } }
      if (event.invoice !== undefined) events.set(event.invoice.id, [...(events.get(event.invoice.id) ?? []), event.eventType])
      return reply(res, 200, {})
    }
    if (first !== "orders") return reply(res, 404, { message: "no such route" })
    const body = raw.length === 0 ? {} : JSON.parse(raw.toString("utf8"))
    if (req.method === "POST" && id === undefined) {
      const order = await checkout.order(body.amount, body.product)
      return Either.isRight(order) ? reply(res, 201, order.right) : failed(res, order.left)
    }
    if (req.method === "POST" && id !== undefined && action === "refund") {
      const refund = await checkout.refund(id, body.amount)
      return Either.isRight(refund) ? reply(res, 201, refund.right) : failed(res, refund.left)
    }
    if (req.method === "GET" && id !== undefined && action === undefined) return reply(res, 200, { orderID: id, events: events.get(id) ?? [] })
    return reply(res, 404, { message: "no such route" })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => reply(res, 400, { message: String(error) }))
  })
  await new Promise<void>((listening) => server.listen(options.port, "127.0.0.1", listening))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = async () => {
    await checkout.close()
    await new Promise((closed) => server.close(closed))
  }
  const webhook = await checkout.subscribe(`${url}/webhooks`)
  if (Either.isLeft(webhook)) {
    // On loopback without the allowance createWebhook refuses the URL: stop rather than run deaf.
    await close()
    throw new Error(`the webhook to ${url}/webhooks: ${webhook.left.message}`)
  }
  publicKey = webhook.right.publicKey
  return { url, close }
}

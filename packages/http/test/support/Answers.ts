/**
 * Two servers asked the same requests: one Kassa served with the lean router in front and
 * without, their ports, and their answers as plain data (status, headers but `date`, body text)
 * to compare byte for byte.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Http from "@kassa/http/server/Http"
import * as LeanServer from "@kassa/http/server/lean/Server"
import { type Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"

/** One Kassa on `dialect` (`kassa`) served by two servers: `lean` with the lean router in front, `eager` without. */
export const twoServers = (dialect: Dialects.Dialect) =>
  Effect.gen(function*() {
    const kassa = yield* Layer.build(TestKassa.layer(dialect))
    const served = (lean: boolean) =>
      Layer.build(
        Http.serve(Layer.succeedContext(kassa), { lean }).pipe(Layer.provideMerge(LeanServer.layer(createServer, { port: 0 })))
      )
    return { kassa, lean: yield* served(true), eager: yield* served(false) }
  })

export interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly text: string
}

/** The TCP port a built server listens on. */
export const portOf = (context: Context.Context<HttpServer.HttpServer>) => {
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  return address.port
}

/** `method path` sent to the server on `port`, its answer read whole. */
export const send = (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await response.text()
    const out: Record<string, string> = {}
    response.headers.forEach((value, key) => {
      if (key !== "date") out[key] = value
    })
    return { status: response.status, headers: out, text }
  })

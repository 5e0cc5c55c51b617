/**
 * What a start checks before it touches anything: the data dir is a writable directory, the
 * listen address is free, the database answers. Each failure is a `StartError` naming the
 * setting to change.
 *
 * @since 0.1.0
 */
import { Database } from "@kassa/adapters"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import type { ServerConfig } from "./Config.js"

/** @since 0.1.0 @category errors */
export class StartError extends Data.TaggedError("StartError")<{ readonly message: string }> {}

const code = (error: unknown) => String((error as NodeJS.ErrnoException).code ?? (error as Error).message)

/** The data dir exists (created if need be), is a directory and is writable. @since 0.1.0 */
export const dataDir = (dir: string) =>
  Effect.try({
    try: () => {
      if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new Error("it is not a directory")
      try {
        fs.mkdirSync(dir, { recursive: true })
        fs.accessSync(dir, fs.constants.W_OK)
      } catch (error) {
        throw new Error(`it cannot be created or written (${code(error)})`)
      }
    },
    catch: (error) => new StartError({ message: `KASSA_DATA_DIR: cannot use ${dir}: ${(error as Error).message}` })
  })

/** Nothing listens on `host:port` yet (checked by binding it for a moment). @since 0.1.0 */
export const listenAddress = (host: string, port: number) =>
  Effect.async<void, StartError>((resume) => {
    const probe = net.createServer()
    probe.once("error", (error: NodeJS.ErrnoException) => {
      const message = error.code === "EADDRINUSE"
        ? `PORT: ${host}:${port} is already in use`
        : error.code === "EACCES"
        ? `PORT: no permission to listen on port ${port}`
        : `HOST: cannot listen on ${host}:${port} (${code(error)})`
      resume(Effect.fail(new StartError({ message })))
    })
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resume(Effect.void)))
  })

/** Every check, in order. @since 0.1.0 */
export const check = (config: ServerConfig) =>
  Effect.all([
    dataDir(config.dataDir),
    listenAddress(config.host, config.port),
    Database.awaitReachable(config.database, `${config.databaseWaitSeconds} seconds`).pipe(
      Effect.mapError((error) => new StartError({ message: `DATABASE_URL: ${error.message}` }))
    )
  ], { discard: true })

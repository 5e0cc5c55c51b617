#!/usr/bin/env -S node --max-semi-space-size=32 --heap-growing-percent=100
/**
 * The server binary: `npm start`, or the `kassa` bin of `@kassa/http`.
 *
 * Its first line gives Node its flags: a young generation of up to 32 MB a semi-space (16 MB
 * by default) halves the scavenges of a request-heavy load, about 10 % of the CPU of a
 * createInvoice; and the old generation may double between full collections, not grow up to
 * fourfold as V8 decides by default (under load its peak went from 290–555 MB to 215–230 MB, for
 * under 1 % of a core in full collections). `node server.js` without them runs too; the bench
 * reads them from this line.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpServer from "@effect/platform/HttpServer"
import { Statements } from "@kassa/adapters"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Kassa from "../Kassa.js"
import * as Config from "./Config.js"
import * as Drain from "./Drain.js"
import * as Http from "./Http.js"
import * as MetricsEndpoint from "./MetricsEndpoint.js"
import * as Provisioning from "./Provisioning.js"
import * as Tracing from "./Tracing.js"

const config = Config.fromEnv()

const server = Drain.nodeServer({ port: config.port, host: config.host })

// Ready before listen: the domain (database, migrations) is built first, then the demo
// merchant, then the HTTP server, which opens its port last. On shutdown the drain runs first,
// while the app still answers.
const main = Drain.onShutdown(config.shutdownGrace ?? Drain.defaultGrace).pipe(
  Layer.provide((config.otlp === undefined ? Http.serve : Http.serveTraced).pipe(HttpServer.withLogAddress)),
  Layer.provide(server),
  Layer.provide(Layer.succeed(MetricsEndpoint.MetricsAccess, config.metrics)),
  Layer.provide(config.provisionDemo ? Provisioning.layer(config.dataDir) : Layer.empty),
  Layer.provideMerge(Kassa.layer(config)),
  Layer.provideMerge(config.countStatements ? Statements.layer : Layer.empty),
  Layer.provide(Logger.json),
  // Spans cost throughput: off unless exported over OTLP or KASSA_TRACING asks.
  Layer.provide(
    config.otlp !== undefined ? Tracing.layer(config.otlp) : config.tracing ? Layer.empty : Layer.setTracerEnabled(false)
  )
)

NodeRuntime.runMain(Layer.launch(main), { disablePrettyLogger: true })

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
import { run } from "./Start.js"

run()

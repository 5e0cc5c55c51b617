/**
 * The whole domain on a throw-away database of one dialect.
 *
 * @since 0.1.0
 */
import { Kassa, TokenKeys } from "@kassa/adapters"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Dialect } from "./Dialects.js"
import * as TestDatabase from "./TestDatabase.js"

/** @since 0.1.0 @category layers */
export const layer = (dialect: Dialect, overrides: Partial<Kassa.Options> = {}) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire(dialect), ({ dataDir, database }) =>
      Kassa.layer({
        database,
        dataDir,
        signingKey: TokenKeys.generatePem(),
        scheduler: { pollInterval: "50 millis", lease: "10 seconds" },
        ...overrides,
        settings: { recoveryDelayMs: 2_000, ...overrides.settings }
      }))
  )

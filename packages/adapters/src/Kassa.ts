/**
 * The whole domain on a database: core's services over the adapters. This is the layer an
 * embedder provides to run Kassa in-process, and the one the HTTP server serves.
 *
 * ```ts
 * import { Kassa } from "@kassa/adapters"
 * const kassa = Kassa.layer({ database: { _tag: "sqlite", filename: "kassa.db" }, dataDir: ".kassa", acquirer: MyAcquirer.layer })
 * // or everything in memory (tests, trying Kassa out): nothing on disk, keys made at start
 * const inMemory = Kassa.layerMemory({ acquirer: MyAcquirer.layer })
 * ```
 *
 * @since 0.1.0
 */
import { Services, Settings } from "@kassa/core"
import * as MemoryPorts from "@kassa/core/memory/MemoryPorts"
import type * as MemoryTimers from "@kassa/core/memory/MemoryTimers"
import * as TestPayoutProvider from "@kassa/core/memory/TestPayoutProvider"
import type { Acquirer } from "@kassa/core/ports/Acquirer"
import type { PayoutProvider } from "@kassa/core/ports/PayoutProvider"
import { Jwt } from "@kassa/core/ports/Jwt"
import { SearchTokens } from "@kassa/core/ports/SearchTokens"
import * as Layer from "effect/Layer"
import * as Database from "./Database.js"
import * as IsoCurrencies from "./IsoCurrencies.js"
import * as Reference from "./internal/reference/index.js"
import * as Migrations from "./Migrations.js"
import * as RandomIds from "./RandomIds.js"
import * as SqlCardVault from "./SqlCardVault.js"
import * as SqlSearch from "./SqlSearch.js"
import * as SqlStorage from "./SqlStorage.js"
import type * as SqlTimers from "./SqlTimers.js"
import * as TestAcquirer from "./TestAcquirer.js"
import * as TokenKeys from "./TokenKeys.js"
import * as WebhookDispatcher from "./WebhookDispatcher.js"
import * as Workers from "./Workers.js"

/** @since 0.1.0 @category models */
export interface Options<AE = never, AR = never> {
  readonly database: Database.DatabaseConfig
  /** Where signing keys (and, on SQLite, the database) live. */
  readonly dataDir: string
  /** Who authorises, captures and refunds: the deterministic test acquirer unless given. */
  readonly acquirer?: Layer.Layer<Acquirer, AE, AR> | undefined
  /** Who pays withdrawals out to cards: the deterministic test payout provider unless given. */
  readonly payoutProvider?: Layer.Layer<PayoutProvider> | undefined
  /** PEM private key(s) instead of the data dir's keys. */
  readonly signingKey?: string | undefined
  /** The timer scheduler: its safety sweep (default 30 s; timers set here wake it by themselves) and lease. */
  readonly scheduler?: SqlTimers.SchedulerOptions | undefined
  /** The vault's master key (`KASSA_VAULT_KEY`) instead of the data dir's. */
  readonly vaultKey?: string | undefined
  readonly settings?: Partial<Settings.Settings> | undefined
  /** Webhook delivery: SSRF guard, timeouts, the safety sweep (`KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS`). */
  readonly webhooks?: WebhookDispatcher.WebhookOptions | undefined
}

/**
 * Core's services, needing only the ports: built in one layer (`Services.layer`); each service's
 * `Default` layer builds the same service. @since 0.1.0 @category layers
 */
export const services = Services.layer

/** What core's services are: what handlers and embedders call. @since 0.1.0 @category models */
export type Services = Layer.Layer.Success<typeof services>

/**
 * The ports on storage that is migrated before anything reads it.
 *
 * @since 0.1.0 @category layers
 */
export const ports = <AE = never, AR = never>(
  options: Pick<Options<AE, AR>, "acquirer" | "payoutProvider" | "scheduler" | "dataDir" | "vaultKey" | "settings" | "webhooks">
) =>
  Layer.mergeAll(
    SqlStorage.layer(options.scheduler),
    SqlCardVault.layer({ dataDir: options.dataDir, masterKey: options.vaultKey }),
    options.acquirer ?? (TestAcquirer.layer as Layer.Layer<Acquirer, AE, AR>),
    options.payoutProvider ?? TestPayoutProvider.layer,
    SqlSearch.layerFromDataDir(options.dataDir),
    IsoCurrencies.layer,
    RandomIds.layer,
    Settings.layer(options.settings),
    WebhookDispatcher.keysLayer({ dataDir: options.dataDir, masterKey: options.vaultKey }),
    WebhookDispatcher.urlGuardLayer(options.webhooks)
  ).pipe(Layer.provideMerge(Migrations.layer))

/**
 * Core's services over everything behind them, with the background work (timers, webhook
 * delivery) running for the layer's lifetime.
 *
 * @since 0.1.0 @category layers
 */
export const layer = <AE = never, AR = never>(options: Options<AE, AR>) =>
  services.pipe(
    Layer.provideMerge(WebhookDispatcher.dispatcherLayer(options.webhooks)),
    Layer.provideMerge(ports(options)),
    Layer.provideMerge(TokenKeys.layer({ dataDir: options.dataDir, pem: options.signingKey })),
    Layer.provideMerge(Database.layer(options.database)),
    Layer.provideMerge(Workers.layer)
  )

/** @since 0.1.0 @category models */
export interface MemoryOptions<AE = never, AR = never> {
  /** Who authorises, captures and refunds: the deterministic test acquirer unless given. */
  readonly acquirer?: Layer.Layer<Acquirer, AE, AR> | undefined
  /** Who pays withdrawals out to cards: the deterministic test payout provider unless given. */
  readonly payoutProvider?: Layer.Layer<PayoutProvider> | undefined
  /** PEM private key(s) of the access tokens; a key made at start otherwise. */
  readonly signingKey?: string | undefined
  readonly timers?: MemoryTimers.Options | undefined
  readonly settings?: Partial<Settings.Settings> | undefined
  /** Webhook delivery: SSRF guard, timeouts, polling (memory storage sends no wake-ups). */
  readonly webhooks?: WebhookDispatcher.WebhookOptions | undefined
}

/**
 * Every port in memory (core's memory adapters with the shipped reference data), beside the
 * ones that are no storage: the acquirer, the search tokens' key and the webhooks' key pairs
 * (both made at start), the URL guard and the ISO 4217 catalog.
 *
 * @since 0.1.0 @category layers
 */
export const memoryPorts = <AE = never, AR = never>(
  options: Pick<MemoryOptions<AE, AR>, "acquirer" | "payoutProvider" | "timers" | "settings" | "webhooks"> = {}
) =>
  Layer.mergeAll(
    MemoryPorts.layerMemory({ reference: Reference, timers: options.timers }),
    options.acquirer ?? (TestAcquirer.layer as Layer.Layer<Acquirer, AE, AR>),
    options.payoutProvider ?? TestPayoutProvider.layer,
    Layer.sync(SearchTokens, () => SqlSearch.tokens(RandomIds.bytes(32))),
    IsoCurrencies.layer,
    Settings.layer(options.settings),
    WebhookDispatcher.keysLayerWithKey(RandomIds.bytes(32)),
    WebhookDispatcher.urlGuardLayer(options.webhooks)
  )

/**
 * Core's services over every port in memory, with the same background work as `layer` (timers
 * on Effect's clock, webhook fan-out and delivery) for the layer's lifetime. Nothing is kept
 * once it closes.
 *
 * @since 0.1.0 @category layers
 */
export const layerMemory = <AE = never, AR = never>(options: MemoryOptions<AE, AR> = {}) =>
  services.pipe(
    Layer.provideMerge(WebhookDispatcher.portsDispatcherLayer(options.webhooks)),
    Layer.provideMerge(memoryPorts(options)),
    Layer.provideMerge(
      options.signingKey === undefined
        ? TokenKeys.layerEphemeral
        : Layer.sync(Jwt, () => TokenKeys.make(TokenKeys.fromPems(options.signingKey!)))
    ),
    Layer.provideMerge(Workers.layer)
  )

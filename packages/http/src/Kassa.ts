/**
 * The whole domain on a database: core's services over the adapters. This is the layer an
 * embedder provides to run Kassa in-process (with or without the HTTP server).
 *
 * @since 0.1.0
 */
import { Database, Migrations, RandomIds, SqlCardVault, SqlSearch, SqlStorage, type SqlTimers, TestAcquirer, TokenKeys, WebhookDispatcher, Workers } from "@kassa/adapters"
import {
  ApiKeyService,
  ChargebackService,
  ContractService,
  CustomerService,
  Authenticator,
  InvoiceService,
  InvoiceTemplateService,
  PaymentResources,
  PaymentService,
  Settings,
  Onboarding,
  PartyService,
  ReferenceService,
  RefundService,
  ShopService,
  WebhookService
} from "@kassa/core"
import { SearchService } from "@kassa/core/search/SearchService"
import * as Layer from "effect/Layer"

/** @since 0.1.0 @category models */
export interface KassaConfig {
  readonly database: Database.DatabaseConfig
  /** Where signing keys (and, on SQLite, the database) live. */
  readonly dataDir: string
  /** PEM private key(s) instead of the data dir's keys. */
  readonly signingKey?: string | undefined
  readonly scheduler?: SqlTimers.SchedulerOptions | undefined
  /** The vault's master key (`KASSA_VAULT_KEY`) instead of the data dir's. */
  readonly vaultKey?: string | undefined
  readonly settings?: Partial<Settings.Settings> | undefined
  /** Webhook delivery: SSRF guard, timeouts, polling (`KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS`). */
  readonly webhooks?: WebhookDispatcher.WebhookOptions | undefined
}

/** Core's services: what the HTTP server reaches of the domain. @since 0.1.0 */
export const serviceTags = [
  PartyService.PartyService,
  ShopService.ShopService,
  ReferenceService.ReferenceService,
  ApiKeyService.ApiKeyService,
  Authenticator.Authenticator,
  Onboarding.Onboarding,
  InvoiceService.InvoiceService,
  InvoiceTemplateService.InvoiceTemplateService,
  PaymentService.PaymentService,
  PaymentResources.PaymentResources,
  RefundService.RefundService,
  ChargebackService.ChargebackService,
  CustomerService.CustomerService,
  ContractService.ContractService,
  WebhookService.WebhookService,
  SearchService
] as const

const defaults = <Tags extends ReadonlyArray<{ readonly Default: Layer.Layer.Any }>>(tags: Tags) =>
  tags.map((tag) => tag.Default) as { -readonly [K in keyof Tags]: Tags[K]["Default"] }

/** Core's services, needing only the ports. @since 0.1.0 @category layers */
export const services = Layer.mergeAll(...defaults(serviceTags))

/**
 * The ports on storage that is migrated before anything reads it.
 *
 * @since 0.1.0 @category layers
 */
export const ports = (config: Pick<KassaConfig, "scheduler" | "dataDir" | "vaultKey" | "settings" | "webhooks">) =>
  Layer.mergeAll(
    SqlStorage.layer(config.scheduler),
    SqlCardVault.layer({ dataDir: config.dataDir, masterKey: config.vaultKey }),
    TestAcquirer.layer,
    SqlSearch.layerFromDataDir(config.dataDir),
    RandomIds.layer,
    Settings.layer(config.settings),
    WebhookDispatcher.keysLayer({ dataDir: config.dataDir, masterKey: config.vaultKey }),
    WebhookDispatcher.urlGuardLayer(config.webhooks)
  ).pipe(Layer.provideMerge(Migrations.layer))

/** @since 0.1.0 @category layers */
export const layer = (config: KassaConfig) =>
  services.pipe(
    Layer.provideMerge(WebhookDispatcher.dispatcherLayer(config.webhooks)),
    Layer.provideMerge(ports(config)),
    Layer.provideMerge(TokenKeys.layer({ dataDir: config.dataDir, pem: config.signingKey })),
    Layer.provideMerge(Database.layer(config.database)),
    Layer.provideMerge(Workers.layer)
  )

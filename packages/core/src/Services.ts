/**
 * Every service of core in one layer, needing only the ports: what handlers and embedders call.
 *
 * Each service's `Default` layer brings its dependencies' layers with it, and Effect builds
 * every layer of a graph with its own bookkeeping (a memo entry, a scope, a fiber per member of a
 * merge): the services' `Default` layers merged were 83 layers to build at every server start.
 * Here each service's `make` runs once, in an order where what it needs is built before it, inside
 * one layer. The services are the same as their `Default` layers build.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AccessTokens from "./auth/AccessTokens.js"
import * as ApiKeyService from "./auth/ApiKeyService.js"
import * as Authenticator from "./auth/Authenticator.js"
import * as ChargebackService from "./chargeback/ChargebackService.js"
import * as ContractService from "./contract/ContractService.js"
import * as CustomerService from "./customer/CustomerService.js"
import * as DepositService from "./deposit/DepositService.js"
import * as DestinationService from "./destination/DestinationService.js"
import * as IdentityService from "./identity/IdentityService.js"
import * as InvoiceTemplateService from "./invoice-template/InvoiceTemplateService.js"
import * as InvoiceService from "./invoice/InvoiceService.js"
import * as Onboarding from "./onboarding/Onboarding.js"
import * as PartyService from "./party/PartyService.js"
import * as PaymentService from "./payment/PaymentService.js"
import * as BankCards from "./payres/BankCards.js"
import * as ReferenceService from "./reference/ReferenceService.js"
import * as WalletReference from "./reference/WalletReference.js"
import * as RefundService from "./refund/RefundService.js"
import * as ReportService from "./report/ReportService.js"
import * as SearchService from "./search/SearchService.js"
import * as ShopService from "./shop/ShopService.js"
import * as PaymentResources from "./tokenization/PaymentResources.js"
import * as W2WService from "./transfer/W2WService.js"
import * as WebhookService from "./webhook/WebhookService.js"
import * as WalletWebhookService from "./wallet-webhook/WalletWebhookService.js"
import * as WalletService from "./wallet/WalletService.js"
import * as WithdrawalService from "./withdrawal/WithdrawalService.js"

/** A service class of `Effect.Service`: its tag, and how its value becomes an instance. */
interface ServiceClass<Self, A> extends Context.Tag<Self, Self> {
  readonly make: (service: A) => Self
}

/**
 * Runs `make` seeing the services built so far, and adds its service to them. What `make` needs
 * beyond them stays a requirement: a service put before one it needs fails to typecheck where
 * `layer` is provided.
 */
const add = <Self, A, E, R>(service: ServiceClass<Self, A>, make: Effect.Effect<A, E, R>) =>
<Built>(built: Context.Context<Built>): Effect.Effect<Context.Context<Built | Self>, E, Exclude<R, Built>> =>
  Effect.map(Effect.provide(make, built), (value) => Context.add(built, service, service.make(value)))

const payments = Effect.succeed(Context.empty()).pipe(
  Effect.flatMap(add(AccessTokens.AccessTokens, AccessTokens.make)),
  Effect.flatMap(add(PartyService.PartyService, PartyService.make)),
  Effect.flatMap(add(ShopService.ShopService, ShopService.make)),
  Effect.flatMap(add(ReferenceService.ReferenceService, ReferenceService.make)),
  Effect.flatMap(add(ApiKeyService.ApiKeyService, ApiKeyService.make)),
  Effect.flatMap(add(Authenticator.Authenticator, Authenticator.make)),
  Effect.flatMap(add(Onboarding.Onboarding, Onboarding.make)),
  Effect.flatMap(add(PaymentResources.PaymentResources, PaymentResources.make)),
  Effect.flatMap(add(InvoiceService.InvoiceService, InvoiceService.make)),
  Effect.flatMap(add(InvoiceTemplateService.InvoiceTemplateService, InvoiceTemplateService.make)),
  Effect.flatMap(add(PaymentService.PaymentService, PaymentService.make)),
  Effect.flatMap(add(RefundService.RefundService, RefundService.make)),
  Effect.flatMap(add(ChargebackService.ChargebackService, ChargebackService.make)),
  Effect.flatMap(add(CustomerService.CustomerService, CustomerService.make)),
  Effect.flatMap(add(ContractService.ContractService, ContractService.make)),
  Effect.flatMap(add(WebhookService.WebhookService, WebhookService.make)),
  Effect.flatMap(add(SearchService.SearchService, SearchService.make)),
  Effect.flatMap(add(ReportService.ReportService, ReportService.make))
)

const all = payments.pipe(
  Effect.flatMap(add(BankCards.BankCards, BankCards.make)),
  Effect.flatMap(add(WalletReference.WalletReference, WalletReference.make)),
  Effect.flatMap(add(IdentityService.IdentityService, IdentityService.make)),
  Effect.flatMap(add(WalletService.WalletService, WalletService.make)),
  Effect.flatMap(add(DepositService.DepositService, DepositService.make)),
  Effect.flatMap(add(W2WService.W2WService, W2WService.make)),
  Effect.flatMap(add(DestinationService.DestinationService, DestinationService.make)),
  Effect.flatMap(add(WithdrawalService.WithdrawalService, WithdrawalService.make)),
  Effect.flatMap(add(WalletWebhookService.WalletWebhookService, WalletWebhookService.make)),
  // a dependency of three services, not one of core's facades
  Effect.map(Context.omit(AccessTokens.AccessTokens))
)

/**
 * Core's services (every facade but `AccessTokens`, which three of them use), built once each
 * in one layer. @since 0.1.0 @category layers
 */
export const layer = Layer.effectContext(all)

/** What `layer` provides. @since 0.1.0 @category models */
export type Services = Layer.Layer.Success<typeof layer>

/** What `layer` needs: the ports. @since 0.1.0 @category models */
export type Ports = Layer.Layer.Context<typeof layer>

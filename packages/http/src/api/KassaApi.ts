/**
 * The whole wire contract. The interface's operations are declared once under `/v2` (the
 * server answers `/v1` with the same routes) and carry the request envelope; the operator API
 * lives under `/admin/v1`.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { AdminGroup } from "./Admin.js"
import { AdminWalletsGroup } from "./AdminWallets.js"
import { ContractsGroup } from "./Contracts.js"
import { CustomersGroup } from "./Customers.js"
import { RequestEnvelope } from "./Envelope.js"
import { BusinessError, NotFound, Unauthorized } from "./Errors.js"
import { InvoicesGroup } from "./Invoices.js"
import { InvoiceTemplatesGroup } from "./InvoiceTemplates.js"
import { contractOpenApi } from "./OpenApiContract.js"
import { PartiesGroup } from "./Parties.js"
import { AccountsGroup, PaymentsGroup, TokensGroup } from "./Payments.js"
import {
  CategoriesGroup,
  CountriesGroup,
  PaymentInstitutionsGroup,
  PayoutsGroup,
  ServiceProvidersGroup,
  TradeBlocsGroup
} from "./Reference.js"
import { AdminChargebacksGroup, ChargebacksGroup, RefundsGroup } from "./Refunds.js"
import { AnalyticsGroup, SearchGroup } from "./Search.js"
import { ShopsGroup } from "./Shops.js"
import { PayresApi, WalletApi } from "./wallet/WalletApi.js"
import { AdminWebhooksGroup, WebhooksGroup } from "./Webhooks.js"

/** The interface's operations. @since 0.1.0 @category api */
export class PaymentsApi extends HttpApi.make("payments")
  .add(PartiesGroup)
  .add(ShopsGroup)
  .add(ContractsGroup)
  .add(InvoicesGroup)
  .add(InvoiceTemplatesGroup)
  .add(PaymentsGroup)
  .add(TokensGroup)
  .add(AccountsGroup)
  .add(RefundsGroup)
  .add(ChargebacksGroup)
  .add(CustomersGroup)
  .add(SearchGroup)
  .add(AnalyticsGroup)
  .add(CategoriesGroup)
  .add(CountriesGroup)
  .add(TradeBlocsGroup)
  .add(PaymentInstitutionsGroup)
  .add(PayoutsGroup)
  .add(ServiceProvidersGroup)
  .add(WebhooksGroup)
  .middleware(RequestEnvelope)
  .prefix("/v2")
{}

/** The operator API. @since 0.1.0 @category api */
export class OperatorApi extends HttpApi.make("operator").add(AdminGroup).add(AdminChargebacksGroup).add(AdminWebhooksGroup)
  .add(AdminWalletsGroup)
{}

/** @since 0.1.0 @category api */
export class KassaApi extends HttpApi.make("kassa")
  .addHttpApi(PaymentsApi)
  .addHttpApi(OperatorApi)
  .addHttpApi(WalletApi)
  .addHttpApi(PayresApi)
  .addError(BusinessError)
  .addError(NotFound)
  .addError(Unauthorized)
  .annotate(OpenApi.Title, "Kassa")
  .annotate(OpenApi.Version, "2.0.1")
  .annotate(OpenApi.Transform, contractOpenApi)
{}

/**
 * The wallet interface, under `/wallet/v0`, and the card-token interface, under `/payres/v0`:
 * the union of the specification's two wallet revisions (the older adds identity classes, levels
 * and challenges), with their own envelope and error bodies.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { BankCardsGroup } from "./BankCards.js"
import { CurrenciesGroup, ResidencesGroup } from "./Currencies.js"
import { DepositsGroup } from "./Deposits.js"
import { WalletEnvelope } from "./Envelope.js"
import { IdentitiesGroup } from "./Identities.js"
import { ProvidersGroup } from "./Providers.js"
import { DownloadsGroup, ReportsGroup } from "./Reports.js"
import { TransfersGroup } from "./Transfers.js"
import { WalletsGroup } from "./Wallets.js"
import { WebhooksGroup } from "./Webhooks.js"
import { WithdrawalsGroup } from "./Withdrawals.js"

/** @since 0.1.0 @category api */
export class WalletApi extends HttpApi.make("wallet")
  .add(IdentitiesGroup)
  .add(ProvidersGroup)
  .add(WalletsGroup)
  .add(WithdrawalsGroup)
  .add(DepositsGroup)
  .add(TransfersGroup)
  .add(ReportsGroup)
  .add(DownloadsGroup)
  .add(WebhooksGroup)
  .add(CurrenciesGroup)
  .add(ResidencesGroup)
  .middleware(WalletEnvelope)
  .prefix("/wallet/v0")
{}

/** @since 0.1.0 @category api */
export class PayresApi extends HttpApi.make("payres").add(BankCardsGroup).middleware(WalletEnvelope).prefix("/payres/v0") {}

/**
 * @kassa/core: the payment domain. Pure: depends on `effect` only.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Standing from "./Standing.js"
/** @since 0.1.0 */
export * as ApiKeyService from "./auth/ApiKeyService.js"
/** @since 0.1.0 */
export * as Authenticator from "./auth/Authenticator.js"
/** @since 0.1.0 */
export * as Principal from "./auth/Principal.js"
/** @since 0.1.0 */
export * as Chargeback from "./chargeback/Chargeback.js"
/** @since 0.1.0 */
export * as ChargebackService from "./chargeback/ChargebackService.js"
/** @since 0.1.0 */
export * as Contention from "./Contention.js"
/** @since 0.1.0 */
export * as Contract from "./contract/Contract.js"
/** @since 0.1.0 */
export * as ContractService from "./contract/ContractService.js"
/** @since 0.1.0 */
export * as BindingMachine from "./customer/BindingMachine.js"
/** @since 0.1.0 */
export * as Customer from "./customer/Customer.js"
/** @since 0.1.0 */
export * as CustomerService from "./customer/CustomerService.js"
/** @since 0.1.0 */
export * as Deadline from "./Deadline.js"
/** @since 0.1.0 */
export * as Email from "./Email.js"
export * as RequestDeadline from "./RequestDeadline.js"
/** @since 0.1.0 */
export * as Errors from "./Errors.js"
/** @since 0.1.0 */
export * as Event from "./Event.js"
/** @since 0.1.0 */
export * as Ids from "./Ids.js"
/** @since 0.1.0 */
export * as JsonLimits from "./JsonLimits.js"
/** @since 0.1.0 */
export * as Money from "./Money.js"
/** @since 0.1.0 */
export * as Outcomes from "./Outcomes.js"
/** @since 0.1.0 */
export * as AccessTokens from "./auth/AccessTokens.js"
/** @since 0.1.0 */
export * as Allocation from "./allocation/Allocation.js"
/** @since 0.1.0 */
export * as Cart from "./cart/Cart.js"
/** @since 0.1.0 */
export * as Invoice from "./invoice/Invoice.js"
/** @since 0.1.0 */
export * as InvoiceChange from "./invoice/InvoiceChange.js"
/** @since 0.1.0 */
export * as InvoiceTemplate from "./invoice-template/InvoiceTemplate.js"
/** @since 0.1.0 */
export * as InvoiceTemplateService from "./invoice-template/InvoiceTemplateService.js"
/** @since 0.1.0 */
export * as InvoiceMachine from "./invoice/InvoiceMachine.js"
/** @since 0.1.0 */
export * as InvoiceService from "./invoice/InvoiceService.js"
/** @since 0.1.0 */
export * as RandomizeAmount from "./invoice/RandomizeAmount.js"
/** @since 0.1.0 */
export * as Time from "./Time.js"
/** @since 0.1.0 */
export * as Fibers from "./Fibers.js"
/** @since 0.1.0 */
export * as Now from "./Now.js"
/** @since 0.1.0 */
export * as Card from "./payment/Card.js"
/** @since 0.1.0 */
export * as Payment from "./payment/Payment.js"
/** @since 0.1.0 */
export * as PaymentCashFlow from "./payment/PaymentCashFlow.js"
/** @since 0.1.0 */
export * as PaymentChange from "./payment/PaymentChange.js"
/** @since 0.1.0 */
export * as PaymentError from "./payment/PaymentError.js"
/** @since 0.1.0 */
export * as PaymentMachine from "./payment/PaymentMachine.js"
/** @since 0.1.0 */
export * as PaymentService from "./payment/PaymentService.js"
/** @since 0.1.0 */
export * as PaymentTool from "./payment/PaymentTool.js"
/** @since 0.1.0 */
export * as PaymentResources from "./tokenization/PaymentResources.js"
/** @since 0.1.0 */
export * as BankCardRules from "./payres/BankCardRules.js"
/** @since 0.1.0 */
export * as BankCards from "./payres/BankCards.js"
/** @since 0.1.0 */
export * as WalletReference from "./reference/WalletReference.js"
/** @since 0.1.0 */
export * as SearchParams from "./search/SearchParams.js"
/** @since 0.1.0 */
export * as SearchQuery from "./search/SearchQuery.js"
/** @since 0.1.0 */
export * as SearchResults from "./search/SearchResults.js"
/** @since 0.1.0 */
export * as SearchService from "./search/SearchService.js"
/** @since 0.1.0 */
export * as Statistics from "./search/Statistics.js"
/** @since 0.1.0 */
export * as Settings from "./Settings.js"
/** @since 0.1.0 */
export * as Services from "./Services.js"
/** @since 0.1.0 */
export * as Onboarding from "./onboarding/Onboarding.js"
/** @since 0.1.0 */
export * as Party from "./party/Party.js"
/** @since 0.1.0 */
export * as PartyService from "./party/PartyService.js"
/** @since 0.1.0 */
export * as Reference from "./reference/Reference.js"
/** @since 0.1.0 */
export * as ReferenceService from "./reference/ReferenceService.js"
/** @since 0.1.0 */
export * as Refund from "./refund/Refund.js"
/** @since 0.1.0 */
export * as RefundMachine from "./refund/RefundMachine.js"
/** @since 0.1.0 */
export * as RefundService from "./refund/RefundService.js"
/** @since 0.1.0 */
export * as Ref from "./Ref.js"
/** @since 0.1.0 */
export * as Shop from "./shop/Shop.js"
/** @since 0.1.0 */
export * as ShopService from "./shop/ShopService.js"
/** @since 0.1.0 */
export * as Ports from "./ports/index.js"
/** @since 0.1.0 */
export * as Webhook from "./webhook/Webhook.js"
/** @since 0.1.0 */
export * as WebhookKey from "./webhook/WebhookKey.js"
/** @since 0.1.0 */
export * as Notification from "./webhook/Notification.js"
/** @since 0.1.0 */
export * as NotificationMapping from "./webhook/NotificationMapping.js"
/** @since 0.1.0 */
export * as CustomerNotifications from "./webhook/CustomerNotifications.js"
/** @since 0.1.0 */
export * as RetrySchedule from "./webhook/RetrySchedule.js"
/** @since 0.1.0 */
export * as AddressPolicy from "./webhook/AddressPolicy.js"
/** @since 0.1.0 */
export * as Delivery from "./webhook/Delivery.js"
/** @since 0.1.0 */
export * as WebhookService from "./webhook/WebhookService.js"
/** @since 0.1.0 */
export * as WebhookFanOut from "./webhook/WebhookFanOut.js"
/** @since 0.1.0 */
export * as NotificationMapper from "./webhook/NotificationMapper.js"
/** @since 0.1.0 */
export * as NotificationMappers from "./webhook/NotificationMappers.js"
/** @since 0.1.0 */
export * as Page from "./Page.js"
/** @since 0.1.0 */
export * as Provider from "./identity/Provider.js"
/** @since 0.1.0 */
export * as Identity from "./identity/Identity.js"
/** @since 0.1.0 */
export * as Challenge from "./identity/Challenge.js"
/** @since 0.1.0 */
export * as ChallengeMachine from "./identity/ChallengeMachine.js"
/** @since 0.1.0 */
export * as IdentityService from "./identity/IdentityService.js"
/** @since 0.1.0 */
export * as Wallet from "./wallet/Wallet.js"
/** @since 0.1.0 */
export * as WalletAccount from "./wallet/WalletAccount.js"
/** @since 0.1.0 */
export * as WalletService from "./wallet/WalletService.js"
/** @since 0.1.0 */
export * as WalletWebhook from "./wallet-webhook/WalletWebhook.js"
/** @since 0.1.0 */
export * as WalletWebhookService from "./wallet-webhook/WalletWebhookService.js"
/** @since 0.1.0 */
export * as WalletNotifications from "./wallet-webhook/WalletNotifications.js"
/** @since 0.1.0 */
export * as WalletDeliveries from "./wallet-webhook/WalletDeliveries.js"
/** @since 0.1.0 */
export * as WithdrawalMapper from "./wallet-webhook/WithdrawalMapper.js"
/** @since 0.1.0 */
export * as DestinationMapper from "./wallet-webhook/DestinationMapper.js"
/** @since 0.1.0 */
export * as Movement from "./movement/Movement.js"
/** @since 0.1.0 */
export * as Deposit from "./deposit/Deposit.js"
/** @since 0.1.0 */
export * as DepositService from "./deposit/DepositService.js"
/** @since 0.1.0 */
export * as W2WTransfer from "./transfer/W2WTransfer.js"
/** @since 0.1.0 */
export * as W2WService from "./transfer/W2WService.js"
/** @since 0.1.0 */
export * as Destination from "./destination/Destination.js"
/** @since 0.1.0 */
export * as DestinationEvents from "./destination/DestinationEvents.js"
/** @since 0.1.0 */
export * as DestinationService from "./destination/DestinationService.js"
/** @since 0.1.0 */
export * as Withdrawal from "./withdrawal/Withdrawal.js"
/** @since 0.1.0 */
export * as WithdrawalEvents from "./withdrawal/WithdrawalEvents.js"
/** @since 0.1.0 */
export * as WithdrawalTerms from "./withdrawal/WithdrawalTerms.js"
/** @since 0.1.0 */
export * as WithdrawalService from "./withdrawal/WithdrawalService.js"
/** @since 0.1.0 */
export * as Report from "./report/Report.js"
/** @since 0.1.0 */
export * as ReportService from "./report/ReportService.js"
/** @since 0.1.0 */
export * as Quote from "./withdrawal/Quote.js"

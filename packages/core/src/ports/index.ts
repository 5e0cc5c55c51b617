/**
 * The ports: what the domain needs from the world. Adapters provide them.
 *
 * @since 0.1.0
 */
export * from "./ApiKeyRepository.js"
export * from "./ContractRepository.js"
export * from "./EventLog.js"
export * from "./Idempotency.js"
export * from "./Ids.js"
export * from "./Jwt.js"
export * from "./PartyRepository.js"
export * from "./ReferenceData.js"
export * from "./ShopRepository.js"
export * from "./Timers.js"
export * from "./Transactions.js"
export * from "./InvoiceRepository.js"
export * from "./InvoiceTemplateRepository.js"
export * from "./Acquirer.js"
export * from "./BankCardTokenRepository.js"
/** @since 0.1.0 */
export * from "./CardVault.js"
/** @since 0.1.0 */
export * from "./CurrencyCatalog.js"
export * from "./Ledger.js"
export * from "./PaymentResourceRepository.js"
export * from "./PaymentRepository.js"
export * from "./RefundRepository.js"
export * from "./ChargebackRepository.js"
export * from "./CustomerRepository.js"
export * from "./WebhookRepository.js"
export * from "./WebhookKeys.js"
export * from "./WebhookKeyRepository.js"
export * from "./WebhookUrlGuard.js"
export * from "./WebhookDeliveries.js"
export * from "./DeliveryQueue.js"
export * from "./Outbox.js"
export * from "./InvoiceHistories.js"
export * from "./SearchRepository.js"
export * from "./SearchTokens.js"
export * from "./IdentityRepository.js"
export * from "./WalletRepository.js"
export * from "./DepositRepository.js"
export * from "./ReportRepository.js"
export * from "./W2WTransferRepository.js"
export * from "./WalletGrantRepository.js"
export * from "./WalletWebhookRepository.js"
/** @since 0.1.0 */
export * from "./PayoutProvider.js"
export * from "./ProviderTermsRepository.js"
/** @since 0.1.0 */
export * from "./DestinationRepository.js"
/** @since 0.1.0 */
export * from "./WithdrawalRepository.js"

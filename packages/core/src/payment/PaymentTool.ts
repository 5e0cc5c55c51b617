/**
 * Payment tools as the payer's device sends them to `createPaymentResource`, their public
 * details, and the client info. Both revisions' variants are accepted.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Metadata } from "../Time.js"

/** @since 0.1.0 @category schemas */
export const CardData = Schema.Struct({
  paymentToolType: Schema.Literal("CardData"),
  cardNumber: Schema.String.pipe(Schema.pattern(/^\d{12,19}$/, { message: () => "Expected 12 to 19 digits" })),
  expDate: Schema.String.pipe(Schema.pattern(/^\d{2}\/(\d{2}|\d{4})$/, { message: () => "Expected MM/YY or MM/YYYY" })),
  cvv: Schema.optional(Schema.String.pipe(Schema.pattern(/^\d{3,4}$/, { message: () => "Expected 3 or 4 digits" }))),
  cardHolder: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)))
})

/** @since 0.1.0 @category schemas */
export const PaymentTerminalData = Schema.Struct({
  paymentToolType: Schema.Literal("PaymentTerminalData"),
  provider: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  metadata: Schema.optional(Metadata)
})

/** The newer revision's wallet, and the older revision's QIWI wallet. @since 0.1.0 @category schemas */
export const DigitalWalletData = Schema.Union(
  Schema.Struct({
    paymentToolType: Schema.Literal("DigitalWalletData"),
    id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    provider: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    token: Schema.optional(Schema.String.pipe(Schema.maxLength(4000)))
  }),
  Schema.Struct({
    paymentToolType: Schema.Literal("DigitalWalletData"),
    digitalWalletType: Schema.Literal("DigitalWalletQIWI"),
    phoneNumber: Schema.String.pipe(Schema.pattern(/^\+\d{4,15}$/))
  })
)

/** @since 0.1.0 @category schemas */
export const TokenizedCardData = Schema.Struct({
  paymentToolType: Schema.Literal("TokenizedCardData"),
  provider: Schema.Literal("ApplePay", "GooglePay", "SamsungPay", "YandexPay")
}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** @since 0.1.0 @category schemas */
export const CryptoWalletData = Schema.Struct({
  paymentToolType: Schema.Literal("CryptoWalletData"),
  cryptoCurrency: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))
})

/** @since 0.1.0 @category schemas */
export const MobileCommerceData = Schema.Struct({
  paymentToolType: Schema.Literal("MobileCommerceData"),
  mobilePhone: Schema.Struct({
    cc: Schema.String.pipe(Schema.pattern(/^\d{1,3}$/)),
    ctn: Schema.String.pipe(Schema.pattern(/^\d{10,12}$/))
  })
})

/** @since 0.1.0 @category schemas */
export const PaymentTool = Schema.Union(
  CardData,
  PaymentTerminalData,
  DigitalWalletData,
  TokenizedCardData,
  CryptoWalletData,
  MobileCommerceData
)
/** @since 0.1.0 */
export type PaymentTool = typeof PaymentTool.Type

/** @since 0.1.0 @category schemas */
export const ClientInfo = Schema.Struct({
  fingerprint: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)),
  ip: Schema.optional(Schema.String.pipe(Schema.maxLength(45))),
  url: Schema.optional(Schema.String.pipe(Schema.maxLength(1000)))
})
/** @since 0.1.0 */
export type ClientInfo = typeof ClientInfo.Type

/** @since 0.1.0 @category schemas */
export const PaymentResourceParams = Schema.Struct({
  paymentTool: PaymentTool,
  clientInfo: ClientInfo
}).annotations({ identifier: "PaymentResourceParams" })
/** @since 0.1.0 */
export type PaymentResourceParams = typeof PaymentResourceParams.Type

/**
 * What a payment tool shows: for cards only the BIN, the last digits, a mask and the payment
 * system (both revisions' field names).
 *
 * @since 0.1.0 @category schemas
 */
export const PaymentToolDetails = Schema.Union(
  Schema.Struct({
    detailsType: Schema.Literal("PaymentToolDetailsBankCard"),
    cardNumberMask: Schema.String,
    first6: Schema.optional(Schema.String),
    last4: Schema.optional(Schema.String),
    bin: Schema.optional(Schema.String),
    lastDigits: Schema.optional(Schema.String),
    paymentSystem: Schema.String,
    tokenProvider: Schema.optional(Schema.String),
    tokenizationMethod: Schema.optional(Schema.Literal("dpan", "none"))
  }),
  Schema.Struct({ detailsType: Schema.Literal("PaymentToolDetailsPaymentTerminal"), provider: Schema.String }),
  Schema.Struct({
    detailsType: Schema.Literal("PaymentToolDetailsDigitalWallet"),
    provider: Schema.String,
    digitalWalletDetailsType: Schema.optional(Schema.Literal("DigitalWalletDetailsQIWI")),
    phoneNumberMask: Schema.optional(Schema.String)
  }),
  Schema.Struct({ detailsType: Schema.Literal("PaymentToolDetailsCryptoWallet"), cryptoCurrency: Schema.String }),
  Schema.Struct({ detailsType: Schema.Literal("PaymentToolDetailsMobileCommerce"), phoneNumber: Schema.String })
).annotations({ identifier: "PaymentToolDetails" })
/** @since 0.1.0 */
export type PaymentToolDetails = typeof PaymentToolDetails.Type

/** @since 0.1.0 @category schemas */
export const PaymentResourceResult = Schema.Struct({
  paymentToolToken: Schema.String,
  paymentSession: Schema.String,
  resourceToken: Schema.optional(Schema.String),
  paymentToolDetails: PaymentToolDetails,
  clientInfo: ClientInfo,
  validUntil: Schema.DateFromString
}).annotations({ identifier: "PaymentResourceResult" })
/** @since 0.1.0 */
export type PaymentResourceResult = typeof PaymentResourceResult.Type

/**
 * A payment tool as Kassa keeps it behind a token: for cards the vault token, never the number.
 *
 * @since 0.1.0 @category models
 */
export type StoredTool =
  | {
    readonly type: "BankCard"
    readonly vaultToken: string
    readonly paymentSystem: string
    readonly expMonth: number
    readonly expYear: number
  }
  | { readonly type: "PaymentTerminal"; readonly provider: string }
  | { readonly type: "DigitalWallet"; readonly provider: string; readonly id: string }
  | { readonly type: "CryptoWallet"; readonly cryptoCurrency: string }
  | { readonly type: "MobileCommerce"; readonly phone: string }

/** The payment method a stored tool belongs to. @since 0.1.0 */
export const methodOf = (tool: StoredTool): "BankCard" | "PaymentTerminal" | "DigitalWallet" | "CryptoWallet" | "MobileCommerce" =>
  tool.type

/**
 * The method of a stored tool with the term that decides whether a contract enables it (payment
 * system, provider, currency), for messages: `BankCard (visa)`. Never the card or phone number.
 *
 * @since 0.1.0
 */
export const describeMethod = (tool: StoredTool): string => {
  switch (tool.type) {
    case "BankCard":
      return `BankCard (${tool.paymentSystem})`
    case "PaymentTerminal":
    case "DigitalWallet":
      return `${tool.type} (${tool.provider})`
    case "CryptoWallet":
      return `CryptoWallet (${tool.cryptoCurrency})`
    case "MobileCommerce":
      return "MobileCommerce"
  }
}

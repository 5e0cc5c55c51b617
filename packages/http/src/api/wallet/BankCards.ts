/**
 * Card tokens for withdrawal destinations (the payres interface): a card in, a token out; the
 * number stays in the vault.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { InvalidBankCard, NotFound } from "./Errors.js"
import { WalletAuthentication } from "./Security.js"

/** `storeBankCard`'s body: only `cardNumber` is required. @since 0.1.0 @category schemas */
export const BankCardParams = Schema.Struct({
  type: Schema.optional(Schema.Literal("BankCard")),
  cardNumber: Schema.String.pipe(Schema.pattern(/^\d{12,19}$/, { message: () => "Expected 12 to 19 digits" })),
  expDate: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^\d{2}\/(\d{2}|\d{4})$/, { message: () => "Expected MM/YY or MM/YYYY" }))
  ),
  cardHolder: Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1),
      Schema.maxLength(100),
      Schema.pattern(/^[\p{L}\s\p{P}]+$/u, { message: () => "Expected letters, spaces and punctuation" })
    )
  ),
  cvv: Schema.optional(Schema.String.pipe(Schema.pattern(/^\d{3,4}$/, { message: () => "Expected 3 or 4 digits" })))
})

/** What a token stands for: never the number. @since 0.1.0 @category schemas */
export const SecuredBankCard = Schema.Struct({
  token: Schema.String,
  bin: Schema.optional(Schema.String),
  lastDigits: Schema.optional(Schema.String),
  paymentSystem: Schema.optional(Schema.String),
  validUntil: Schema.optional(Time.DateTime)
}).annotations({ identifier: "SecuredBankCard" })
/** @since 0.1.0 */
export type SecuredBankCard = typeof SecuredBankCard.Type

/** `storeBankCard`'s answer: `authData` when a CVV was given. @since 0.1.0 @category schemas */
export const StoreBankCardResponse = Schema.Struct({
  ...SecuredBankCard.fields,
  authData: Schema.optional(Schema.String)
}).annotations({ identifier: "StoreBankCardResponse" })
/** @since 0.1.0 */
export type StoreBankCardResponse = typeof StoreBankCardResponse.Type

/** @since 0.1.0 @category groups */
export class BankCardsGroup extends HttpApiGroup.make("WithdrawalResources")
  .add(
    HttpApiEndpoint.post("storeBankCard", "/bank-cards")
      .setPayload(BankCardParams)
      .addSuccess(StoreBankCardResponse, { status: 201 })
      .addError(InvalidBankCard)
  )
  .add(
    HttpApiEndpoint.get("getBankCard", "/bank-cards/:token")
      .setPath(Schema.Struct({ token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)) }))
      .addSuccess(SecuredBankCard)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Withdrawal Resources")
{}

/**
 * Tokenization (`createPaymentResource`): a payment tool in, a short-lived token and session
 * out. Card numbers go to the vault, the CVV to a vault session that authorisation erases;
 * what Kassa keeps behind the token is the vault token, the expiry and the payment system.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { BusinessError } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import * as Card from "../payment/Card.js"
import type {
  PaymentResourceParams,
  PaymentResourceResult,
  PaymentToolDetails,
  StoredTool
} from "../payment/PaymentTool.js"
import { CardVault } from "../ports/CardVault.js"
import { Ids } from "../ports/Ids.js"
import { type PaymentResourceRecord, PaymentResourceRepository } from "../ports/PaymentResourceRepository.js"
import { Transactions } from "../ports/Transactions.js"

/** A payment tool token and its session live 64 minutes (the reference platform's default). @since 0.1.0 */
export const TOKEN_LIFETIME_MS = 64 * 60_000

const invalid = (message: string) => Effect.fail(BusinessError.of("invalidRequest", message))

const maskPhone = (digits: string): string =>
  `+${digits[0]}${"*".repeat(Math.min(10, Math.max(1, digits.length - 5)))}${digits.slice(-4)}`

/** What builds the service: `PaymentResources.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const vault = yield* CardVault
  const resources = yield* PaymentResourceRepository
  const ids = yield* Ids
  const tx = yield* Transactions

  const tool = Traced.fn("PaymentResources.tool")(function*(params: PaymentResourceParams, now: Date, validUntil: Date) {
    const t = params.paymentTool
    switch (t.paymentToolType) {
      case "CardData": {
        const checked = Card.validate(t, now)
        if (Either.isLeft(checked)) return yield* invalid(`paymentTool.${checked.left}`)
        const { card, paymentSystem } = checked.right
        const { card: stored, session: vaultSession } = t.cvv === undefined
          ? { card: yield* vault.putCard(card), session: undefined }
          : yield* vault.putCardAndSession(card, { cvv: t.cvv }, validUntil)
        const masked = Card.mask(card.cardNumber)
        const details: PaymentToolDetails = {
          detailsType: "PaymentToolDetailsBankCard",
          cardNumberMask: masked.cardNumberMask,
          first6: masked.bin,
          last4: masked.last4,
          bin: masked.bin,
          lastDigits: masked.last4,
          paymentSystem
        }
        const storedTool: StoredTool = {
          type: "BankCard",
          vaultToken: stored.token,
          paymentSystem,
          expMonth: card.expMonth,
          expYear: card.expYear
        }
        return { tool: storedTool, details, vaultSession }
      }
      case "PaymentTerminalData":
        return {
          tool: { type: "PaymentTerminal", provider: t.provider } as StoredTool,
          details: { detailsType: "PaymentToolDetailsPaymentTerminal", provider: t.provider } as PaymentToolDetails,
          vaultSession: undefined
        }
      case "DigitalWalletData": {
        if ("digitalWalletType" in t) {
          const digits = t.phoneNumber.slice(1)
          return {
            tool: { type: "DigitalWallet", provider: "qiwi", id: t.phoneNumber } as StoredTool,
            details: {
              detailsType: "PaymentToolDetailsDigitalWallet",
              provider: "qiwi",
              digitalWalletDetailsType: "DigitalWalletDetailsQIWI",
              phoneNumberMask: maskPhone(digits)
            } as PaymentToolDetails,
            vaultSession: undefined
          }
        }
        return {
          tool: { type: "DigitalWallet", provider: t.provider, id: t.id } as StoredTool,
          details: { detailsType: "PaymentToolDetailsDigitalWallet", provider: t.provider } as PaymentToolDetails,
          vaultSession: undefined
        }
      }
      case "CryptoWalletData":
        return {
          tool: { type: "CryptoWallet", cryptoCurrency: t.cryptoCurrency } as StoredTool,
          details: { detailsType: "PaymentToolDetailsCryptoWallet", cryptoCurrency: t.cryptoCurrency } as PaymentToolDetails,
          vaultSession: undefined
        }
      case "MobileCommerceData": {
        const digits = t.mobilePhone.cc + t.mobilePhone.ctn
        return {
          tool: { type: "MobileCommerce", phone: `+${digits}` } as StoredTool,
          details: { detailsType: "PaymentToolDetailsMobileCommerce", phoneNumber: maskPhone(digits) } as PaymentToolDetails,
          vaultSession: undefined
        }
      }
      case "TokenizedCardData":
        return yield* invalid(
          `paymentTool: ${t.provider} tokens cannot be decrypted: no wallet provider keys are configured`
        )
    }
  })

  const create = Traced.fn("PaymentResources.create")(function*(partyID: string, params: PaymentResourceParams) {
    const now = new Date(yield* Clock.currentTimeMillis)
    const validUntil = new Date(now.getTime() + TOKEN_LIFETIME_MS)
    const token = `pt.${yield* ids.next}${yield* ids.next}`
    const session = `ps.${yield* ids.next}${yield* ids.next}`
    // The vault session and the resource naming it go as one write.
    const record = yield* tx.withTransaction(Effect.gen(function*() {
      const made = yield* tool(params, now, validUntil)
      const record: PaymentResourceRecord = {
        token,
        session,
        partyID,
        tool: made.tool,
        details: made.details,
        clientInfo: params.clientInfo,
        vaultSession: made.vaultSession,
        createdAt: now,
        validUntil
      }
      yield* resources.insert(record)
      return record
    }))
    const result: PaymentResourceResult = {
      paymentToolToken: record.token,
      paymentSession: record.session,
      paymentToolDetails: record.details,
      clientInfo: record.clientInfo,
      validUntil
    }
    return result
  })

  /**
   * The resource a payer names: `invalidPaymentToolToken` for an unknown, expired or other
   * party's token, `invalidPaymentSession` for a session that is not the token's. `known`: the
   * token's resource as the caller read it already (`PaymentResourceRepository.findWithInvoice`).
   */
  const resolve = Traced.fn("PaymentResources.resolve")(
    function*(partyID: string, token: string | undefined, session: string | undefined, known?: Option.Option<PaymentResourceRecord>) {
      if (token === undefined) return yield* BusinessError.of("invalidPaymentToolToken", "paymentToolToken: is missing")
      const found = known ?? (yield* resources.findByToken(token))
      const now = yield* Clock.currentTimeMillis
      if (Option.isNone(found) || found.value.partyID !== partyID) {
        return yield* BusinessError.of("invalidPaymentToolToken", "paymentToolToken: unknown token")
      }
      if (found.value.validUntil.getTime() <= now) {
        return yield* BusinessError.of("invalidPaymentToolToken", "paymentToolToken: the token has expired")
      }
      if (session === undefined || session !== found.value.session) {
        return yield* BusinessError.of("invalidPaymentSession", "paymentSession: not the session of this token")
      }
      return found.value
    }
  )

  return { create, resolve } as const
})

/** @since 0.1.0 @category services */
export class PaymentResources extends Effect.Service<PaymentResources>()("kassa/PaymentResources", {
  effect: make
}) {}

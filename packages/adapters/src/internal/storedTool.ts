/** @internal A payment tool as stored in a JSON column: for cards the vault token, never the number. */
import * as Schema from "effect/Schema"

/** @internal The schema of core's `StoredTool`. */
export const StoredTool = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("BankCard"),
    vaultToken: Schema.String,
    paymentSystem: Schema.String,
    expMonth: Schema.Number,
    expYear: Schema.Number
  }),
  Schema.Struct({ type: Schema.Literal("PaymentTerminal"), provider: Schema.String }),
  Schema.Struct({ type: Schema.Literal("DigitalWallet"), provider: Schema.String, id: Schema.String }),
  Schema.Struct({ type: Schema.Literal("CryptoWallet"), cryptoCurrency: Schema.String }),
  Schema.Struct({ type: Schema.Literal("MobileCommerce"), phone: Schema.String })
)

/** @internal A payment's tool: a stored tool, or the token of the recurrent payment it repeats. */
export const PaymentTool = Schema.Union(
  StoredTool,
  Schema.Struct({
    type: Schema.Literal("Recurrent"),
    recurrentToken: Schema.String,
    paymentSystem: Schema.optional(Schema.String)
  })
)

/**
 * E-mail addresses as the specification's `format: email` checks them: the HTML standard's
 * "valid e-mail address" (local part, `@`, host name labels), which JSON Schema validators such
 * as ajv-formats apply to this format.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const email = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i

/** An e-mail address of at most 100 characters. @since 0.1.0 @category schemas */
export const Email = Schema.String.pipe(
  Schema.maxLength(100),
  Schema.pattern(email, { message: () => "Expected an e-mail address" })
).annotations({ jsonSchema: { type: "string", format: "email", maxLength: 100 } })

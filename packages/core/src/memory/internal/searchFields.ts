/**
 * @internal
 * The payment fields searches filter and group on, read from a payment as migration
 * `0010_search` derives its `search_*` columns from the stored JSON.
 */
import type { PaymentRecord } from "../../payment/Payment.js"

/** @internal */
export interface SearchFields {
  readonly flow: string | undefined
  readonly method: string | undefined
  readonly provider: string | undefined
  readonly tokenProvider: string | undefined
  readonly paymentSystem: string | undefined
  readonly email: string | undefined
  readonly country: string | undefined
  readonly ip: string | undefined
  readonly fingerprint: string | undefined
  readonly customer: string | undefined
  readonly rrn: string | undefined
  readonly approvalCode: string | undefined
  readonly bin: string | undefined
  readonly last4: string | undefined
  /** Who paid: the device, else the customer, else the e-mail. */
  readonly payer: string | undefined
}

const at = (value: unknown, path: ReadonlyArray<string>): string | undefined => {
  let v = value
  for (const step of path) {
    if (v === null || typeof v !== "object") return undefined
    v = (v as Record<string, unknown>)[step]
  }
  return v === null || v === undefined || typeof v === "object" ? undefined : String(v)
}

const lower = (s: string | undefined) => s?.toLowerCase()

/** @internal */
export const searchFields = (p: PaymentRecord): SearchFields => {
  const details = ["payer", "paymentToolDetails"]
  const email = at(p, ["payer", "contactInfo", "email"])
  return {
    flow: at(p.flow, ["type"]),
    method: at(p, [...details, "detailsType"]),
    provider: at(p, [...details, "provider"]),
    tokenProvider: lower(at(p, [...details, "tokenProvider"])),
    paymentSystem: lower(at(p, [...details, "paymentSystem"])),
    email: lower(email),
    country: at(p, ["payer", "contactInfo", "country"]),
    ip: at(p, ["payer", "clientInfo", "ip"]),
    fingerprint: at(p, ["payer", "clientInfo", "fingerprint"]),
    customer: at(p, ["payer", "customerID"]),
    rrn: at(p, ["transactionInfo", "rrn"]),
    approvalCode: at(p, ["transactionInfo", "approvalCode"]),
    bin: at(p, [...details, "first6"]) ?? at(p, [...details, "bin"]),
    last4: at(p, [...details, "last4"]) ?? at(p, [...details, "lastDigits"]),
    payer: at(p, ["payer", "clientInfo", "fingerprint"]) ?? at(p, ["payer", "customerID"]) ?? lower(email)
  }
}

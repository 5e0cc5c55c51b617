/**
 * API keys and operator tokens: issue, list, revoke.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import { ApiKeyRepository } from "../ports/ApiKeyRepository.js"
import { Ids } from "../ports/Ids.js"
import { Jwt } from "../ports/Jwt.js"
import { Transactions } from "../ports/Transactions.js"

/** What builds the service: `ApiKeyService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const keys = yield* ApiKeyRepository
  const tokens = yield* Jwt
  const ids = yield* Ids
  const tx = yield* Transactions

  const now = Clock.currentTimeMillis.pipe(Effect.map((ms) => new Date(ms)))

  /** Issues a new API key for the party: a signed JWT whose `jti` is registered. */
  const issue = Traced.fn("ApiKeyService.issue")(function*(partyID: string) {
    const id = yield* ids.next
    // A transaction of its own: a request's replay key is claimed with it.
    yield* tx.withTransaction(keys.insert({ id, partyID, kind: "api-key", createdAt: yield* now, revokedAt: undefined }))
    const token = yield* tokens.issue({ kind: "api-key", sub: partyID, jti: id })
    return { keyID: id, token } as const
  })

  /** Issues an operator token, for the operator API. */
  const issueOperator = Traced.fn("ApiKeyService.issueOperator")(function*() {
    const id = yield* ids.next
    yield* keys.insert({ id, partyID: "operator", kind: "operator", createdAt: yield* now, revokedAt: undefined })
    const token = yield* tokens.issue({ kind: "operator", sub: "operator", jti: id })
    return { keyID: id, token } as const
  })

  const revoke = Traced.fn("ApiKeyService.revoke")(function*(partyID: string, keyID: string) {
    if (!(yield* keys.revoke(partyID, keyID, yield* now))) return yield* NotFound.of("API key", keyID)
  })

  const list = Traced.fn("ApiKeyService.list")(function*(partyID: string) {
    return yield* keys.listByParty(partyID)
  })

  return { issue, issueOperator, revoke, list } as const
})

/** @since 0.1.0 @category services */
export class ApiKeyService extends Effect.Service<ApiKeyService>()("kassa/ApiKeyService", {
  effect: make
}) {}

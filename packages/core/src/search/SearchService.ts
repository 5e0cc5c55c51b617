/**
 * Use cases of search and analytics: find a shop's invoices, payments, refunds (and payouts,
 * which Kassa does not make) in a time window, and the payment statistics of the older
 * revision (`PaymentStats`). Only the caller's party's shops: another party's shop is not found.
 *
 * Paging, both forms on one operation, results ordered by creation time then ids, newest first:
 * - `continuationToken`: keyset paging, stable under concurrent inserts (no row twice, none
 *   skipped); the token is bound to the search's conditions;
 * - `offset`: answers `totalCount` too, up to `offset + limit` = 100 000.
 * Every page carries a `continuationToken` when more rows remain.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { BusinessError } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import * as Traced from "../internal/traced.js"
import { type Invoice, type InvoiceRecord, toInvoice } from "../invoice/Invoice.js"
import {
  type InvoiceConditions,
  type Keyset,
  type Page as StorePage,
  type PaymentConditions,
  type Query,
  type RefundConditions,
  type Scope,
  SearchRepository
} from "../ports/SearchRepository.js"
import { SearchTokens } from "../ports/SearchTokens.js"
import { ShopService } from "../shop/ShopService.js"
import * as Continuation from "./Continuation.js"
import * as PaymentStats from "./PaymentStats.js"
import type { InvoiceSearchParams, PaymentSearchParams, PayoutSearchParams, RefundSearchParams } from "./SearchParams.js"
import * as SearchQuery from "./SearchQuery.js"
import {
  type Page,
  type PaymentSearchRecord,
  type PaymentSearchResult,
  type Payout,
  type RefundSearchRecord,
  type RefundSearchResult,
  toPaymentSearchResult
} from "./SearchResults.js"

/** @since 0.1.0 */
export { maxSegments } from "./PaymentStats.js"

/** @since 0.1.0 @category models */
export interface SearchOptions {
  /** Answer `totalCount` even without `offset` (the older revision always does). */
  readonly totalCount?: boolean | undefined
}

const orFail = <A>(either: Either.Either<A, BusinessError>) =>
  Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right)

/** What builds the service: `SearchService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const repository = yield* SearchRepository
  const signer = yield* SearchTokens
  const shops = yield* ShopService

  const scopeOf = (partyID: string, shopID: string) =>
    Effect.as(shops.get(PartyID.make(partyID), ShopID.make(shopID)), { partyID, shopID } satisfies Scope)

  /** One page of a search of `kind`, keyed by creation time and `ids`. */
  const search = <C, R, A>(spec: {
    readonly kind: string
    /** How many ids a position has besides the creation time. */
    readonly idCount: number
    readonly ids: (row: R) => ReadonlyArray<string>
    readonly createdAt: (row: R) => Date
    readonly fetch: (query: Query<C>, page: StorePage) => Effect.Effect<ReadonlyArray<R>>
    readonly count: (query: Query<C>) => Effect.Effect<number>
    readonly toResult: (row: R) => A
  }) =>
  (
    partyID: string,
    shopID: string,
    params: {
      readonly fromTime: Date
      readonly toTime: Date
      readonly limit: number
      readonly offset?: number | undefined
      readonly continuationToken?: string | undefined
    },
    conditions: C,
    options: SearchOptions = {}
  ) =>
    Effect.gen(function*() {
      const scope = yield* scopeOf(partyID, shopID)
      const w = yield* orFail(SearchQuery.window(params.fromTime, params.toTime))
      yield* orFail(SearchQuery.paging(params))
      const query: Query<C> = { scope, window: w, conditions }
      const bound = Continuation.canonical(SearchQuery.binding(scope, w, conditions))
      let after = Option.none<Keyset>()
      if (params.continuationToken !== undefined) {
        const decoded = Continuation.decode(
          signer,
          spec.kind,
          bound,
          spec.idCount,
          params.continuationToken
        )
        if (Either.isLeft(decoded)) {
          return yield* BusinessError.of("invalidRequest", `continuationToken: ${decoded.left}`)
        }
        after = Option.some(decoded.right)
      }
      const wantTotal = options.totalCount === true || params.offset !== undefined
      const [rows, totalCount] = yield* Effect.all([
        spec.fetch(query, { limit: params.limit + 1, offset: params.offset ?? 0, after }),
        wantTotal ? Effect.map(spec.count(query), Option.some) : Effect.succeed(Option.none<number>())
      ], { concurrency: "unbounded" })
      const result = rows.slice(0, params.limit)
      const last = result[result.length - 1]
      const page: Page<A> = {
        result: result.map(spec.toResult),
        ...(Option.isSome(totalCount) ? { totalCount: totalCount.value } : {}),
        ...(rows.length > params.limit && last !== undefined
          ? {
            continuationToken: Continuation.encode(signer, spec.kind, bound, {
              createdAt: spec.createdAt(last).getTime(),
              ids: spec.ids(last)
            })
          }
          : {})
      }
      return page
    })

  const invoices = search<InvoiceConditions, InvoiceRecord, Invoice>({
    kind: "invoices",
    idCount: 1,
    ids: (r) => [r.id],
    createdAt: (r) => r.createdAt,
    fetch: repository.invoices,
    count: repository.countInvoices,
    toResult: toInvoice
  })
  const payments = search<PaymentConditions, PaymentSearchRecord, PaymentSearchResult>({
    kind: "payments",
    idCount: 2,
    ids: (r) => [r.invoiceID, r.id],
    createdAt: (r) => r.createdAt,
    fetch: repository.payments,
    count: repository.countPayments,
    toResult: toPaymentSearchResult
  })
  const refunds = search<RefundConditions, RefundSearchRecord, RefundSearchResult>({
    kind: "refunds",
    idCount: 3,
    ids: (r) => [r.invoiceID, r.paymentID, r.id],
    createdAt: (r) => r.createdAt,
    fetch: repository.refunds,
    count: repository.countRefunds,
    toResult: (r) => r
  })

  /** Invoices of a shop, filtered by their own fields and those of their payments. */
  const searchInvoices = Traced.fn("SearchService.searchInvoices")(
    function*(partyID: string, shopID: string, params: InvoiceSearchParams, options?: SearchOptions) {
      return yield* invoices(partyID, shopID, params, SearchQuery.invoiceConditions(params), options)
    }
  )

  /** Payments of a shop. */
  const searchPayments = Traced.fn("SearchService.searchPayments")(
    function*(partyID: string, shopID: string, params: PaymentSearchParams, options?: SearchOptions) {
      return yield* payments(partyID, shopID, params, SearchQuery.paymentConditions(params) ?? {}, options)
    }
  )

  /** Refunds of a shop: always with `totalCount`. */
  const searchRefunds = Traced.fn("SearchService.searchRefunds")(
    function*(partyID: string, shopID: string, params: RefundSearchParams) {
      return yield* refunds(partyID, shopID, params, SearchQuery.refundConditions(params), { totalCount: true })
    }
  )

  /** Payouts of a shop: Kassa makes none, so none is found (the parameters are still checked). */
  const searchPayouts = Traced.fn("SearchService.searchPayouts")(
    function*(partyID: string, shopID: string, params: PayoutSearchParams) {
      yield* scopeOf(partyID, shopID)
      yield* orFail(SearchQuery.window(params.fromTime, params.toTime))
      yield* orFail(SearchQuery.paging(params))
      const page: Page<Payout> = { totalCount: 0, result: [] }
      return page
    }
  )

  const stats = PaymentStats.make(repository, scopeOf)

  return {
    searchInvoices,
    searchPayments,
    searchRefunds,
    searchPayouts,
    ...stats
  } as const
})

/** @since 0.1.0 @category services */
export class SearchService extends Effect.Service<SearchService>()("kassa/SearchService", {
  effect: make,
  dependencies: [ShopService.Default]
}) {}

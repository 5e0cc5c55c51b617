/**
 * Pages of a list read in creation order, and the continuation token that names where the next
 * page starts (the last item's creation time and id).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"

/** Where a page starts: after this item. @since 0.1.0 @category models */
export interface Cursor {
  readonly createdAt: Date
  readonly id: string
}

/** @since 0.1.0 @category models */
export interface PageRequest {
  readonly limit: number
  readonly after?: Cursor | undefined
}

/** @since 0.1.0 @category models */
export interface Page<A> {
  readonly result: ReadonlyArray<A>
  /** Present when more may follow. */
  readonly continuationToken?: string | undefined
}

/** @since 0.1.0 */
export const encodeCursor = (c: Cursor): string =>
  Encoding.encodeBase64Url(`${c.createdAt.getTime()}.${c.id}`)

/** A token `encodeCursor` wrote, or none. @since 0.1.0 */
export const decodeCursor = (token: string): Option.Option<Cursor> => {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return Option.none()
  const decoded = Encoding.decodeBase64UrlString(token)
  if (Either.isLeft(decoded)) return Option.none()
  const text = decoded.right
  const dot = text.indexOf(".")
  const ms = Number(text.slice(0, dot))
  const id = text.slice(dot + 1)
  return dot > 0 && Number.isSafeInteger(ms) && id.length > 0 ? Option.some({ createdAt: new Date(ms), id }) : Option.none()
}

/** Whether `item` comes after `cursor` in creation order. @since 0.1.0 */
export const isAfter = (item: Cursor, cursor: Cursor | undefined): boolean =>
  cursor === undefined || item.createdAt.getTime() > cursor.createdAt.getTime() ||
  (item.createdAt.getTime() === cursor.createdAt.getTime() && item.id > cursor.id)

/** The page of `items` (read with one more than the limit). @since 0.1.0 */
export const of = <A extends Cursor, B>(items: ReadonlyArray<A>, limit: number, show: (a: A) => B): Page<B> => {
  const result = items.slice(0, limit)
  const last = result[result.length - 1]
  return items.length > limit && last !== undefined
    ? { result: result.map(show), continuationToken: encodeCursor(last) }
    : { result: result.map(show) }
}

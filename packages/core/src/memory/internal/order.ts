/**
 * @internal
 * The orders the SQL adapters read lists in, for the memory adapters to answer alike.
 */

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** @internal `ORDER BY created_at, id`. */
export const byCreatedAt = <A extends { readonly createdAt: Date; readonly id: string }>(rows: ReadonlyArray<A>): Array<A> =>
  [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.id, b.id))

/** @internal Ids that are numbers within their parent ("1", "2", …), in numeric order. */
export const byNumber = <A extends { readonly id: string }>(rows: ReadonlyArray<A>): Array<A> =>
  [...rows].sort((a, b) => Number(a.id) - Number(b.id) || compareText(a.id, b.id))

/** @internal */
export { compareText }

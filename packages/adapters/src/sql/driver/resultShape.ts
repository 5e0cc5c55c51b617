/**
 * @internal
 * Whether a statement's text alone fixes its result's columns. `SELECT *` and `RETURNING *`
 * (with or without a table's name) answer whatever columns the table has when they run, which
 * a migration (another process's too) may change under a statement prepared before it.
 */
const STAR = /(?:\bSELECT|\bRETURNING|,)\s*(?:[A-Za-z_][A-Za-z0-9_]*\.)?\*/i

/** @internal */
export const columnsFixedByText = (text: string): boolean => !STAR.test(text)

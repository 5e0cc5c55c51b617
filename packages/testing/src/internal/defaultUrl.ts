/** @internal The test PostgreSQL server tried when none is named: the machine's, as user `postgres`. */
export const defaultUrl = "postgres://postgres@127.0.0.1:5432/postgres"

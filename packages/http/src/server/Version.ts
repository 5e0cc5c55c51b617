/**
 * The running version: `@kassa/http`'s, set into the bundle when it is built (`define` in
 * `tsup.bundle.config.ts`); "development" when the sources run unbundled.
 *
 * @since 0.1.0
 */
declare const KASSA_VERSION: string | undefined

/** @since 0.1.0 */
export const version: string = typeof KASSA_VERSION === "string" ? KASSA_VERSION : "development"

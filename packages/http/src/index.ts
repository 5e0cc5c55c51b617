/**
 * @kassa/http: Kassa's HTTP server. It serves `Kassa.layer` of `@kassa/adapters`; the wire
 * contract alone, without server code, is `@kassa/http/api`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Config from "./server/Config.js"
/** @since 0.1.0 */
export * as Http from "./server/Http.js"
/** @since 0.1.0 */
export * as InProcess from "./InProcess.js"
/** @since 0.1.0 */
export * as KassaApi from "./api/KassaApi.js"

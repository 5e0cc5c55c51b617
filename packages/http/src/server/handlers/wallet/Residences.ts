/**
 * Handlers of the wallet interface's residences.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { WalletReference } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Residences", (handlers) =>
  Effect.map(WalletReference.WalletReference, (reference) =>
    handlers.handle("getResidence", ({ path }) => reference.residence(path.residence))))

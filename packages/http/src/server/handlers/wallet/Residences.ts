/**
 * Handlers of the wallet interface's residences.
 *
 * @since 0.1.0
 */
import { WalletReference } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import * as Group from "../Group.js"

/** The Residences group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.map(WalletReference.WalletReference, (reference) =>
  Group.handlers(KassaApi, "Residences")({
    getResidence: ({ path }) => reference.residence(path.residence)
  }))

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Residences", handlers)

/**
 * Branded identifiers. Identifier strings are 1..40 characters (the interface's Limits table).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const Id40 = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

/** @since 0.1.0 @category models */
export const PartyID = Id40.pipe(Schema.brand("PartyID"))
/** @since 0.1.0 */
export type PartyID = typeof PartyID.Type

/** @since 0.1.0 @category models */
export const ShopID = Id40.pipe(Schema.brand("ShopID"))
/** @since 0.1.0 */
export type ShopID = typeof ShopID.Type

/** @since 0.1.0 @category models */
export const ContractID = Id40.pipe(Schema.brand("ContractID"))
/** @since 0.1.0 */
export type ContractID = typeof ContractID.Type

/** @since 0.1.0 @category models */
export const ExternalID = Id40
/** @since 0.1.0 */
export type ExternalID = typeof ExternalID.Type

/** A generic 1..40 identifier as the interface's paths and filters take them. */
export const Identifier = Id40

/**
 * Settings of a running Kassa that the domain needs.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** @since 0.1.0 @category models */
export interface Settings {
  /** Where payers reach this Kassa (3-D Secure pages). */
  readonly publicUrl: string
  /**
   * How long background work may stall before a durable timer resumes it: the first retry's wait,
   * doubling after each further attempt (see `Recovery`).
   */
  readonly recoveryDelayMs: number
  /** The longest wait between two retries of background work. */
  readonly recoveryMaxDelayMs: number
  /**
   * How long a refund the acquirer keeps failing transiently is retried, from its creation, before
   * it ends `failed` (error `timeout`) and its money is released.
   */
  readonly refundRetryWindowMs: number
  /** How long a payer has to finish a 3-D Secure challenge. */
  readonly interactionTimeoutMs: number
  /** The processing deadline of a payment that names none. */
  readonly defaultProcessingDeadlineMs: number
}

/** @since 0.1.0 @category tags */
export class KassaSettings extends Context.Tag("kassa/Settings")<KassaSettings, Settings>() {}

/** @since 0.1.0 */
export const defaults: Settings = {
  publicUrl: "http://localhost:8022",
  recoveryDelayMs: 10_000,
  recoveryMaxDelayMs: 10 * 60_000,
  refundRetryWindowMs: 24 * 3_600_000,
  interactionTimeoutMs: 15 * 60_000,
  defaultProcessingDeadlineMs: 30 * 60_000
}

/** @since 0.1.0 @category layers */
export const layer = (settings: Partial<Settings> = {}) => Layer.succeed(KassaSettings, { ...defaults, ...settings })

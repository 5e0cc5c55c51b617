/**
 * The server's one log format on stdout: JSON lines by default, a readable form with
 * `KASSA_LOG_FORMAT=pretty`; `KASSA_LOG_LEVEL` (trace, debug, info, warning, error, fatal, none)
 * sets the least severe level written (default info).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/** @since 0.1.0 @category models */
export interface LogSettings {
  readonly format: "json" | "pretty"
  readonly level: LogLevel.LogLevel
}

const levels = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
} as const

/** What a start logs with before its settings are read (and when they are wrong). @since 0.1.0 */
export const defaults: LogSettings = { format: "json", level: LogLevel.Info }

/** @since 0.1.0 */
export const config: Config.Config<LogSettings> = Config.all({
  format: Config.literal("json", "pretty")("KASSA_LOG_FORMAT").pipe(Config.withDefault(defaults.format)),
  level: Config.literal(...(Object.keys(levels) as Array<keyof typeof levels>))("KASSA_LOG_LEVEL").pipe(
    Config.map((name) => levels[name]),
    Config.withDefault(defaults.level)
  )
})

/** The logger of `settings`, replacing Effect's default one. @since 0.1.0 @category layers */
export const layer = (settings: LogSettings): Layer.Layer<never> =>
  Layer.merge(settings.format === "pretty" ? Logger.pretty : Logger.json, Logger.minimumLogLevel(settings.level))

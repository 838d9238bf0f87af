/**
 * The one logger of the service, its layers, its plugins and their devices: lines of text an operator
 * reads, at three levels. Every part of the core that reports takes a `Logger`; plugins get one from the
 * host (`PluginApi.log`, their lines prefixed with the plugin's name) and the SDK re-exports the type.
 *
 * `warn` (something went wrong and was handled: a reconnect, a refused handshake, a plugin left out) is
 * optional so that a sink of two levels, such as `{ info, error }` given to `startService`, is a
 * Logger too; `withWarn` sends such a sink's warnings to `error`, which is where the service has always
 * written them. What the core hands out (to plugins) always has all three.
 */
export interface Logger {
  info(message: string): void;
  warn?(message: string): void;
  error(message: string): void;
}

/** The logger with `warn` always there: its own, or `error` when it has none. */
export function withWarn(log: Logger): Required<Logger> {
  if (log.warn) return log as Required<Logger>;
  return { info: (m) => log.info(m), warn: (m) => log.error(m), error: (m) => log.error(m) };
}

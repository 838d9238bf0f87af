/**
 * The one logger of the service, its layers, its plugins and their devices: lines an operator reads,
 * at three levels. Every part of the core that reports takes a `Logger`; plugins get one from the
 * host (`PluginApi.log`, their lines prefixed with the plugin's name) and the SDK re-exports the type.
 * A caller may add structured fields to a line (`log.info('node installed', { nodeId })`); the
 * service's own sink (logging/json-logger.ts) writes them as JSON members, a sink of plain text lines
 * may ignore them, so every existing `(message) => ...` sink is still a Logger.
 *
 * `warn` (something went wrong and was handled: a reconnect, a refused handshake, a plugin left out) is
 * optional so that a sink of two levels, such as `{ info, error }` given to `startService`, is a
 * Logger too; `withWarn` sends such a sink's warnings to `error`, which is where the service has always
 * written them. What the core hands out (to plugins) always has all three.
 */

/** Context of one line: identifiers (`nodeId`, `plugin`) and measures, never a secret. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn?(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** The logger with `warn` always there: its own, or `error` when it has none. */
export function withWarn(log: Logger): Required<Logger> {
  if (log.warn) return log as Required<Logger>;
  return { info: (m, f) => log.info(m, f), warn: (m, f) => log.error(m, f), error: (m, f) => log.error(m, f) };
}

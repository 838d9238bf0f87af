/**
 * The CLI session a translation unit's readers use: `exec(command)` returns the device's output for one
 * command. `cachingSession` wraps a raw session for one request so that several readers asking for the
 * same `show` output cost one round trip; configuration commands are never cached.
 */

/** What readers get: one command in, its output (without echo and prompt) out. */
export interface CliSession {
  exec(command: string): Promise<string>;
}

/** Which commands may be answered from the per-request cache: read-only ones. */
export const SHOW_COMMAND = /^\s*(show|sh|display|get)\s/i;

/**
 * A session for one request: `show ...` output is cached (the promise, so concurrent readers share one
 * call); a failed command is not cached. `commandsSent` lists what reached the device, for tests and logs.
 */
export function cachingSession(inner: CliSession): CliSession & { readonly commandsSent: readonly string[] } {
  const cache = new Map<string, Promise<string>>();
  const commandsSent: string[] = [];
  return {
    commandsSent,
    exec(command: string): Promise<string> {
      const cacheable = SHOW_COMMAND.test(command);
      const held = cacheable ? cache.get(command) : undefined;
      if (held) return held;
      commandsSent.push(command);
      const result = inner.exec(command);
      if (cacheable) {
        cache.set(command, result);
        result.catch(() => cache.delete(command));
      }
      return result;
    },
  };
}

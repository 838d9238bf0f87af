/**
 * The CLI session a translation unit's readers use: `exec(command)` returns the device's output for one
 * command. `cachingSession` wraps a raw session for one request so that several readers asking for the
 * same `show` output cost one round trip; configuration commands are never cached. A session that can
 * type commands ahead (`execAll`) lets the request fetch the show commands it expects in one round trip
 * (`prefetch`) before its readers ask for them.
 */

/** What readers get: one command in, its output (without echo and prompt) out. */
export interface CliSession {
  exec(command: string): Promise<string>;
  /**
   * Several exec-mode commands sent at once, their outputs in order (each promise settles as soon as the
   * device has answered its command). Only sessions to devices that read typed-ahead input in order have it.
   */
  execAll?(commands: readonly string[]): Promise<string>[];
}

/** Which commands may be answered from the per-request cache: read-only ones. */
export const SHOW_COMMAND = /^\s*(show|sh|display|get)\s/i;

/** The per-request session `cachingSession` returns. */
export interface CachingSession extends CliSession {
  /** Every command that reached the device, prefetched ones included, in sending order. */
  readonly commandsSent: readonly string[];
  /** The distinct commands readers asked for, in the order of their first ask (what a next read may prefetch). */
  readonly commandsAsked: readonly string[];
  /**
   * Sends the show commands among `commands` that are not cached yet in one go, when the inner session
   * can (`execAll`), and caches their outputs for the readers; settles when the device has answered all of
   * them; commands not prefetched wait for that before they are sent. Without `execAll`, or for non-show
   * commands, it does nothing: readers then fetch as usual.
   */
  prefetch(commands: readonly string[]): Promise<void>;
}

/**
 * A session for one request: `show ...` output is cached (the promise, so concurrent readers share one
 * call); a failed command is not cached.
 */
export function cachingSession(inner: CliSession): CachingSession {
  const cache = new Map<string, Promise<string>>();
  const commandsSent: string[] = [];
  const asked = new Set<string>();
  // commands typed ahead and not all answered yet: the session carries nothing else meanwhile
  let typing: Promise<unknown> | undefined;
  const remember = (command: string, result: Promise<string>) => {
    cache.set(command, result);
    result.catch(() => cache.delete(command));
  };
  return {
    commandsSent,
    get commandsAsked() {
      return [...asked];
    },
    exec(command: string): Promise<string> {
      const cacheable = SHOW_COMMAND.test(command);
      if (cacheable) asked.add(command);
      const held = cacheable ? cache.get(command) : undefined;
      if (held) return held;
      commandsSent.push(command);
      const result = typing ? typing.then(() => inner.exec(command)) : inner.exec(command);
      if (cacheable) remember(command, result);
      return result;
    },
    async prefetch(commands: readonly string[]): Promise<void> {
      const wanted = [...new Set(commands)].filter((c) => SHOW_COMMAND.test(c) && !cache.has(c));
      if (inner.execAll === undefined || wanted.length === 0) return;
      commandsSent.push(...wanted);
      const results = inner.execAll(wanted);
      for (let i = 0; i < wanted.length; i++) remember(wanted[i]!, results[i]!);
      const answered = Promise.allSettled(results);
      typing = answered;
      await answered;
      if (typing === answered) typing = undefined;
    },
  };
}

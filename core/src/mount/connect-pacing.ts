/**
 * Pacing of connection attempts across the service, so a fleet that comes back at once (a restart of the
 * service, of a site, of a simulator) does not arrive in one tick: each SSH handshake costs the event
 * loop milliseconds of key exchange, and thousands together starve every other request.
 *
 * Two tools, used by the mount manager for restored nodes and handed to southbounds (`ConnectPacing` in
 * hooks.ts) for their own reconnects after a lost session:
 * - {@link jitter}: waits drawn at random, so devices that failed together drift apart instead of
 *   retrying in lockstep (first attempts over `[0, window)`, back-off over `[wait/2, wait]`);
 * - {@link ConnectGate}: at most `limit` attempts in flight at once, the rest queued first come first
 *   served. Only an attempt (connect, log in, hello) holds a slot, never a wait between attempts.
 *
 * An attempt must not take a second slot from inside its own (the slots are few, so nesting can deadlock):
 * the manager holds one around a restored node's whole connect, so a southbound takes one only for the
 * reconnects it starts itself.
 */
import type { ConnectPacing } from '../hooks';

/**
 * Connection attempts in flight at once unless the service configuration says otherwise (`fleet`).
 * Eight keep a reconnect storm bound by CPU, not by waiting (a login to a nearby device takes a few
 * ms of round trips), while the steps of the attempts that are ready in one turn of the event loop
 * stay few: with 5,000 devices reconnecting, GET p99 meanwhile was 33-41 ms at 8 against 40-144 ms
 * at 32, in the same time to reconnect them all (docs/operations.md, "Reconnects").
 */
export const DEFAULT_CONNECT_CONCURRENCY = 8;

/**
 * `ms` scaled by a random factor in `[from, 1]`: `jitter(window, 0)` spreads first attempts over the
 * window, `jitter(wait)` spreads a back-off over its upper half (never longer than the back-off says).
 */
export function jitter(ms: number, from = 0.5): number {
  return Math.round(ms * (from + (1 - from) * Math.random()));
}

/** A bound on connection attempts in flight, first come first served. */
export class ConnectGate implements ConnectPacing {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  /** The most attempts that were ever in flight at once (the start-up report, tests). */
  peak = 0;

  constructor(readonly limit: number = DEFAULT_CONNECT_CONCURRENCY) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a connect gate needs a limit of at least 1, not ${limit}`);
  }

  /** Attempts running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Attempts waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  async attempt<T>(open: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await open();
    } finally {
      // the slot passes straight to the next in line, so a newcomer cannot overtake the queue
      const next = this.queue.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}

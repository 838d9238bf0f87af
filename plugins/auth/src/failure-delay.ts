/**
 * Delays after failed authentication attempts, per client address: the n-th consecutive failure is
 * answered after `first · 2^(n-1)` ms, never more than `max`; the next attempt from that address is not
 * even checked before the delay has passed, so guessing costs the delay per try however the client
 * sends. A success resets the address. Memory is bounded: addresses quiet for a while are forgotten and
 * at most `capacity` are kept (the oldest go first).
 */

interface AddressRecord {
  failures: number;
  /** Epoch ms before which the next attempt waits. */
  until: number;
  lastSeen: number;
}

export interface FailureDelayOptions {
  readonly firstMs: number;
  readonly maxMs: number;
  /** Most addresses remembered (default 10 000). */
  readonly capacity?: number;
  /** An address quiet this long starts again from zero (default 15 minutes). */
  readonly forgetAfterMs?: number;
  readonly now?: () => number;
}

export class FailureDelays {
  private readonly records = new Map<string, AddressRecord>();
  private readonly capacity: number;
  private readonly forgetAfterMs: number;
  private readonly now: () => number;

  constructor(private readonly options: FailureDelayOptions) {
    this.capacity = options.capacity ?? 10_000;
    this.forgetAfterMs = options.forgetAfterMs ?? 15 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** How long an attempt from `address` must wait before it is checked (0 when it need not). */
  pendingMs(address: string): number {
    const r = this.fresh(address);
    return r ? Math.max(0, r.until - this.now()) : 0;
  }

  /** Records a failure; returns the delay to hold the answer for. */
  recordFailure(address: string): number {
    const now = this.now();
    const r = this.fresh(address) ?? { failures: 0, until: 0, lastSeen: now };
    r.failures = Math.min(r.failures + 1, 64);
    const delay = Math.min(this.options.maxMs, this.options.firstMs * 2 ** (r.failures - 1));
    r.until = now + delay;
    r.lastSeen = now;
    this.records.delete(address); // re-insert: Map order is then least recently failed first
    this.records.set(address, r);
    while (this.records.size > this.capacity) this.records.delete(this.records.keys().next().value!);
    return delay;
  }

  /** A success from `address` forgets its failures. */
  recordSuccess(address: string): void {
    this.records.delete(address);
  }

  /** Consecutive failures remembered for `address`. */
  failures(address: string): number {
    return this.fresh(address)?.failures ?? 0;
  }

  private fresh(address: string): AddressRecord | undefined {
    const r = this.records.get(address);
    if (r && this.now() - r.lastSeen > this.forgetAfterMs) {
      this.records.delete(address);
      return undefined;
    }
    return r;
  }
}

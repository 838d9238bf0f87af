/**
 * Handing freed native memory back to the system. glibc's malloc keeps what was freed amid blocks still
 * in use resident until `malloc_trim` returns its whole free pages, and Node never calls it: after
 * thousands of device sessions close (their sockets, ciphers and key objects are malloc'd), the process
 * kept about 100 MB it no longer used (10,000 devices uninstalled; docs/operations.md#memory).
 *
 * The small addon core/native/malloc-trim.c (built at install by core/native/build.js) gives two calls:
 * the bytes the allocator holds free, and the trim. The trimmer looks every `intervalMs` and trims when
 * the free bytes have grown by `thresholdBytes` since it last looked at them after a trim (after a burst
 * of closes, not on every tick of a steady service: the free count does not fall when pages go back,
 * so the baseline moves instead), and only while the event loop was mostly idle over the last interval:
 * a trim of 100 MB makes thousands of madvise calls, which during a reconnect storm would compete with
 * the handshakes, and it runs on a worker thread so the event loop itself never waits. Without the addon (no compiler at install, not glibc) nothing runs and
 * the log says so once.
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger';

/** The event loop counts as idle enough for a trim below this share of busy time since the last check. */
const IDLE_UTILIZATION = 0.25;

interface MallocTrimAddon {
  freeBytes(): number;
  /** Resolves once the trim, run on a libuv worker thread, is done: whether pages went back. */
  trim(): Promise<boolean>;
}

/** Where core/native/build.js writes the addon, from this file's place in dist/. */
const ADDON = path.join(__dirname, '..', '..', '..', 'native', 'build', 'malloc-trim.node');

function loadAddon(): MallocTrimAddon | string {
  try {
    return require(ADDON) as MallocTrimAddon;
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
}

export interface NativeMemoryTrimOptions {
  readonly log: Logger;
  readonly intervalMs?: number;
  readonly thresholdBytes?: number;
}

/** Trims malloc's free memory after bursts of frees; `stop` ends it. */
export class NativeMemoryTrim {
  private readonly timer: NodeJS.Timeout | undefined;
  private baseline = 0;
  private trimming = false;
  private loopSince = performance.eventLoopUtilization();
  /** Trims done, and the last one's duration (ms): the log and the tests. */
  trims = 0;

  constructor(
    private readonly options: NativeMemoryTrimOptions,
    private readonly addon = loadAddon(),
  ) {
    if (typeof this.addon === 'string') {
      options.log.info(`native memory is not trimmed (core/native/malloc-trim.node unavailable: ${this.addon})`);
      return;
    }
    this.baseline = this.addon.freeBytes();
    this.timer = setInterval(() => void this.check(), options.intervalMs ?? 5_000).unref();
  }

  /** Whether the addon is there. */
  get available(): boolean {
    return typeof this.addon !== 'string';
  }

  /**
   * Trims if enough was freed since the baseline and the event loop was idle enough since the last
   * check; resolves with whether it trimmed.
   */
  async check(): Promise<boolean> {
    if (typeof this.addon === 'string' || this.trimming) return false;
    const busy = performance.eventLoopUtilization(this.loopSince);
    this.loopSince = performance.eventLoopUtilization();
    const free = this.addon.freeBytes();
    if (free - this.baseline < (this.options.thresholdBytes ?? 16 * 1048576) || busy.utilization > IDLE_UTILIZATION) {
      this.baseline = Math.min(this.baseline, free);
      return false;
    }
    const started = performance.now();
    this.trimming = true;
    try {
      await this.addon.trim();
    } finally {
      this.trimming = false;
    }
    this.trims++;
    this.baseline = this.addon.freeBytes();
    this.options.log.info(
      `native memory: gave back the pages malloc held free (${Math.round(free / 1048576)} MB free; ${Math.round(performance.now() - started)} ms on a worker thread)`,
    );
    return true;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }
}

/**
 * The write-ahead journal of one store: an append-only log of opaque records in a directory, plus
 * compacted snapshots of the owner's state. It knows durability, not what the bytes mean.
 *
 * - `append` resolves only once the record is durable (written through an O_DSYNC descriptor, or
 *   written and fdatasync'ed when I/O is injected or the platform has no O_DSYNC). Group commit: the appends queued when a commit
 *   starts are written by one write + fsync, so one fsync covers many writers. Several commits may be in
 *   flight at once (`maxConcurrentCommits`): writers that arrive during an fsync get the next one started
 *   at once instead of waiting for the first to finish, which matters when clients come back staggered
 *   (HTTP) and the disk serves concurrent flushes in parallel. Each commit writes at offsets reserved in
 *   append order, and commits are acknowledged in that order: a record is acknowledged only once it and
 *   every record before it are durable. The order of `append` calls is the order on disk and of
 *   resolution. A crash with a later commit on disk and an earlier one not leaves damage in the middle
 *   of the tail (a zero-filled hole), which recovery cuts with everything after it: none of that was
 *   acknowledged.
 * - COMMITTED (committed-file.ts) records the durable record count when the journal opens, after each
 *   snapshot and on close; recovery refuses to end with fewer records than it says.
 * - `snapshot(state)` stores the owner's whole state as of every record appended so far: new records go
 *   to a fresh segment from that moment, the snapshot is written atomically once the records it covers
 *   are durable, and then the segments and snapshots it supersedes are removed.
 * - `Journal.open` recovers (see journal-recovery.ts) and locks the directory (see dir-lock.ts).
 * - A failed write or fsync rejects the appends in flight and every append after them, and the journal
 *   refuses further work until reopened. After a failed fsync the kernel may have dropped the dirty pages
 *   and a retried fsync can report success without them, so the only trustworthy state is what recovery
 *   reads back from disk; the owner reloads from that.
 *
 * How an owner keeps "2xx only once durable" and "readers never see an unacknowledged write" while still
 * letting group commit batch its writers (the WriteQueue is held while applying, not while fsyncing):
 *
 *   let latest = recovered;   // every appended change, durable or not: what the next writer builds on
 *   let visible = recovered;  // what readers see: acknowledged changes only
 *   async function write(change) {
 *     const { next, durable } = await writers.run(() => {
 *       const next = apply(latest, change);                 // a bad request throws here: nothing appended
 *       const durable = journal.append(encode(change));
 *       latest = next;
 *       return { next, durable };                            // wrapped, so run() does not wait for the fsync
 *     });
 *     await durable;                                         // rejects on I/O error: answer 500, reopen, reload
 *     visible = next;                                        // acknowledgements arrive in append order
 *   }
 *   onCompactionDue: () => void writers.run(() => {              // serialize + snapshot() in one turn,
 *     journal.snapshot(serialize(latest)).catch(report);          // so the state matches the position
 *   });
 *
 * Why this file is longer than 400 lines: group commit, segment rotation, snapshots and the failed state
 * act on one queue and one write position and must be read together; recovery (journal-recovery.ts), the
 * committed count (committed-file.ts) and the lock (dir-lock.ts) are already apart.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FILE_MODE, ensureDirectory, fsyncDirectory, removeIfPresent, writeFully } from './durable-file';
import { listDirectory, segmentFileName } from './data-directory';
import { writeCommitted } from './committed-file';
import { DirectoryLock } from './dir-lock';
import { JournalError } from './journal-error';
import {
  type ActiveSegment,
  type Examination,
  examineDirectory,
  type RecoveryHandlers,
  type RecoveryLimits,
  type RecoveryReport,
  recoverDirectory,
} from './journal-recovery';
import { encodeFrame, payloadByteLength } from './record-frame';
import { writeSnapshotFile } from './snapshot-file';

export type { Examination, FileFinding, RecoveryHandlers, RecoveryReport, Refusal } from './journal-recovery';

/** The two operations of the append path, replaceable so tests can inject I/O faults. */
export interface JournalIo {
  /** Writes all of `data` at `position` of the segment file. */
  write(file: FileHandle, data: Buffer, position: number): Promise<void>;
  /** Makes everything written to the file durable. */
  sync(file: FileHandle): Promise<void>;
}

const defaultIo: JournalIo = {
  write: writeFully,
  sync: (file) => file.datasync(), // the size change is metadata fdatasync covers
};

/**
 * Without injected I/O, a group commit is one write on a second descriptor of the segment opened with
 * O_DSYNC (the write returns once its data is durable, as write + fdatasync would): one thread-pool
 * round trip per commit instead of two. Each round trip costs the event loop a submission and a
 * completion, and on a loaded machine a pool thread woken to compete with it for a core.
 */
const DSYNC_FLAGS = fsConstants.O_DSYNC === undefined ? undefined : fsConstants.O_WRONLY | fsConstants.O_DSYNC;

/** How a journal behaves; every field is optional. */
export interface JournalOptions extends RecoveryHandlers {
  /**
   * Called once when the records since the last snapshot pass `compactAfterBytes` or
   * `compactAfterRecords` (and, if that snapshot fails, once more after another threshold's worth). The owner answers by calling `snapshot()` with its state at a moment when
   * that state reflects exactly the records appended so far (e.g. inside its write queue).
   */
  onCompactionDue?(journal: Journal): void;
  /** Default 64 MiB. */
  compactAfterBytes?: number;
  /** Default 100,000. */
  compactAfterRecords?: number;
  /** Largest record accepted, and read back; default 512 MiB. */
  maxRecordBytes?: number;
  /** Largest snapshot read back; default 4 GiB. */
  maxSnapshotBytes?: number;
  /** Most bytes written by one group commit; a larger single record is written alone. Default 4 MiB. */
  maxBatchBytes?: number;
  /**
   * Group commits (write + fsync) in flight at once; default 3. Each holds a libuv thread-pool thread
   * (4 by default) while it runs, so the default leaves one to the rest of the process.
   */
  maxConcurrentCommits?: number;
  /** Where recovery and failures are reported; default stderr. */
  log?(message: string): void;
  /** Told of each group commit once its write + fsync is done: how long that took and how many records it carried (metrics). */
  onCommitted?(seconds: number, records: number): void;
  /** Replaces the write and fsync of the append path (fault injection in tests). */
  io?: Partial<JournalIo>;
}

interface QueuedAppend {
  readonly frame: Buffer;
  resolve(): void;
  reject(error: Error): void;
}

/** Marks where in the append order a snapshot was taken: records after it go to a new segment. */
interface QueuedRotation {
  readonly rotateAt: number;
  resolve(): void;
  reject(error: Error): void;
}

type QueuedItem = QueuedAppend | QueuedRotation;

const isRotation = (item: QueuedItem): item is QueuedRotation => 'rotateAt' in item;

function journalLimits(options: JournalOptions) {
  return {
    compactAfterBytes: positiveInteger('compactAfterBytes', options.compactAfterBytes, 64 << 20),
    compactAfterRecords: positiveInteger('compactAfterRecords', options.compactAfterRecords, 100_000),
    maxRecordBytes: Math.min(positiveInteger('maxRecordBytes', options.maxRecordBytes, 512 << 20), 0xffff_ffff),
    maxBatchBytes: positiveInteger('maxBatchBytes', options.maxBatchBytes, 4 << 20),
    maxConcurrentCommits: positiveInteger('maxConcurrentCommits', options.maxConcurrentCommits, 3),
  };
}

function recoveryLimits(options: JournalOptions): RecoveryLimits {
  const limits = journalLimits(options);
  return {
    maxRecordBytes: limits.maxRecordBytes,
    maxSnapshotBytes: positiveInteger('maxSnapshotBytes', options.maxSnapshotBytes, 2 ** 32),
    inFlightBytes: limits.maxConcurrentCommits * limits.maxBatchBytes,
  };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new JournalError('bad-argument', `option ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function isRecord(value: unknown): value is Uint8Array | string {
  return typeof value === 'string' || value instanceof Uint8Array;
}

/** An open journal directory. Create with `Journal.open`. */
export class Journal {
  private readonly queue: QueuedItem[] = [];
  private flushing: Promise<void> | undefined;
  private snapshotting: Promise<unknown> = Promise.resolve();
  private accepted: number;
  private durable: number;
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;
  private compactionSignalled = false;
  /** Segment size the compaction thresholds are counted from: 0, or where a failed snapshot left it. */
  private compactionBaseline = { bytes: 0, records: 0 };
  private batches = 0;
  /** File offset where the next group commit writes (past every commit started, durable or not). */
  private writeOffset: number;
  /** Acknowledgements of the commits in flight, oldest first (each settles after the one before it). */
  private readonly inFlight: Promise<void>[] = [];
  /** The write + fsync of the commits in flight, so a failure can wait for them before cutting the file. */
  private readonly inFlightIo = new Set<Promise<unknown>>();
  /** With the default I/O: the O_DSYNC descriptor of the active segment, opened on first use. */
  private dsync: { readonly segment: ActiveSegment; readonly file: Promise<FileHandle> } | undefined;

  private constructor(
    /** Absolute path of the directory. */
    readonly directory: string,
    /** What recovery found when the journal was opened. */
    readonly recovery: RecoveryReport,
    private readonly lock: DirectoryLock,
    private active: ActiveSegment,
    private readonly io: JournalIo,
    private readonly limits: {
      compactAfterBytes: number;
      compactAfterRecords: number;
      maxRecordBytes: number;
      maxBatchBytes: number;
      maxConcurrentCommits: number;
    },
    private readonly onCompactionDue: ((journal: Journal) => void) | undefined,
    private readonly log: (message: string) => void,
    /** True with the default I/O: commits write through the segment's O_DSYNC descriptor. */
    private readonly dsyncWrites: boolean,
    private readonly onCommitted: ((seconds: number, records: number) => void) | undefined,
  ) {
    this.accepted = recovery.position;
    this.durable = recovery.position;
    this.writeOffset = active.bytes;
  }

  /**
   * Opens (creating if needed, mode 0700) the journal in `directory`: takes its lock, then recovers by
   * passing the newest valid snapshot to `onSnapshot` and each later record to `onRecord`, in order,
   * before resolving. Rejects with JournalError `locked` when another live journal holds the directory
   * and `corrupt` when the files are damaged beyond a torn tail; a handler's own error is passed through.
   */
  static async open(directory: string, options: JournalOptions = {}): Promise<Journal> {
    const limits = journalLimits(options);
    const recovery = recoveryLimits(options);
    const log = options.log ?? ((message: string) => process.stderr.write(`[journal] ${message}\n`));
    const absolute = path.resolve(directory);
    await ensureDirectory(absolute);
    const lock = await DirectoryLock.acquire(absolute, log);
    try {
      const { report, active } = await recoverDirectory(absolute, options, recovery, log);
      const io: JournalIo = { ...defaultIo, ...options.io };
      // Where the platform has no O_DSYNC (Windows), the write + fdatasync pair it is.
      const dsyncWrites = DSYNC_FLAGS !== undefined && options.io?.write === undefined && options.io?.sync === undefined;
      return new Journal(absolute, report, lock, active, io, limits, options.onCompactionDue, log, dsyncWrites, options.onCommitted);
    } catch (error) {
      await lock.release().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Reads the journal in `directory` as `open` would recover it, without taking its lock or changing
   * any file: what each file holds and what would refuse the open (`rosetta store check`). Handlers
   * receive the snapshot and records as in `open`.
   */
  static examine(directory: string, options: JournalOptions = {}): Promise<Examination> {
    return examineDirectory(path.resolve(directory), options, recoveryLimits(options));
  }

  /** Records appended so far (acknowledged or not): the position a snapshot taken now covers. */
  get position(): number {
    return this.accepted;
  }

  /** Records known to be on disk. */
  get durablePosition(): number {
    return this.durable;
  }

  /** The error that stopped the journal, if one did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Size of the journal since the last snapshot, and how many group commits were written. */
  get stats(): { segmentBytes: number; segmentRecords: number; batchesWritten: number } {
    return { segmentBytes: this.active.bytes, segmentRecords: this.active.records, batchesWritten: this.batches };
  }

  /** True once the records since the last snapshot pass a compaction threshold. */
  get compactionDue(): boolean {
    return this.active.bytes >= this.limits.compactAfterBytes || this.active.records >= this.limits.compactAfterRecords;
  }

  /**
   * Appends one record; resolves once it is fsync'ed. Rejects with JournalError `too-large`,
   * `bad-argument`, `closed`, `failed` (an earlier I/O error) or `io` (this record's write failed).
   */
  append(record: Uint8Array | string): Promise<void> {
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    if (!isRecord(record)) return Promise.reject(new JournalError('bad-argument', 'a record must be a string or bytes'));
    const bytes = payloadByteLength(record);
    if (bytes > this.limits.maxRecordBytes) {
      return Promise.reject(
        new JournalError('too-large', `a record of ${bytes} byte(s) exceeds the ${this.limits.maxRecordBytes}-byte limit`),
      );
    }
    const frame = encodeFrame(record);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ frame, resolve, reject });
      this.accepted += 1;
      this.startFlushing();
    });
  }

  /**
   * Stores `state` as the snapshot covering every record appended before this call (`position`), then
   * removes the segments and snapshots it supersedes. Records appended after the call go to a new
   * segment and are replayed on top of this snapshot. Resolves when the snapshot is durable. Snapshots
   * are written one at a time, in call order. A failed snapshot leaves the journal usable.
   */
  snapshot(state: Uint8Array | string): Promise<void> {
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    if (!isRecord(state)) return Promise.reject(new JournalError('bad-argument', 'a snapshot must be a string or bytes'));
    const position = this.accepted;
    const rotated = new Promise<void>((resolve, reject) => {
      this.queue.push({ rotateAt: position, resolve, reject });
      this.startFlushing();
    });
    // Handled now: it may reject (journal failure) while an earlier snapshot is still being written.
    rotated.catch(() => undefined);
    const written = this.snapshotting.then(async () => {
      try {
        await rotated; // every record before `position` is durable and later ones go to the new segment
        await writeSnapshotFile(this.directory, position, state);
      } catch (error) {
        // Ask the owner again, but only after another threshold's worth of records: no retry storm.
        this.compactionSignalled = false;
        this.compactionBaseline = { bytes: this.active.bytes, records: this.active.records };
        throw error;
      }
      await this.removeSuperseded(position);
      await this.recordCommitted();
    });
    this.snapshotting = written.catch(() => undefined);
    return written;
  }

  /** Waits for queued appends and snapshots, then closes the files and releases the lock. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.flushing;
      await this.inFlight.at(-1);
      await this.snapshotting;
      await this.closeDsync();
      await this.active.file.close().catch(() => undefined);
      await this.recordCommitted();
      await this.lock.release();
    })();
    return this.closing;
  }

  private refusal(): JournalError | undefined {
    if (this.closing) return new JournalError('closed', `the journal in ${this.directory} is closed`);
    if (this.failure) {
      return new JournalError(
        'failed',
        `the journal in ${this.directory} stopped after an I/O error (${this.failure.message}); reopen it to recover`,
        { cause: this.failure },
      );
    }
    return undefined;
  }

  private startFlushing(): void {
    this.flushing ??= this.flushLoop();
  }

  /**
   * Starts group commits for queued items until none are left (at most `maxConcurrentCommits` in
   * flight; when that many are, waits for the oldest). A rotation waits until every commit before it is
   * acknowledged, so the records of the old segment are all durable when the new one starts.
   */
  private async flushLoop(): Promise<void> {
    try {
      for (;;) {
        // Let writers woken by the previous commit (and I/O callbacks of this turn) queue up first.
        await nextTurn();
        const head = this.queue[0];
        if (head === undefined) break;
        if (this.failure) {
          this.rejectAllQueued(this.refusal()!);
          break;
        }
        if (isRotation(head)) {
          if (this.inFlight.length > 0) {
            await this.inFlight.at(-1);
            continue;
          }
          this.queue.shift();
          await this.rotate(head.rotateAt).then(head.resolve, head.reject);
          continue;
        }
        if (this.inFlight.length >= this.limits.maxConcurrentCommits) {
          await this.inFlight[0];
          continue;
        }
        this.startCommit();
      }
    } catch (error) {
      this.stop(error as Error); // a bug, not I/O: still never leave an append hanging
      this.rejectAllQueued(this.refusal()!);
    } finally {
      this.flushing = undefined;
    }
  }

  /** Takes the queued appends up to the batch limit and starts writing them as one group commit. */
  private startCommit(): void {
    let count = 0;
    let bytes = 0;
    for (const item of this.queue) {
      if (isRotation(item)) break;
      if (count > 0 && bytes + item.frame.length > this.limits.maxBatchBytes) break;
      count += 1;
      bytes += item.frame.length;
    }
    const batch = this.queue.splice(0, count) as QueuedAppend[];
    const data =
      count === 1
        ? batch[0]!.frame
        : Buffer.concat(
            batch.map((item) => item.frame),
            bytes,
          );
    const segment = this.active;
    const offset = this.writeOffset;
    this.writeOffset += bytes;
    const started = this.onCommitted === undefined ? 0 : performance.now();
    const io = (async () => {
      if (this.dsyncWrites) {
        await writeFully(await this.dsyncFile(segment), data, offset);
      } else {
        await this.io.write(segment.file, data, offset);
        await this.io.sync(segment.file);
      }
      this.onCommitted?.((performance.now() - started) / 1000, count);
    })();
    this.inFlightIo.add(io);
    const outcome = io.then(
      (): { error?: unknown } => ({}),
      (error: unknown) => ({ error: error ?? new Error('unknown I/O failure') }),
    );
    const previous = this.inFlight.at(-1);
    const acknowledged = (async () => {
      const { error } = await outcome;
      this.inFlightIo.delete(io);
      await previous; // never rejects: acknowledgements go in append order
      try {
        await this.settleCommit(batch, segment, offset, bytes, error);
      } finally {
        this.inFlight.shift();
      }
    })();
    this.inFlight.push(acknowledged);
  }

  /** Acknowledges (or rejects) one group commit, once every commit before it has been settled. */
  private async settleCommit(
    batch: readonly QueuedAppend[],
    segment: ActiveSegment,
    offset: number,
    bytes: number,
    error: unknown,
  ): Promise<void> {
    if (this.failure) {
      // An earlier commit failed: this one is not acknowledged, whatever its own fsync said.
      const refusal = this.refusal()!;
      for (const item of batch) item.reject(refusal);
      return;
    }
    if (error !== undefined) {
      const failure = new JournalError('io', `writing ${batch.length} record(s) to ${segment.name} failed: ${(error as Error).message}`, {
        cause: error,
      });
      this.stop(failure);
      for (const item of batch) item.reject(failure);
      this.rejectAllQueued(this.refusal()!);
      // Best effort, once the later commits' I/O is over: cut what may have reached the file so its tail
      // is clean; recovery would anyway. Awaited, so that close() finds the file cut.
      await Promise.allSettled([...this.inFlightIo]);
      await segment.file.truncate(offset).catch(() => undefined);
      return;
    }
    segment.bytes += bytes;
    segment.records += batch.length;
    this.durable += batch.length;
    this.batches += 1;
    for (const item of batch) item.resolve();
    const sinceBaseline = {
      bytes: segment.bytes - this.compactionBaseline.bytes,
      records: segment.records - this.compactionBaseline.records,
    };
    const due = sinceBaseline.bytes >= this.limits.compactAfterBytes || sinceBaseline.records >= this.limits.compactAfterRecords;
    if (due && !this.compactionSignalled && this.onCompactionDue) {
      this.compactionSignalled = true;
      try {
        this.onCompactionDue(this);
      } catch (error) {
        this.log(`compaction callback failed: ${(error as Error).message}`);
      }
    }
  }

  /** Starts the segment for records from `start` on; all earlier records are durable by now. */
  private async rotate(start: number): Promise<void> {
    if (this.active.start === start) return; // no record since the segment began: nothing to split
    const name = segmentFileName(start);
    const file = path.join(this.directory, name);
    let handle: FileHandle | undefined;
    try {
      handle = await fs.open(file, 'wx+', FILE_MODE);
      await fsyncDirectory(this.directory); // the new file must exist after a crash before records land in it
    } catch (error) {
      if (handle !== undefined) {
        // Only a file this call created is removed; an existing one with that name is not ours.
        await handle.close().catch(() => undefined);
        await removeIfPresent(file).catch(() => undefined);
      }
      throw new JournalError('io', `starting journal segment ${name} failed: ${(error as Error).message}`, { cause: error });
    }
    const previous = this.active;
    await this.closeDsync();
    this.active = { start, name, file: handle, bytes: 0, records: 0 };
    this.writeOffset = 0;
    this.compactionSignalled = false;
    this.compactionBaseline = { bytes: 0, records: 0 };
    await previous.file.close().catch(() => undefined);
  }

  /** The O_DSYNC descriptor of `segment`, opened once (a failure rejects the commits that need it). */
  private dsyncFile(segment: ActiveSegment): Promise<FileHandle> {
    if (this.dsync?.segment !== segment) {
      const file = fs.open(path.join(this.directory, segment.name), DSYNC_FLAGS!);
      file.catch(() => undefined); // each commit awaiting it handles the failure
      this.dsync = { segment, file };
    }
    return this.dsync.file;
  }

  /** Closes the O_DSYNC descriptor (called with no commit in flight: rotation, close). */
  private async closeDsync(): Promise<void> {
    const open = this.dsync;
    this.dsync = undefined;
    if (open !== undefined) await open.file.then((file) => file.close()).catch(() => undefined);
  }

  /** Removes segments and snapshots that the durable snapshot at `position` makes redundant. */
  private async removeSuperseded(position: number): Promise<void> {
    const listing = await listDirectory(this.directory);
    const doomed = [
      ...listing.segments.filter((segment) => segment.start < position && segment.start !== this.active.start),
      ...listing.snapshots.filter((snapshot) => snapshot.position < position),
    ];
    for (const { name } of doomed) {
      await removeIfPresent(path.join(this.directory, name)).catch((error: Error) =>
        this.log(`could not remove ${name}: ${error.message}`),
      );
    }
  }

  /**
   * Records in COMMITTED the records known durable and the files holding them, so that recovery never
   * ends with fewer (committed-file.ts). Best effort: without it recovery only has an older floor.
   */
  private async recordCommitted(): Promise<void> {
    await writeCommitted(this.directory, this.durable).catch((error: Error) =>
      this.log(`could not record the committed records in ${this.directory}: ${error.message}`),
    );
  }

  private stop(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.log(`journal in ${this.directory} stopped: ${error.message}`);
  }

  private rejectAllQueued(error: Error): void {
    for (const item of this.queue.splice(0)) item.reject(error);
  }
}

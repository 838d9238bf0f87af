/**
 * The replay log: every event of a replay stream, durable before its publish resolves, kept in id
 * order and bounded by a count and an age (RFC 8040 `replay-log-creation-time`, `replay-log-aged-time`).
 *
 * On disk (`<dataDir>/events/`): segment files `events-<first id>.log` of framed records (the
 * datastore's record-frame.ts: length, CRC, payload; one event as JSON per record) and
 * `replay-log.json` holding the creation time, the aged time and the id the log continues after. Appends
 * that arrive while an fsync runs share the next one (group commit), so many publishes cost one fsync.
 * A segment is closed after SEGMENT_EVENTS records and removed once every event in it has been dropped
 * by the bounds, so the head is dropped without rewriting anything.
 *
 * In memory the log holds an index of the events it keeps (event-index.ts: id, time, stream and where
 * the record sits, a few tens of bytes per event, at most `maxEvents` of them), one across streams and
 * one per stream, and the newest events in full (replay-tail.ts, at most 1,024 events or 4 MB). A
 * replay within the hot tail is answered synchronously; an older one reads the records from the segment
 * files (replay-read.ts) and answers a promise. A segment that cannot be read then (removed or damaged
 * since the log opened) fails that read with a message naming the file; a segment the bounds removed
 * while a read was on its way just ends the read (those events are dropped: the reader is behind the
 * head). The bounds are applied on use and once a minute, so aged segments leave the disk unasked.
 *
 * Damage: a torn tail of the last segment (no frame that checks after the damage: the last write cut
 * short by a crash, never acknowledged) is cut, as the datastore's journal does. Any other damage
 * (a bad record with good ones after it, an unreadable state file) is never cut silently: the files are
 * moved aside, by name, into `damaged-<time>/`, an error naming the file and offset is logged, and a new
 * log begins with a new creation time (which is how a client learns that what came before is gone);
 * ids continue after the highest one read, so an id is never reused. The service still starts.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { FILE_MODE, ensureDirectory, fsyncDirectory, replaceFileDurably, writeFully } from '../datastore/durable-file';
import { encodeFrame } from '../datastore/record-frame';
import { WriteQueue } from '../datastore/write-queue';
import { EventIndex, type RecordLocation } from './event-index';
import { type SegmentFile, readCold } from './replay-read';
import { type LogState, STATE_FILE, type Segment, readSegments, readState, segmentName, setAside } from './replay-files';
import { HotTail } from './replay-tail';
import type { StreamEvent } from './types';

/** Records per segment file before the next one starts. */
const SEGMENT_EVENTS = 10_000;
/** Bytes of records one replay read gathers at most (at least one record). */
const READ_BATCH_BYTES = 4 * 1024 * 1024;
/** How often the bounds are applied when nobody uses the log. */
const BOUNDS_INTERVAL_MS = 60_000;

export interface ReplayLogOptions {
  readonly directory: string;
  readonly maxEvents: number;
  readonly maxAgeSeconds: number;
  /** Bytes of records kept at most (an event's size is unbounded: a configuration read at install). */
  readonly maxBytes?: number;
  readonly log?: (message: string) => void;
  /** The clock (tests); default Date.now. */
  readonly now?: () => number;
  /**
   * Called with the events of each group commit once they are durable and readable from the log, in id
   * order, before their appends resolve (one call per commit, so readers can take them as one batch).
   */
  readonly onDurable?: (events: readonly StreamEvent[]) => void;
  /** How often the bounds are applied on a timer (tests); default once a minute. */
  readonly boundsIntervalMs?: number;
}

export class ReplayLog {
  private state: LogState;
  private readonly all = new EventIndex(true);
  private readonly byStream = new Map<string, EventIndex>();
  /** Streams by number (the across-streams index keeps the number) and numbers by name. */
  private readonly streamNames: string[] = [];
  private readonly streamNumbers = new Map<string, number>();
  private readonly tail = new HotTail();
  private readonly segments: Segment[];
  private boundsTimer: NodeJS.Timeout | undefined;
  /** Segments numbered so far (numbers are never reused, so a stale location never names a new file). */
  private segmentCount = 0;
  private active: { segment: Segment; file: FileHandle; bytes: number; records: number } | undefined;
  /** Frames waiting for the next write and fsync, with the events they carry. */
  private pending: { frames: Buffer[]; events: StreamEvent[]; done: Array<(error?: Error) => void> } | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;
  /** Serializes the state file's writes and the head's segment removals (one temporary file name). */
  private readonly housekeeping = new WriteQueue();
  /** Per stream, the highest id dropped from the head (a reader of the stream behind it lost events). */
  private readonly droppedUpTo = new Map<string, number>();
  /** The highest id readable from the log (appends still on their way to disk are above it). */
  private lastKept = 0;
  /** Bytes of the kept events' records (the byte bound counts them). */
  private keptBytes = 0;

  private constructor(
    private readonly options: ReplayLogOptions,
    state: LogState,
    segments: Segment[],
  ) {
    this.state = state;
    this.segments = segments;
  }

  /** Opens (creating when absent) the log in `options.directory`; damage is set aside, never fatal. */
  static async open(options: ReplayLogOptions): Promise<ReplayLog> {
    await ensureDirectory(options.directory);
    // A state write a crash interrupted leaves its temporary file; the state file itself is whole.
    await fs.rm(path.join(options.directory, `${STATE_FILE}.tmp`), { force: true });
    const now = options.now ?? Date.now;
    // The scan indexes each event as it is read, so opening a large log never holds its events at once.
    let log = new ReplayLog(options, { creationTime: '', lastId: 0 }, []);
    let state: LogState | undefined;
    let highestId = 0;
    try {
      state = await readState(options.directory);
      highestId = state?.lastId ?? 0;
      const scanning = log;
      const segments = await readSegments(options.directory, (event, location) => {
        highestId = Math.max(highestId, event.id);
        scanning.keep(event, location);
      });
      log.segments.push(...segments);
      log.segmentCount = segments.length;
    } catch (error) {
      const aside = await setAside(options.directory, now());
      options.log?.(
        `the event replay log is damaged (${(error as Error).message}); its files were moved to ${aside} and a new log begins after id ${highestId}`,
      );
      log = new ReplayLog(options, { creationTime: '', lastId: 0 }, []);
      state = undefined;
    }
    if (state === undefined) {
      state = { creationTime: new Date(now()).toISOString(), lastId: highestId };
      await replaceFileDurably(path.join(options.directory, STATE_FILE), JSON.stringify(state), '.tmp');
    } else state = { ...state, lastId: highestId };
    log.state = state;
    log.lastKept = highestId;
    log.applyBounds();
    log.boundsTimer = setInterval(() => log.applyBounds(), options.boundsIntervalMs ?? BOUNDS_INTERVAL_MS);
    log.boundsTimer.unref();
    return log;
  }

  /** The id the next event gets follows this one. */
  get lastId(): number {
    return this.state.lastId;
  }

  /** RFC 8040 replay-log-creation-time and replay-log-aged-time. */
  get creationTime(): string {
    return this.state.creationTime;
  }
  get agedTime(): string | undefined {
    return this.state.agedTime;
  }

  /** The oldest id still held, undefined when empty. */
  get firstId(): number | undefined {
    this.applyBounds();
    return this.all.idAt(0);
  }

  /** The highest id of `stream` dropped from the head (0 when none was): a replay can only start after it. */
  droppedThrough(stream: string): number {
    this.applyBounds();
    return this.droppedUpTo.get(stream) ?? 0;
  }

  /** Whether events of `stream` after `id` were dropped from the head (a reader at `id` missed some). */
  droppedAfter(stream: string, id: number): boolean {
    return (this.droppedUpTo.get(stream) ?? 0) > id;
  }

  /** Takes the next id (the hub numbers every event from the log's sequence), or `id`, numbered by the database (cluster-events.ts). */
  nextId(id = this.state.lastId + 1): number {
    if (id <= this.state.lastId) throw new Error(`event id ${id} is not after ${this.state.lastId}, the last one the replay log holds`);
    this.state = { ...this.state, lastId: id };
    return id;
  }

  /**
   * Appends `event` (numbered by `nextId`, in order); resolves once it is durable and in the log.
   * Events appended while a write runs share the next write and fsync.
   */
  append(event: StreamEvent): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the event replay log is closed'));
    const frame = encodeFrame(JSON.stringify(event));
    const batch = (this.pending ??= { frames: [], events: [], done: [] });
    batch.frames.push(frame);
    batch.events.push(event);
    const durable = new Promise<void>((resolve, reject) => batch.done.push((error) => (error ? reject(error) : resolve())));
    this.flushing ??= this.flushLoop();
    return durable;
  }

  /**
   * Up to `limit` kept events of `stream` after `afterId`, in order: an array at once when the first of
   * them is in the hot tail (and so are all later ones), or when none is kept (an empty array means
   * exactly that: no kept event of the stream follows `afterId`); else a promise of events read from
   * the segment files, never empty unless the bounds dropped them meanwhile. It rejects, naming the
   * file, when a segment cannot be read.
   */
  eventsAfter(stream: string, afterId: number, limit: number): StreamEvent[] | Promise<StreamEvent[]> {
    this.applyBounds();
    const index = this.byStream.get(stream);
    if (index === undefined) return [];
    const from = index.positionAfter(afterId);
    const to = Math.min(index.length, from + limit);
    const hotFrom = this.tail.firstId;
    if (from >= to) return [];
    if (index.idAt(from)! >= hotFrom) {
      const events: StreamEvent[] = [];
      for (let n = from; n < to; n++) events.push(this.tail.get(index.idAt(n)!)!);
      return events;
    }
    // The cold part, up to the hot tail (the next pull reads that from memory) and a bounded size.
    const ids: number[] = [];
    const locations: RecordLocation[] = [];
    let bytes = 0;
    for (let n = from; n < to && index.idAt(n)! < hotFrom && (bytes < READ_BATCH_BYTES || ids.length === 0); n++) {
      const location = index.locationAt(n);
      ids.push(index.idAt(n)!);
      locations.push(location);
      bytes += location.length;
    }
    return readCold(ids, locations, (number) => this.segmentFile(number), this.options.log);
  }

  /** The file of segment `number` while the log has it; undefined once the bounds removed it. */
  private segmentFile(number: number): SegmentFile | undefined {
    const segment = this.segments.find((candidate) => candidate.number === number);
    return segment && { name: segment.name, path: path.join(this.options.directory, segment.name) };
  }

  /** Full events held in memory (the hot tail), whatever the log keeps on disk. */
  get fullEventsHeld(): number {
    return this.tail.count;
  }

  /** Bytes the in-memory index takes (both indexes, their spare capacity included). */
  get indexBytes(): number {
    let bytes = this.all.bytes;
    for (const index of this.byStream.values()) bytes += index.bytes;
    return bytes;
  }

  /** The id to replay after for a `start-time` (everything kept when all events are at or after it). */
  idBeforeTime(stream: string, time: Date): number {
    this.applyBounds();
    return this.byStream.get(stream)?.idBefore(time.getTime()) ?? this.lastKept;
  }

  /** Waits for queued appends and closes the segment file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.boundsTimer);
    while (this.flushing) await this.flushing;
    await this.active?.file.close();
    this.active = undefined;
    await this.housekeeping.idle();
    await this.saveState();
  }

  private async flushLoop(): Promise<void> {
    try {
      for (let batch = this.pending; batch !== undefined; batch = this.pending) {
        this.pending = undefined;
        let locations: RecordLocation[];
        try {
          locations = await this.write(batch.frames, batch.events);
        } catch (error) {
          // The write may have landed in part: the segment is abandoned and the next append starts a new one.
          await this.active?.file.close().catch(() => undefined);
          this.active = undefined;
          const failure = new Error(`cannot write the event replay log: ${(error as Error).message}`);
          for (const done of batch.done) done(failure);
          continue;
        }
        for (const [i, event] of batch.events.entries()) this.keep(event, locations[i]!);
        this.options.onDurable?.(batch.events);
        this.applyBounds();
        for (const done of batch.done) done();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Writes the frames (of events in id order) and syncs; answers where each record now sits. */
  private async write(frames: Buffer[], events: StreamEvent[]): Promise<RecordLocation[]> {
    const locations: RecordLocation[] = [];
    let index = 0;
    while (index < frames.length) {
      const active = await this.activeSegment(events[index]!.id);
      const room = SEGMENT_EVENTS - active.records;
      const part = frames.slice(index, index + room);
      const data = part.length === 1 ? part[0]! : Buffer.concat(part);
      await writeFully(active.file, data, active.bytes);
      await active.file.sync();
      for (const frame of part) {
        locations.push({ segment: active.segment.number, offset: active.bytes, length: frame.length });
        active.bytes += frame.length;
      }
      active.records += part.length;
      active.segment.lastId = events[index + part.length - 1]!.id;
      index += part.length;
    }
    return locations;
  }

  private async activeSegment(firstId: number): Promise<NonNullable<ReplayLog['active']>> {
    if (this.active && this.active.records < SEGMENT_EVENTS) return this.active;
    await this.active?.file.close();
    const segment: Segment = { number: this.segmentCount++, name: segmentName(firstId), firstId, lastId: firstId - 1 };
    const file = await fs.open(path.join(this.options.directory, segment.name), 'w+', FILE_MODE);
    await fsyncDirectory(this.options.directory);
    this.segments.push(segment);
    this.active = { segment, file, bytes: 0, records: 0 };
    // The state file records the id sequence so far, so ids continue after a restart even if every segment is dropped.
    await this.saveState();
    return this.active;
  }

  /** The highest id readable from the log. */
  get lastDurableId(): number {
    return this.lastKept;
  }

  /** Indexes a durable event (its record at `location`) and holds it in the hot tail. */
  private keep(event: StreamEvent, location: RecordLocation): void {
    this.lastKept = Math.max(this.lastKept, event.id);
    let stream = this.streamNumbers.get(event.stream);
    if (stream === undefined) {
      stream = this.streamNames.length;
      this.streamNames.push(event.stream);
      this.streamNumbers.set(event.stream, stream);
    }
    let index = this.byStream.get(event.stream);
    if (index === undefined) {
      index = new EventIndex(false);
      this.byStream.set(event.stream, index);
    }
    const time = Date.parse(event.eventTime);
    this.all.push(event.id, time, stream);
    index.push(event.id, time, 0, location);
    this.keptBytes += location.length;
    this.tail.add(event, location.length);
  }

  /**
   * Drops events from the head past the count and age bounds; removes segments left without events.
   * Run on use and by the timer, so aged events leave memory and disk when nobody asks.
   */
  applyBounds(): void {
    const oldest = (this.options.now ?? Date.now)() - this.options.maxAgeSeconds * 1000;
    let droppedId: number | undefined;
    let droppedTime = Number.NEGATIVE_INFINITY;
    const maxBytes = this.options.maxBytes ?? Number.POSITIVE_INFINITY;
    while (this.all.length > 0) {
      const time = this.all.timeAt(0);
      if (this.all.length <= this.options.maxEvents && time >= oldest && this.keptBytes <= maxBytes) break;
      const stream = this.streamNames[this.all.streamAt(0)]!;
      droppedId = this.all.idAt(0)!;
      droppedTime = Math.max(droppedTime, time);
      this.all.shift();
      const index = this.byStream.get(stream);
      // the head across streams is the head of its own stream too
      if (index !== undefined) this.keptBytes -= index.locationAt(0).length;
      index?.shift();
      // A stream with nothing kept (a removed node's, say) gives its columns back.
      if (index?.length === 0) this.byStream.delete(stream);
      this.droppedUpTo.set(stream, droppedId);
    }
    if (droppedId === undefined) return;
    this.tail.dropThrough(droppedId);
    // The index keeps times in ms: the aged time is the newest dropped eventTime to the millisecond.
    const previous = this.state.agedTime === undefined ? Number.NEGATIVE_INFINITY : Date.parse(this.state.agedTime);
    if (droppedTime > previous) this.state = { ...this.state, agedTime: new Date(droppedTime).toISOString() };
    void this.housekeeping.run(() => this.removeDroppedSegments());
  }

  private async removeDroppedSegments(): Promise<void> {
    const keepFrom = this.all.idAt(0) ?? Number.POSITIVE_INFINITY;
    let removed = false;
    while (this.segments.length > 0) {
      const segment = this.segments[0]!;
      if (segment === this.active?.segment || segment.lastId >= keepFrom) break;
      this.segments.shift();
      await fs.rm(path.join(this.options.directory, segment.name), { force: true }).catch(() => undefined);
      removed = true;
    }
    // The aged time must survive the segments that held the dropped events.
    if (removed) await this.writeState().catch((e: Error) => this.options.log?.(`cannot save the event replay log state: ${e.message}`));
  }

  private saveState(): Promise<void> {
    return this.housekeeping.run(() => this.writeState());
  }

  private writeState(): Promise<void> {
    return replaceFileDurably(path.join(this.options.directory, STATE_FILE), JSON.stringify(this.state), '.tmp');
  }
}

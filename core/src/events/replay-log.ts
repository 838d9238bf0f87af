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
 * In memory the log holds the events it keeps (at most `maxEvents`, so its size is bounded by the
 * configuration) with one index per stream, so a subscriber's replay reads references, never the disk.
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
import { encodeFrame, findFrameAfter, scanSegment } from '../datastore/record-frame';
import { WriteQueue } from '../datastore/write-queue';
import { EventQueue } from './event-queue';
import type { StreamEvent } from './types';

/** Records per segment file before the next one starts. */
const SEGMENT_EVENTS = 10_000;
/** Largest event record read back; a longer length field is damage. */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;
const STATE_FILE = 'replay-log.json';
const SEGMENT_NAME = /^events-(\d{16})\.log$/;

export interface ReplayLogOptions {
  readonly directory: string;
  readonly maxEvents: number;
  readonly maxAgeSeconds: number;
  readonly log?: (message: string) => void;
  /** The clock (tests); default Date.now. */
  readonly now?: () => number;
  /**
   * Called with the events of each group commit once they are durable and readable from the log, in id
   * order, before their appends resolve (one call per commit, so readers can take them as one batch).
   */
  readonly onDurable?: (events: readonly StreamEvent[]) => void;
}

interface LogState {
  readonly creationTime: string;
  readonly agedTime?: string;
  /** The highest id any earlier log handed out (ids continue after it). */
  readonly lastId: number;
}

interface Segment {
  readonly name: string;
  readonly firstId: number;
  /** The highest id in it (firstId - 1 while empty). */
  lastId: number;
}

function segmentName(firstId: number): string {
  return `events-${String(firstId).padStart(16, '0')}.log`;
}

function parseEvent(payload: Buffer, where: string): StreamEvent {
  const event = JSON.parse(payload.toString('utf8')) as StreamEvent;
  if (typeof event?.id !== 'number' || typeof event.stream !== 'string' || typeof event.eventTime !== 'string')
    throw new Error(`${where}: not an event record`);
  return event;
}

export class ReplayLog {
  private state: LogState;
  private readonly all = new EventQueue();
  private readonly byStream = new Map<string, EventQueue>();
  private readonly segments: Segment[];
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
    const loaded: StreamEvent[] = [];
    let state: LogState | undefined;
    let segments: Segment[] = [];
    let highestId = 0;
    try {
      state = await readState(options.directory);
      highestId = state?.lastId ?? 0;
      segments = await readSegments(options.directory, (event) => {
        loaded.push(event);
        highestId = Math.max(highestId, event.id);
      });
    } catch (error) {
      const aside = await setAside(options.directory, now());
      options.log?.(
        `the event replay log is damaged (${(error as Error).message}); its files were moved to ${aside} and a new log begins after id ${highestId}`,
      );
      loaded.length = 0;
      segments = [];
      state = undefined;
    }
    if (state === undefined) {
      state = { creationTime: new Date(now()).toISOString(), lastId: highestId };
      await replaceFileDurably(path.join(options.directory, STATE_FILE), JSON.stringify(state), '.tmp');
    } else state = { ...state, lastId: highestId };
    const log = new ReplayLog(options, state, segments);
    log.lastKept = highestId;
    for (const event of loaded) log.keep(event);
    log.applyBounds();
    return log;
  }

  /** The id the next event gets follows this one. */
  get lastId(): number {
    return this.state.lastId;
  }

  get creationTime(): string {
    return this.state.creationTime;
  }

  get agedTime(): string | undefined {
    return this.state.agedTime;
  }

  /** The oldest id still held, undefined when empty. */
  get firstId(): number | undefined {
    this.applyBounds();
    return this.all.first()?.id;
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

  /** Takes the next id (the hub numbers every event, replayed or not, from the log's sequence). */
  nextId(): number {
    this.state = { ...this.state, lastId: this.state.lastId + 1 };
    return this.state.lastId;
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

  /** Up to `limit` kept events of `stream` after `afterId`, in order. */
  eventsAfter(stream: string, afterId: number, limit: number): StreamEvent[] {
    this.applyBounds();
    return this.byStream.get(stream)?.after(afterId, limit) ?? [];
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
        try {
          await this.write(batch.frames, batch.events);
        } catch (error) {
          // The write may have landed in part: the segment is abandoned and the next append starts a new one.
          await this.active?.file.close().catch(() => undefined);
          this.active = undefined;
          const failure = new Error(`cannot write the event replay log: ${(error as Error).message}`);
          for (const done of batch.done) done(failure);
          continue;
        }
        for (const event of batch.events) this.keep(event);
        this.options.onDurable?.(batch.events);
        this.applyBounds();
        for (const done of batch.done) done();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async write(frames: Buffer[], events: StreamEvent[]): Promise<void> {
    let index = 0;
    while (index < frames.length) {
      const active = await this.activeSegment(events[index]!.id);
      const room = SEGMENT_EVENTS - active.records;
      const part = frames.slice(index, index + room);
      const data = part.length === 1 ? part[0]! : Buffer.concat(part);
      await writeFully(active.file, data, active.bytes);
      await active.file.sync();
      active.bytes += data.length;
      active.records += part.length;
      active.segment.lastId = events[index + part.length - 1]!.id;
      index += part.length;
    }
  }

  private async activeSegment(firstId: number): Promise<NonNullable<ReplayLog['active']>> {
    if (this.active && this.active.records < SEGMENT_EVENTS) return this.active;
    await this.active?.file.close();
    const segment: Segment = { name: segmentName(firstId), firstId, lastId: firstId - 1 };
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

  private keep(event: StreamEvent): void {
    this.lastKept = Math.max(this.lastKept, event.id);
    this.all.push(event);
    let queue = this.byStream.get(event.stream);
    if (queue === undefined) {
      queue = new EventQueue();
      this.byStream.set(event.stream, queue);
    }
    queue.push(event);
  }

  /** Drops events from the head past the count and age bounds; removes segments left without events. */
  private applyBounds(): void {
    const oldest = (this.options.now ?? Date.now)() - this.options.maxAgeSeconds * 1000;
    let dropped: StreamEvent | undefined;
    for (let first = this.all.first(); first !== undefined; first = this.all.first()) {
      if (this.all.length <= this.options.maxEvents && Date.parse(first.eventTime) >= oldest) break;
      this.all.shift();
      this.byStream.get(first.stream)?.shift();
      this.droppedUpTo.set(first.stream, first.id);
      dropped = first;
    }
    if (dropped === undefined) return;
    const agedTime = this.state.agedTime !== undefined && this.state.agedTime > dropped.eventTime ? this.state.agedTime : dropped.eventTime;
    this.state = { ...this.state, agedTime };
    void this.housekeeping.run(() => this.removeDroppedSegments());
  }

  private async removeDroppedSegments(): Promise<void> {
    const keepFrom = this.all.first()?.id ?? Number.POSITIVE_INFINITY;
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

async function readState(directory: string): Promise<LogState | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(directory, STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const state = JSON.parse(text) as LogState;
  if (typeof state?.creationTime !== 'string' || typeof state.lastId !== 'number')
    throw new Error(`${STATE_FILE} is not a replay log state`);
  return state;
}

/** Reads every segment in id order, handing each event over; cuts a torn tail of the last segment. */
async function readSegments(directory: string, onEvent: (event: StreamEvent) => void): Promise<Segment[]> {
  const names = (await fs.readdir(directory)).filter((name) => SEGMENT_NAME.test(name)).sort();
  const segments: Segment[] = [];
  for (const [index, name] of names.entries()) {
    const firstId = Number(SEGMENT_NAME.exec(name)![1]);
    const segment: Segment = { name, firstId, lastId: firstId - 1 };
    const file = await fs.open(path.join(directory, name), 'r+');
    try {
      const { size } = await file.stat();
      const scan = await scanSegment(file, size, MAX_EVENT_BYTES, (payload) => {
        const event = parseEvent(payload, `${name} record ${segment.lastId - firstId + 2}`);
        segment.lastId = event.id;
        onEvent(event);
      });
      if (scan.damage) {
        const last = index === names.length - 1;
        const later = await findFrameAfter(file, size, scan.damage.offset, MAX_EVENT_BYTES);
        if (!last || later !== undefined) throw new Error(`${name} at offset ${scan.damage.offset}: ${scan.damage.reason}`);
        // A torn tail: the write a crash cut short was never acknowledged.
        await file.truncate(scan.validBytes);
        await file.sync();
      }
    } finally {
      await file.close();
    }
    segments.push(segment);
  }
  return segments;
}

/** Moves every file of the log into `damaged-<time>/` beside it; answers that folder. */
async function setAside(directory: string, now: number): Promise<string> {
  const aside = path.join(directory, `damaged-${new Date(now).toISOString().replace(/[:.]/g, '-')}`);
  await ensureDirectory(aside);
  for (const name of await fs.readdir(directory)) {
    if (name === STATE_FILE || SEGMENT_NAME.test(name)) await fs.rename(path.join(directory, name), path.join(aside, name));
  }
  await fsyncDirectory(directory);
  return aside;
}

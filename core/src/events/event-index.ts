/**
 * The replay log's in-memory index: per kept event a few numbers, never the event itself, so the
 * memory a log of `maxEvents` takes is bounded whatever the events carry. Two kinds (replay-log.ts has
 * one of each per event): the index across streams holds id, eventTime (ms) and the stream's number
 * (20 bytes: what the bounds drop from the head); a stream's index holds id, eventTime and where the
 * record sits, segment number, byte offset and length (32 bytes: what a replay reads).
 *
 * Columns are typed arrays that grow by doubling (amortized O(1) per push) and drop their head in O(1)
 * (compacted once the dropped head is as long as what is kept); binary searches find a replay's start
 * (after an id, or from a time). Float64 holds ids, times and offsets exactly (integers below 2^53). A
 * new index starts small: a service may have a stream per device.
 */

/** Where one event's record sits: a segment number of the log and the frame's byte span in it. */
export interface RecordLocation {
  readonly segment: number;
  readonly offset: number;
  readonly length: number;
}

const INITIAL_CAPACITY = 8;
const NO_LOCATION: RecordLocation = { segment: 0, offset: 0, length: 0 };

type Column = Float64Array | Uint32Array;

export class EventIndex {
  private ids: Float64Array;
  private times: Float64Array;
  /** The stream's number (across streams only). */
  private streams: Uint32Array;
  /** The record's place (a stream's index only). */
  private segments: Uint32Array;
  private offsets: Float64Array;
  private lengths: Uint32Array;
  private head = 0;
  private end = 0;

  /** `acrossStreams`: the index of every stream, with stream numbers and no locations. */
  constructor(private readonly acrossStreams: boolean) {
    const located = acrossStreams ? 0 : INITIAL_CAPACITY;
    this.ids = new Float64Array(INITIAL_CAPACITY);
    this.times = new Float64Array(INITIAL_CAPACITY);
    this.streams = new Uint32Array(acrossStreams ? INITIAL_CAPACITY : 0);
    this.segments = new Uint32Array(located);
    this.offsets = new Float64Array(located);
    this.lengths = new Uint32Array(located);
  }

  /** Entries kept. */
  get length(): number {
    return this.end - this.head;
  }

  /** Bytes the columns take (spare capacity included): what the index costs in memory. */
  get bytes(): number {
    return this.columns().reduce((sum, column) => sum + column.byteLength, 0);
  }

  push(id: number, time: number, stream: number, location: RecordLocation = NO_LOCATION): void {
    if (this.end === this.ids.length) this.grow();
    const i = this.end++;
    this.ids[i] = id;
    this.times[i] = time;
    if (this.acrossStreams) this.streams[i] = stream;
    else {
      this.segments[i] = location.segment;
      this.offsets[i] = location.offset;
      this.lengths[i] = location.length;
    }
  }

  /** Drops the oldest entry. */
  shift(): void {
    if (this.head === this.end) return;
    this.head += 1;
    if (this.head === this.end) this.head = this.end = 0;
    else if (this.head > 1024 && this.head * 2 > this.end) this.compact(this.ids.length);
  }

  /** The id of the `n`th kept entry (0 the oldest); undefined past the end. */
  idAt(n: number): number | undefined {
    return n < this.length ? this.ids[this.head + n] : undefined;
  }
  timeAt(n: number): number {
    return this.times[this.head + n]!;
  }
  streamAt(n: number): number {
    return this.streams[this.head + n]!;
  }
  locationAt(n: number): RecordLocation {
    const i = this.head + n;
    return { segment: this.segments[i]!, offset: this.offsets[i]!, length: this.lengths[i]! };
  }

  /** The position of the first entry with id greater than `afterId` (`length` when none is). */
  positionAfter(afterId: number): number {
    let low = this.head;
    let high = this.end;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.ids[mid]! <= afterId) low = mid + 1;
      else high = mid;
    }
    return low - this.head;
  }

  /** The id before the first entry with eventTime at or after `time` (for a start-time replay). */
  idBefore(time: number): number | undefined {
    let low = this.head;
    let high = this.end;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times[mid]! < time) low = mid + 1;
      else high = mid;
    }
    return low === this.end ? undefined : this.ids[low]! - 1;
  }

  private columns(): Column[] {
    return [this.ids, this.times, this.streams, this.segments, this.offsets, this.lengths];
  }

  private grow(): void {
    // Room freed at the head is reused before the columns double.
    this.compact(this.length * 2 > this.ids.length ? this.ids.length * 2 : this.ids.length);
  }

  /** Moves the kept entries to the start of columns of `capacity` (the same columns when it is theirs). */
  private compact(capacity: number): void {
    const move = <T extends Column>(column: T, make: (n: number) => T): T => {
      if (column.length === 0) return column; // a column this kind of index does not keep
      if (capacity === column.length) {
        column.copyWithin(0, this.head, this.end);
        return column;
      }
      const next = make(capacity);
      next.set(column.subarray(this.head, this.end));
      return next;
    };
    this.ids = move(this.ids, (n) => new Float64Array(n));
    this.times = move(this.times, (n) => new Float64Array(n));
    this.streams = move(this.streams, (n) => new Uint32Array(n));
    this.segments = move(this.segments, (n) => new Uint32Array(n));
    this.offsets = move(this.offsets, (n) => new Float64Array(n));
    this.lengths = move(this.lengths, (n) => new Uint32Array(n));
    this.end -= this.head;
    this.head = 0;
  }
}

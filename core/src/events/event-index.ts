/**
 * The replay log's in-memory index: per kept event its id, eventTime (ms), stream and where its record
 * sits on disk (segment number, byte offset, length), never the event itself, so the memory a log of
 * `maxEvents` takes is a fixed few tens of bytes per event whatever the events carry. One per stream
 * and one across all streams (replay-log.ts).
 *
 * Columns are typed arrays that grow by doubling (amortized O(1) per push) and drop their head in O(1)
 * (compacted once the dropped head is as long as what is kept); binary searches find a replay's start
 * (after an id, or from a time). Float64 holds ids, times and offsets exactly (integers below 2^53).
 */

/** Where one event's record sits: a segment number of the log and the frame's byte span in it. */
export interface RecordLocation {
  readonly segment: number;
  readonly offset: number;
  readonly length: number;
}

const INITIAL_CAPACITY = 64;

export class EventIndex {
  private ids = new Float64Array(INITIAL_CAPACITY);
  private times = new Float64Array(INITIAL_CAPACITY);
  /** The stream's number (the across-streams index; 0 in a per-stream one). */
  private streams = new Uint32Array(INITIAL_CAPACITY);
  private segments = new Uint32Array(INITIAL_CAPACITY);
  private offsets = new Float64Array(INITIAL_CAPACITY);
  private lengths = new Uint32Array(INITIAL_CAPACITY);
  private head = 0;
  private end = 0;

  /** Entries kept. */
  get length(): number {
    return this.end - this.head;
  }

  /** Bytes the columns take (capacity included): what the index costs in memory. */
  get bytes(): number {
    return this.ids.length * (8 + 8 + 4 + 4 + 8 + 4);
  }

  push(id: number, time: number, stream: number, location: RecordLocation): void {
    if (this.end === this.ids.length) this.grow();
    const i = this.end++;
    this.ids[i] = id;
    this.times[i] = time;
    this.streams[i] = stream;
    this.segments[i] = location.segment;
    this.offsets[i] = location.offset;
    this.lengths[i] = location.length;
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

  private grow(): void {
    // Room freed at the head is reused before the columns double.
    this.compact(this.length * 2 > this.ids.length ? this.ids.length * 2 : this.ids.length);
  }

  private compact(capacity: number): void {
    const move = <T extends Float64Array | Uint32Array>(column: T, make: (n: number) => T): T => {
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

/**
 * The event benchmark's subscribers: many Server-Sent-Events connections to one stream, each its own
 * socket (read off the socket by streaming-get.ts, not through Node's HTTP client), read as cheaply as a client can (one process holds them all, so parsing JSON per event per
 * subscriber would measure this process and not the service): each chunk is scanned for the writes'
 * markers (`"evb<n>"`, bench/events-writer.ts) and every complete line is stamped with the chunk's
 * arrival time. What it keeps: per subscriber, which of the measured writes it has seen (a byte each,
 * so a duplicate shows); for all, a histogram of the time from the write's 2xx answer to delivery.
 */
import { performance } from 'node:perf_hooks';
import { StreamingGet } from './streaming-get';

const MARKER = Buffer.from('"evb');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/** Latencies from 0 to 2 s in 0.05 ms buckets; longer ones are kept exactly (few, or the run failed anyway). */
const BUCKET_MS = 0.05;
const BUCKETS = 40_000;

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private readonly beyond: number[] = [];
  count = 0;
  /** Deliveries that reached the subscriber before the write's 2xx reached the writer (counted as 0 ms). */
  beforeAck = 0;

  add(ms: number): void {
    this.count += 1;
    if (ms <= 0) {
      if (ms < 0) this.beforeAck += 1;
      this.counts[0]! += 1;
    } else if (ms < BUCKET_MS * BUCKETS) this.counts[Math.floor(ms / BUCKET_MS)]! += 1;
    else this.beyond.push(ms);
  }

  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.min(this.count - 1, Math.floor(this.count * p));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen > rank) return (i + 0.5) * BUCKET_MS;
    }
    const sorted = [...this.beyond].sort((a, b) => a - b);
    return sorted[rank - seen] ?? sorted.at(-1) ?? 0;
  }
}

/** The measured writes: numbers first..first+capacity-1, each with its 2xx time once answered. */
export class MeasuredWrites {
  readonly acks: Float64Array;
  readonly latency = new LatencyHistogram();
  /** Deliveries that came before their write's 2xx: index, then arrival time. */
  private early: number[] = [];
  deliveries = 0;
  lastDelivery = 0;

  constructor(
    readonly first: number,
    readonly capacity: number,
  ) {
    this.acks = new Float64Array(capacity).fill(Number.NaN);
  }

  ack(n: number, at: number): void {
    const i = n - this.first;
    if (i >= 0 && i < this.capacity) this.acks[i] = at;
  }

  delivered(i: number, at: number): void {
    this.deliveries += 1;
    this.lastDelivery = at;
    const ack = this.acks[i]!;
    if (Number.isNaN(ack)) this.early.push(i, at);
    else this.latency.add(at - ack);
  }

  /** Settles the deliveries that beat their 2xx (negative latency); a write never answered is left out. */
  settle(): void {
    for (let j = 0; j < this.early.length; j += 2) {
      const ack = this.acks[this.early[j]!]!;
      if (!Number.isNaN(ack)) this.latency.add(this.early[j + 1]! - ack);
    }
    this.early = [];
  }
}

export class Subscriber {
  /** Whether any event (a `data:` line) has arrived: the subscription is live. */
  live = false;
  ended = false;
  status = 0;
  /** What the stream said last (its last 300 bytes), for a stream that ended early. */
  lastText = '';
  /** Measured writes seen (in range, counted once) and seen again. */
  seenCount = 0;
  duplicates = 0;
  private seen: Uint8Array = new Uint8Array(0);
  private measured: MeasuredWrites | undefined;
  private carry: Buffer | undefined;
  private readonly get: StreamingGet;

  constructor(url: URL, onResponse: (s: Subscriber) => void) {
    let answered = false;
    this.get = new StreamingGet(
      url,
      { accept: 'text/event-stream' },
      {
        onHead: (status) => {
          answered = true;
          this.status = status;
          onResponse(this);
        },
        onBody: (bytes, at) => this.read(bytes, at),
        onEnd: (error) => {
          this.ended = true;
          if (error === undefined || answered) return;
          this.lastText = error;
          onResponse(this);
        },
      },
      () => performance.now(),
    );
  }

  /** Starts counting the writes of `measured` (and forgets the previous set). */
  measure(measured: MeasuredWrites): void {
    this.measured = measured;
    this.seen = new Uint8Array(measured.capacity);
    this.seenCount = 0;
    this.duplicates = 0;
  }

  /** Measured writes answered 2xx that this subscriber has not seen. */
  missing(): number {
    const m = this.measured;
    if (m === undefined) return 0;
    let missing = 0;
    for (let i = 0; i < m.capacity; i++) if (!Number.isNaN(m.acks[i]!) && this.seen[i] === 0) missing += 1;
    return missing;
  }

  close(): void {
    this.get.close();
    this.ended = true;
  }

  /** Scans the complete lines of what has arrived; the unfinished last line waits for the next chunk. */
  private read(chunk: Buffer, at: number): void {
    const buf = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    const end = buf.lastIndexOf(NEWLINE);
    if (end < 0) {
      this.carry = buf;
      return;
    }
    this.carry = end === buf.length - 1 ? undefined : Buffer.from(buf.subarray(end + 1));
    const lines = buf.subarray(0, end);
    if (!this.live && lines.includes('data:')) this.live = true;
    this.lastText = lines.subarray(Math.max(0, lines.length - 300)).toString();
    const m = this.measured;
    if (m === undefined) return;
    for (let at0 = lines.indexOf(MARKER); at0 >= 0; at0 = lines.indexOf(MARKER, at0 + MARKER.length)) {
      let n = 0;
      let digits = 0;
      let p = at0 + MARKER.length;
      for (; p < lines.length && lines[p]! >= 0x30 && lines[p]! <= 0x39; p++, digits++) n = n * 10 + (lines[p]! - 0x30);
      // The value ends with its quote (escaped, should a stream carry the JSON as a string); else it is another description (the primer's).
      if (digits === 0 || (lines[p] !== QUOTE && lines[p] !== BACKSLASH)) continue;
      const i = n - m.first;
      if (i < 0 || i >= m.capacity) continue;
      if (this.seen[i] !== 0) {
        this.duplicates += 1;
        continue;
      }
      this.seen[i] = 1;
      this.seenCount += 1;
      m.delivered(i, at);
    }
  }
}

/**
 * The replay log's hot tail: the most recent kept events in full, across all streams, so that the
 * common replays (a subscriber a little behind its sink, a client reconnecting just after a blip) are
 * answered from memory and synchronously. Everything older is read from the segment files.
 *
 * Bounded by count and by bytes (the records' size on disk), whichever is reached first: 1,024 events
 * cover a subscriber's default buffer (1,000 live events) so a subscriber ended too-slow and resuming
 * at once reads memory, and 4 MB keeps the bound a user can reason about when events are large (with
 * 20 KB events the tail holds about 200). Being the newest kept events, the tail holds every kept event
 * from its first id on: a read that starts at or after `firstId` is served from it whole.
 */
import type { StreamEvent } from './types';

export const HOT_TAIL_EVENTS = 1024;
export const HOT_TAIL_BYTES = 4 * 1024 * 1024;

export class HotTail {
  private events: StreamEvent[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  private readonly byId = new Map<number, StreamEvent>();

  constructor(
    private readonly maxEvents = HOT_TAIL_EVENTS,
    private readonly maxBytes = HOT_TAIL_BYTES,
  ) {}

  /** Full events held. */
  get count(): number {
    return this.events.length - this.head;
  }

  /** The oldest id held; +Infinity when empty (no read is served from memory). */
  get firstId(): number {
    return this.events[this.head]?.id ?? Number.POSITIVE_INFINITY;
  }

  /** Takes the newest kept event (ids increasing), `bytes` its record's size; evicts the oldest past the bounds. */
  add(event: StreamEvent, bytes: number): void {
    this.events.push(event);
    this.sizes.push(bytes);
    this.byId.set(event.id, event);
    this.bytes += bytes;
    while (this.count > this.maxEvents || (this.bytes > this.maxBytes && this.count > 1)) this.evict();
  }

  get(id: number): StreamEvent | undefined {
    return this.byId.get(id);
  }

  /** Forgets the events with ids up to `id` (dropped from the log by its bounds). */
  dropThrough(id: number): void {
    while (this.count > 0 && this.events[this.head]!.id <= id) this.evict();
  }

  private evict(): void {
    const event = this.events[this.head]!;
    this.byId.delete(event.id);
    this.bytes -= this.sizes[this.head]!;
    this.head += 1;
    if (this.head === this.events.length) {
      this.events = [];
      this.sizes = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }
}

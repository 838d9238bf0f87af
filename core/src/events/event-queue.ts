/**
 * The replay log's in-memory index: events in id order, the head dropped in O(1) as the log's bounds
 * pass, and binary searches for a replay's start (after an id, or from a time). One per stream and one
 * across all streams (replay-log.ts).
 */
import type { StreamEvent } from './types';

/** A queue of events in id order whose head can be dropped in O(1). */
export class EventQueue {
  private items: StreamEvent[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }
  first(): StreamEvent | undefined {
    return this.items[this.head];
  }
  last(): StreamEvent | undefined {
    return this.length === 0 ? undefined : this.items[this.items.length - 1];
  }
  push(event: StreamEvent): void {
    this.items.push(event);
  }
  shift(): StreamEvent | undefined {
    const event = this.items[this.head];
    if (event === undefined) return undefined;
    this.head += 1;
    // Compact once the dropped head is as long as what is kept: amortized O(1) per event.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return event;
  }
  /** Up to `limit` events with id greater than `afterId`, in order. */
  after(afterId: number, limit: number): StreamEvent[] {
    let low = this.head;
    let high = this.items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.items[mid]!.id <= afterId) low = mid + 1;
      else high = mid;
    }
    return this.items.slice(low, low + limit);
  }
  /** The id before the first event with eventTime at or after `time` (for a start-time replay). */
  idBefore(time: number): number | undefined {
    let low = this.head;
    let high = this.items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (Date.parse(this.items[mid]!.eventTime) < time) low = mid + 1;
      else high = mid;
    }
    return low === this.items.length ? undefined : this.items[low]!.id - 1;
  }
}

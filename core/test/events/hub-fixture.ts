/**
 * What the event tests share: a hub in a temporary folder (closed and removed when the test ends),
 * sinks that record what they are given (one event at a time, or in batches) and can refuse more, and
 * a bounded wait.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutionContext } from 'ava';
import { EventHub, type EventHubOptions, type EventSink, type StreamEvent, type SubscriptionEnd } from '../../src/events';

export function temporaryDirectory(t: ExecutionContext): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-events-'));
  t.teardown(() => fs.rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/**
 * Opens a hub with the three test streams (`a` and `b` with replay, `live` without). Its fan-out is
 * unpaced unless `settings` say otherwise, so that a test sees what a publish offered as soon as the
 * publish resolves (pacing.test.ts tests the pace).
 */
export async function openHub(t: ExecutionContext, directory: string, options: Partial<EventHubOptions> = {}): Promise<EventHub> {
  const hub = await EventHub.open({ directory, ...options, settings: { deliveryIntervalMs: 0, ...options.settings } });
  hub.defineStream({ name: 'a', description: 'a', replay: true });
  hub.defineStream({ name: 'b', description: 'b', replay: true });
  hub.defineStream({ name: 'live', description: 'live only', replay: false });
  t.teardown(() => hub.close());
  return hub;
}

export class RecordingSink implements EventSink {
  readonly events: StreamEvent[] = [];
  ended: SubscriptionEnd | undefined;
  /** Answer false (full) once this many events have been taken. */
  constructor(public capacity = Number.POSITIVE_INFINITY) {}

  get ids(): number[] {
    return this.events.map((e) => e.id);
  }
  deliver(event: StreamEvent): boolean {
    this.events.push(event);
    return this.events.length < this.capacity;
  }
  end(why: SubscriptionEnd): void {
    this.ended = why;
  }
}

/** A sink that takes batches (as the SSE sink does) and records each batch it is handed. */
export class BatchSink implements EventSink {
  readonly batches: (readonly StreamEvent[])[] = [];
  ended: SubscriptionEnd | undefined;
  /** Answer false (full) after any batch once this many events have been taken. */
  constructor(public capacity = Number.POSITIVE_INFINITY) {}

  get ids(): number[] {
    return this.batches.flat().map((e) => e.id);
  }
  deliver(event: StreamEvent): boolean {
    return this.deliverBatch([event]);
  }
  deliverBatch(events: readonly StreamEvent[]): boolean {
    this.batches.push(events);
    return this.ids.length < this.capacity;
  }
  end(why: SubscriptionEnd): void {
    this.ended = why;
  }
}

/** Waits until `done()` holds, at most `ms`; fails the test with `what` otherwise. */
export async function waitFor(t: ExecutionContext, what: string, done: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) t.fail(`timed out waiting for ${what}`);
    if (Date.now() > until) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

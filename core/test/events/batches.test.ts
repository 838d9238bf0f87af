// Delivery in batches: the events one group commit makes durable reach a subscriber together, in id
// order, as the same array for every unfiltered subscriber; a sink that fills mid-batch gets nothing
// more until drained, and one that falls more than its buffer behind mid-batch is ended too-slow.
import test from 'ava';
import type { EventHub, StreamEvent } from '../../src/events';
import { BatchSink, RecordingSink, openHub, temporaryDirectory } from './hub-fixture';

/**
 * Publishes `count` events to `a` without waiting between them: the first starts the log's write and
 * the others share the next one, so they are made durable (and offered) as one batch.
 */
function burst(hub: EventHub, count: number): Promise<StreamEvent[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => hub.publish('a', { content: { 'x:n': i } })));
}

test('a group commit reaches a batch-taking subscriber as one batch in id order, the same array for every unfiltered one', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const first = new BatchSink();
  const second = new BatchSink();
  const one = new RecordingSink();
  hub.subscribe('a', {}, first);
  hub.subscribe('a', {}, second);
  hub.subscribe('a', {}, one);
  const published = await burst(hub, 20);
  const ids = published.map((e) => e.id);
  t.deepEqual(first.ids, ids);
  t.deepEqual(one.ids, ids, 'a sink taking one event at a time gets the same events in the same order');
  t.true(
    first.batches.some((batch) => batch.length > 1),
    `events written together come together (batches: ${first.batches.map((b) => b.length).join(', ')})`,
  );
  t.is(first.batches.length, second.batches.length);
  for (const [i, batch] of first.batches.entries()) t.is(batch, second.batches[i], 'both are handed the very same array');
});

test('a filter applies to each event of a batch, keeping their order', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const even = new BatchSink();
  hub.subscribe('a', { accept: (event) => (event.content['x:n'] as number) % 2 === 0 }, even);
  const published = await burst(hub, 20);
  t.deepEqual(
    even.ids,
    published.filter((_, i) => i % 2 === 0).map((e) => e.id),
  );
});

test('a one-at-a-time sink that fills mid-batch gets nothing more until drained, then the rest in order', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sink = new RecordingSink(3);
  const subscription = hub.subscribe('a', {}, sink);
  const published = await burst(hub, 20);
  t.deepEqual(
    sink.ids,
    published.slice(0, 3).map((e) => e.id),
  );
  const later = await hub.publish('a', { content: { 'x:n': 20 } });
  t.is(sink.events.length, 3, 'a full sink is handed nothing, not even a new batch');
  sink.capacity = Number.POSITIVE_INFINITY;
  subscription.drained();
  t.deepEqual(sink.ids, [...published.map((e) => e.id), later.id]);
});

test('a full batch-taking sink gets nothing more until drained, then the backlog as one batch', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sink = new BatchSink(1);
  const subscription = hub.subscribe('a', {}, sink);
  const published = await burst(hub, 20);
  t.deepEqual(
    sink.ids,
    published.slice(0, 1).map((e) => e.id),
    'the first commit held the first event alone; the sink was full after it',
  );
  sink.capacity = Number.POSITIVE_INFINITY;
  subscription.drained();
  t.deepEqual(
    sink.ids,
    published.map((e) => e.id),
  );
  t.is(sink.batches.length, 2, 'what waited is handed over at once');
});

test('a subscriber that falls more than its buffer behind mid-batch is ended too-slow with the last id it got', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { settings: { subscriberBufferEvents: 4 } });
  const slow = new RecordingSink(2);
  const slowBatches = new BatchSink(1);
  const fast = new BatchSink();
  hub.subscribe('a', {}, slow);
  hub.subscribe('a', {}, slowBatches);
  hub.subscribe('a', {}, fast);
  const published = await burst(hub, 20);
  t.deepEqual(slow.ended, { reason: 'too-slow', lastDeliveredId: published[1]!.id });
  t.deepEqual(
    slow.ids,
    published.slice(0, 2).map((e) => e.id),
  );
  t.deepEqual(slowBatches.ended, { reason: 'too-slow', lastDeliveredId: published[0]!.id });
  t.deepEqual(
    fast.ids,
    published.map((e) => e.id),
  );
  t.is(fast.ended, undefined);
});

test('a replay read goes to a batch-taking sink as batches, and stop-time mid-batch ends it after the events before it', async (t) => {
  let now = Date.parse('2026-11-27T10:00:00Z');
  const hub = await openHub(t, temporaryDirectory(t), { now: () => now });
  const published: StreamEvent[] = [];
  for (let i = 0; i < 10; i++) {
    published.push(await hub.publish('a', { content: { 'x:n': i } }));
    now += 1000;
  }
  const all = new BatchSink();
  hub.subscribe('a', { startTime: new Date(0) }, all);
  t.deepEqual(
    all.batches.map((b) => b.map((e) => e.id)),
    [published.map((e) => e.id)],
  );
  const upTo = new BatchSink();
  hub.subscribe('a', { startTime: new Date(0), stopTime: new Date(published[5]!.eventTime) }, upTo);
  t.deepEqual(
    upTo.ids,
    published.slice(0, 6).map((e) => e.id),
  );
  t.deepEqual(upTo.ended, { reason: 'stop-time' });
});

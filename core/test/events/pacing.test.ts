// Paced fan-out: an event of an idle stream is offered as soon as it is durable; events made durable
// within the interval after a fan-out wait for the next one and are offered together, in id order,
// none lost or twice, also to a subscriber that replayed them from the log while they waited.
import test from 'ava';
import { BatchSink, RecordingSink, openHub, temporaryDirectory, waitFor } from './hub-fixture';

const INTERVAL_MS = 300;

test("an idle stream's event is offered once durable, without waiting for the interval", async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { settings: { deliveryIntervalMs: 60_000 } });
  const sink = new BatchSink();
  hub.subscribe('a', {}, sink);
  const event = await hub.publish('a', { content: { 'x:n': 0 } });
  t.deepEqual(sink.ids, [event.id], 'offered by the time its publish resolved');
});

test('events close behind a fan-out wait for the next one and come together, in order, none lost or twice', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { settings: { deliveryIntervalMs: INTERVAL_MS } });
  const batches = new BatchSink();
  const single = new RecordingSink();
  hub.subscribe('a', {}, batches);
  hub.subscribe('a', {}, single);
  const published = [];
  // One at a time: each its own group commit, which unpaced would be its own fan-out.
  for (let i = 0; i < 10; i++) published.push(await hub.publish('a', { content: { 'x:n': i } }));
  const ids = published.map((e) => e.id);
  await waitFor(t, 'every event to be offered', () => batches.ids.length >= ids.length && single.ids.length >= ids.length);
  t.deepEqual(batches.ids, ids);
  t.deepEqual(single.ids, ids, 'a sink taking one event at a time gets the same');
  t.true(
    batches.batches.length < ids.length,
    `commits within the interval share a fan-out (batches: ${batches.batches.map((b) => b.length).join(', ')})`,
  );

  // Once the stream has been idle for the interval, the next event goes at once again.
  await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 50));
  const later = await hub.publish('a', { content: { 'x:n': 10 } });
  t.deepEqual(batches.ids, [...ids, later.id]);
});

test('a subscriber that replays events still waiting for their fan-out gets each once, in order', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { settings: { deliveryIntervalMs: INTERVAL_MS } });
  const first = await hub.publish('a', { content: { 'x:n': 0 } });
  const waiting = [await hub.publish('a', { content: { 'x:n': 1 } }), await hub.publish('a', { content: { 'x:n': 2 } })];
  const sink = new RecordingSink();
  hub.subscribe('a', { afterId: first.id }, sink);
  t.deepEqual(
    sink.ids,
    waiting.map((e) => e.id),
    'the replay reads them from the log',
  );
  const live = await hub.publish('a', { content: { 'x:n': 3 } });
  await waitFor(t, 'the live event', () => sink.ids.includes(live.id));
  t.deepEqual(
    sink.ids,
    [...waiting, live].map((e) => e.id),
    'the waiting ones, offered later, are not handed again',
  );
});

test('events of streams with and without replay keep their own order under pacing; closing drops what waits', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { settings: { deliveryIntervalMs: INTERVAL_MS } });
  const a = new RecordingSink();
  const live = new RecordingSink();
  hub.subscribe('a', {}, a);
  hub.subscribe('live', {}, live);
  const published = await Promise.all(
    Array.from({ length: 20 }, (_, i) => hub.publish(i % 2 === 0 ? 'a' : 'live', { content: { 'x:n': i } })),
  );
  await waitFor(t, 'both streams', () => a.ids.length + live.ids.length >= published.length);
  t.deepEqual(
    a.ids,
    published.filter((e) => e.stream === 'a').map((e) => e.id),
  );
  t.deepEqual(
    live.ids,
    published.filter((e) => e.stream === 'live').map((e) => e.id),
  );
  await hub.publish('a', { content: { 'x:n': 20 } });
  await hub.close();
  t.deepEqual(a.ended, { reason: 'closed' });
});

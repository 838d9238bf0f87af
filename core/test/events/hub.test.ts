// The event hub: events numbered in publish order, durable before publish resolves, replayed after a
// reopen with ids continuing, subscribers that join during a burst get every event once, a slow
// subscriber is ended without holding up the others, and subscription requests are refused by name.
import test from 'ava';
import { EventError } from '../../src/events';
import { RecordingSink, openHub, temporaryDirectory } from './hub-fixture';

test('events are numbered in publish order and a subscriber receives them in that order', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sink = new RecordingSink();
  hub.subscribe('a', {}, sink);
  const published = await Promise.all(Array.from({ length: 50 }, (_, i) => hub.publish('a', { content: { 'x:n': i } })));
  t.deepEqual(
    published.map((e) => e.id),
    published.map((_, i) => published[0]!.id + i),
  );
  t.deepEqual(
    sink.ids,
    published.map((e) => e.id),
  );
  t.deepEqual(
    sink.events.map((e) => e.content['x:n']),
    published.map((_, i) => i),
  );
});

test('the log survives a reopen: ids continue, the creation time is kept, Last-Event-ID and start-time replay', async (t) => {
  const directory = temporaryDirectory(t);
  const first = await openHub(t, directory);
  const before = [];
  for (let i = 0; i < 5; i++) before.push(await first.publish(i % 2 ? 'b' : 'a', { content: { 'x:n': i } }));
  const creationTime = first.replayState().creationTime;
  await first.close();

  const second = await openHub(t, directory);
  t.is(second.replayState().creationTime, creationTime);
  t.is(second.replayState().firstId, before[0]!.id);
  const next = await second.publish('a', { content: { 'x:n': 5 } });
  t.is(next.id, before[4]!.id + 1);

  const resumed = new RecordingSink();
  second.subscribe('a', { afterId: before[0]!.id }, resumed);
  t.deepEqual(resumed.ids, [before[2]!.id, before[4]!.id, next.id]);
  const fromStart = new RecordingSink();
  second.subscribe('b', { startTime: new Date(0) }, fromStart);
  t.deepEqual(fromStart.ids, [before[1]!.id, before[3]!.id]);
});

test('subscribers that join while events are being published get each event once, without a gap', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sinks: RecordingSink[] = [];
  const publishes = [];
  for (let i = 0; i < 400; i++) {
    publishes.push(hub.publish('a', { content: { 'x:n': i } }));
    if (i % 40 === 7) {
      await new Promise((resolve) => setImmediate(resolve));
      const sink = new RecordingSink();
      hub.subscribe('a', { startTime: new Date(0) }, sink);
      sinks.push(sink);
    }
  }
  const all = (await Promise.all(publishes)).map((e) => e.id);
  for (const sink of sinks) t.deepEqual(sink.ids, all);
});

test('a subscriber more than its buffer behind is ended too-slow with its last id; the others get everything', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { settings: { subscriberBufferEvents: 10 } });
  const slow = new RecordingSink(3);
  const fast = new RecordingSink();
  hub.subscribe('a', {}, slow);
  hub.subscribe('a', {}, fast);
  const published = [];
  for (let i = 0; i < 30; i++) published.push(await hub.publish('a', { content: { 'x:n': i } }));
  t.deepEqual(slow.ended, { reason: 'too-slow', lastDeliveredId: published[2]!.id });
  t.deepEqual(
    fast.ids,
    published.map((e) => e.id),
  );
  t.is(fast.ended, undefined);
  // It resumes from its last id and catches up from the log.
  const resumed = new RecordingSink();
  hub.subscribe('a', { afterId: published[2]!.id }, resumed);
  t.deepEqual(
    resumed.ids,
    published.slice(3).map((e) => e.id),
  );
});

test('a sink that refuses more is paused and resumed by drained()', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  for (let i = 0; i < 600; i++) void hub.publish('a', { content: { 'x:n': i } });
  await hub.publish('a', { content: { 'x:n': 600 } });
  const sink = new RecordingSink(100);
  const subscription = hub.subscribe('a', { startTime: new Date(0) }, sink);
  t.is(sink.events.length, 100);
  sink.capacity = Number.POSITIVE_INFINITY;
  subscription.drained();
  t.is(sink.events.length, 601);
  await hub.publish('a', { content: { 'x:n': 601 } });
  t.is(sink.events.length, 602);
});

test('stop-time ends a replay once it is passed', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
  await hub.publish('a', { content: { 'x:n': 0 }, eventTime: hoursAgo(6).toISOString() });
  await hub.publish('a', { content: { 'x:n': 1 }, eventTime: hoursAgo(4).toISOString() });
  await hub.publish('a', { content: { 'x:n': 2 }, eventTime: hoursAgo(2).toISOString() });
  const sink = new RecordingSink();
  hub.subscribe('a', { startTime: hoursAgo(5), stopTime: hoursAgo(3) }, sink);
  t.deepEqual(
    sink.events.map((e) => e.content['x:n']),
    [1],
  );
  t.deepEqual(sink.ended, { reason: 'stop-time' });
});

test('a live stream delivers at once, keeps nothing and refuses start-time', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sink = new RecordingSink();
  hub.subscribe('live', {}, sink);
  const event = await hub.publish('live', { content: { 'x:n': 1 } });
  t.deepEqual(sink.ids, [event.id]);
  const error = t.throws(() => hub.subscribe('live', { startTime: new Date(0) }, new RecordingSink()), { instanceOf: EventError });
  t.is(error?.code, 'replay-unsupported');
  t.is(error?.status, 400);
  const late = new RecordingSink();
  hub.subscribe('live', { afterId: 0 }, late);
  t.deepEqual(late.ids, []);
});

test('unknown streams and bad ranges are refused with their codes', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const unknown = t.throws(() => hub.subscribe('nope', {}, new RecordingSink()), { instanceOf: EventError });
  t.is(unknown?.status, 404);
  t.is(unknown?.code, 'unknown-stream');
  await t.throwsAsync(hub.publish('nope', { content: {} }), { instanceOf: EventError });
  const range = t.throws(() => hub.subscribe('a', { startTime: new Date(2000), stopTime: new Date(1000) }, new RecordingSink()), {
    instanceOf: EventError,
  });
  t.is(range?.code, 'bad-range');
});

test('removing a stream ends its subscriptions', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sink = new RecordingSink();
  hub.subscribe('b', {}, sink);
  hub.removeStream('b');
  t.deepEqual(sink.ended, { reason: 'stream-removed' });
  t.is(hub.stream('b'), undefined);
});

test('closing the hub ends subscriptions and waits for queued publishes', async (t) => {
  const directory = temporaryDirectory(t);
  const hub = await openHub(t, directory);
  const sink = new RecordingSink();
  hub.subscribe('a', {}, sink);
  const pending = Array.from({ length: 20 }, (_, i) => hub.publish('a', { content: { 'x:n': i } }));
  await hub.close();
  await Promise.all(pending);
  t.deepEqual(sink.ended, { reason: 'closed' });
  const reopened = await openHub(t, directory);
  const replay = new RecordingSink();
  reopened.subscribe('a', { startTime: new Date(0) }, replay);
  t.is(replay.events.length, 20);
});

test('a hub whose events are numbered elsewhere takes their ids, publishes an id it holds once, and refuses an event without one', async (t) => {
  const directory = temporaryDirectory(t);
  const hub = await openHub(t, directory, { numberedElsewhere: true });
  const sink = new RecordingSink();
  hub.subscribe('a', {}, sink);
  await t.throwsAsync(hub.publish('a', { content: { 'x:n': 0 } }), { message: /without an id/ });
  // gaps are others' events of streams this instance lacks
  for (const id of [3, 7, 8]) await hub.publish('a', { content: { 'x:n': id } }, id);
  await hub.publish('a', { content: { 'x:n': 7 } }, 7); // delivered again (a relay read twice): not published twice
  t.deepEqual(sink.ids, [3, 7, 8]);
  t.is(hub.lastId, 8);
  await hub.close();
  const reopened = await openHub(t, directory, { numberedElsewhere: true });
  t.is(reopened.lastId, 8);
  const resumed = new RecordingSink();
  reopened.subscribe('a', { afterId: 3 }, resumed);
  t.deepEqual(resumed.ids, [7, 8]);
  // an id past this hub's (another instance gave it, this one has yet to take it in) is not given again
  const ahead = new RecordingSink();
  reopened.subscribe('a', { afterId: 10 }, ahead);
  for (const id of [10, 11]) await reopened.publish('a', { content: { 'x:n': id } }, id);
  t.deepEqual(ahead.ids, [11]);
  t.deepEqual(resumed.ids, [7, 8, 10, 11]);
});

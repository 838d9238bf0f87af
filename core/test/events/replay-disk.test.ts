// The replay log keeps an index in memory and the events on disk: replays longer than the hot tail are
// read from the segment files (from a live log and after a reopen) with no gap or duplicate at the seam
// with live events; large events do not stay in memory; the age bound removes segments on its timer; a
// segment deleted under a replaying subscriber ends it `replay-failed` and the others go on.
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { ReplayLog } from '../../src/events/replay-log';
import { HOT_TAIL_BYTES, HOT_TAIL_EVENTS } from '../../src/events/replay-tail';
import type { StreamEvent } from '../../src/events/types';
import { BatchSink, RecordingSink, openHub, temporaryDirectory, waitFor } from './hub-fixture';

function segments(directory: string): string[] {
  return fs
    .readdirSync(directory)
    .filter((name) => name.startsWith('events-'))
    .sort();
}

/** Publishes `count` events, one in three on `b` (so `a`'s records are not contiguous); answers `a`'s ids. */
async function publishMany(hub: Awaited<ReturnType<typeof openHub>>, count: number, from = 0): Promise<number[]> {
  const published = await Promise.all(
    Array.from({ length: count }, (_, i) => hub.publish((from + i) % 3 === 2 ? 'b' : 'a', { content: { 'x:n': from + i } })),
  );
  return published.filter((event) => event.stream === 'a').map((event) => event.id);
}

test('20,000 events replay in order from disk, from a live log and after a reopen, with live ones after them', async (t) => {
  const directory = temporaryDirectory(t);
  const hub = await openHub(t, directory);
  const kept = await publishMany(hub, 20_000);
  t.true(segments(directory).length >= 2);

  const whole = new RecordingSink();
  const batches = new BatchSink();
  const paused = new RecordingSink(3000);
  const subscriptions = [whole, batches, paused].map((sink) => hub.subscribe('a', { startTime: new Date(0) }, sink));
  // More than the hot tail: the replay reads the disk, so nothing was handed synchronously.
  t.is(whole.events.length, 0);
  // Events keep being published during the replay: they follow the replayed ones exactly once.
  const during = await publishMany(hub, 600, 20_000);
  const expected = [...kept, ...during];
  await waitFor(t, 'the replays', () => whole.ids.length >= expected.length && batches.ids.length >= expected.length, 60_000);
  await waitFor(t, 'the paused sink to fill', () => paused.events.length === 3000);
  paused.capacity = Number.POSITIVE_INFINITY;
  subscriptions[2]!.drained();
  await waitFor(t, 'the paused replay', () => paused.ids.length >= expected.length, 60_000);
  const after = await publishMany(hub, 3, 20_600);
  for (const sink of [whole, batches, paused]) {
    t.deepEqual(sink.ids, [...expected, ...after]);
    t.is(sink.ended, undefined);
  }
  t.deepEqual(
    whole.events.slice(0, 3).map((event) => event.content['x:n']),
    [0, 1, 3],
  );
  await hub.close();

  const reopened = await openHub(t, directory);
  const resumed = new BatchSink();
  reopened.subscribe('a', { afterId: 0 }, resumed);
  const more = publishMany(reopened, 30, 30_000);
  await waitFor(t, 'the replay after the reopen', () => resumed.ids.length >= expected.length + after.length + 20, 60_000);
  t.deepEqual(resumed.ids, [...expected, ...after, ...(await more)]);
});

test('large events stay on disk: the log holds no more of them in full than its hot tail', async (t) => {
  const directory = temporaryDirectory(t);
  const log = await ReplayLog.open({ directory, maxEvents: 100_000, maxAgeSeconds: 86_400 });
  t.teardown(() => log.close());
  const large = 'x'.repeat(20 * 1024);
  const events: StreamEvent[] = [];
  for (let i = 0; i < 2000; i++) {
    const event: StreamEvent = { id: log.nextId(), stream: 'a', eventTime: new Date().toISOString(), content: { 'x:s': `${i}${large}` } };
    events.push(event);
  }
  await Promise.all(events.map((event) => log.append(event)));
  t.true(log.fullEventsHeld > 0);
  t.true(log.fullEventsHeld <= HOT_TAIL_EVENTS);
  t.true(log.fullEventsHeld * large.length <= HOT_TAIL_BYTES);
  // The index: a few tens of bytes per event (its spare capacity included), not the events' 40 MB.
  t.true(log.indexBytes < 2000 * 60, `${log.indexBytes} bytes of index`);
  const cold = log.eventsAfter('a', 0, 3);
  t.true(cold instanceof Promise);
  t.deepEqual(await cold, events.slice(0, 3));
  const hot = log.eventsAfter('a', events[1998]!.id, 10);
  t.deepEqual(hot, events.slice(1999));
});

test('the byte bound keeps the newest events whose records fit in replayMaxBytes, also after a reopen', async (t) => {
  const directory = temporaryDirectory(t);
  const maxBytes = 1024 * 1024;
  const open = () => ReplayLog.open({ directory, maxEvents: 100_000, maxAgeSeconds: 86_400, maxBytes });
  const log = await open();
  const large = 'x'.repeat(20 * 1024);
  const events: StreamEvent[] = [];
  for (let i = 0; i < 200; i++)
    events.push({ id: log.nextId(), stream: 'a', eventTime: new Date().toISOString(), content: { 'x:s': `${i}${large}` } });
  await Promise.all(events.map((event) => log.append(event)));
  // 200 records of 20 KB are 4 MB: only the newest that fit in 1 MB are kept, and the client is told the rest aged out
  const keptFrom = log.firstId!;
  const kept = events.filter((event) => event.id >= keptFrom);
  t.true(kept.length > 40 && kept.length <= 51, `${kept.length} events kept`);
  t.is(kept[kept.length - 1]!.id, events[199]!.id);
  t.is(log.droppedThrough('a'), keptFrom - 1);
  t.truthy(log.agedTime);
  t.deepEqual(await log.eventsAfter('a', 0, 1000), kept);
  await log.close();
  const reopened = await open();
  t.teardown(() => reopened.close());
  t.is(reopened.firstId, keptFrom);
});

test('the age bound drops events and removes their segments on its timer, with no call into the log', async (t) => {
  const directory = temporaryDirectory(t);
  let now = Date.parse('2030-01-01T00:00:00Z');
  const open = () => ReplayLog.open({ directory, maxEvents: 100, maxAgeSeconds: 60, now: () => now, boundsIntervalMs: 10 });
  const append = async (log: ReplayLog) => {
    const event: StreamEvent = { id: log.nextId(), stream: 'a', eventTime: new Date(now).toISOString(), content: {} };
    await log.append(event);
    return event;
  };
  const first = await open();
  const old = await append(first);
  await first.close();
  now += 30_000;
  const log = await open();
  t.teardown(() => log.close());
  const recent = await append(log);
  t.is(segments(directory).length, 2);
  now += 45_000; // the first event is now past the age bound, the second is not
  await waitFor(t, 'the timer to remove the aged segment', () => segments(directory).length === 1);
  t.is(log.agedTime, old.eventTime);
  t.deepEqual(await log.eventsAfter('a', 0, 10), [recent]);
  await log.close(); // the state file is written after the segment goes
  t.is(JSON.parse(fs.readFileSync(path.join(directory, 'replay-log.json'), 'utf8')).agedTime, old.eventTime);
});

test('a segment deleted under a replaying subscriber ends it replay-failed naming the file; the others go on', async (t) => {
  const directory = temporaryDirectory(t);
  const logs: string[] = [];
  const hub = await openHub(t, directory, { log: (message) => logs.push(message) });
  const kept = await publishMany(hub, 3000);
  const replaying = new RecordingSink(300);
  const subscription = hub.subscribe('a', { startTime: new Date(0) }, replaying);
  await waitFor(t, 'the replay to pause', () => replaying.events.length === 300);
  const live = new RecordingSink();
  hub.subscribe('a', {}, live);
  const [name] = segments(directory);
  fs.rmSync(path.join(directory, name!));
  replaying.capacity = Number.POSITIVE_INFINITY;
  subscription.drained();
  await waitFor(t, 'the replay to fail', () => replaying.ended !== undefined);
  t.is(replaying.ended?.reason, 'replay-failed');
  t.regex(replaying.ended?.reason === 'replay-failed' ? replaying.ended.message : '', new RegExp(name!.replace('.', '\\.')));
  t.is(replaying.events.length, 300);
  t.true(logs.some((message) => message.includes(name!)));
  // The service goes on: publishing, live delivery and a replay from the hot tail still work.
  const next = await publishMany(hub, 3, 3000);
  t.deepEqual(live.ids, next);
  const recent = new RecordingSink();
  hub.subscribe('a', { afterId: kept.at(-1)! }, recent);
  t.deepEqual(recent.ids, next);
});

test('a subscription closed or ended while its replay reads the disk takes nothing more', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const kept = await publishMany(hub, 3000);
  const closed = new RecordingSink();
  hub.subscribe('a', { startTime: new Date(0) }, closed).close();
  const removed = new RecordingSink();
  hub.subscribe('b', { startTime: new Date(0) }, removed);
  hub.removeStream('b');
  t.deepEqual(removed.ended, { reason: 'stream-removed' });
  // Another replay of the same events, many reads long, finishes after the first reads did.
  const other = new RecordingSink();
  hub.subscribe('a', { startTime: new Date(0) }, other);
  await waitFor(t, 'the other replay', () => other.events.length === kept.length, 30_000);
  for (let i = 0; i < 3; i++) await hub.publish('a', { content: { 'x:n': 3000 + i } });
  t.deepEqual(closed.events, []);
  t.is(closed.ended, undefined);
  t.deepEqual(removed.events, []);
  t.is(hub.subscriberCount('a'), 1);
});

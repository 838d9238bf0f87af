// The replay log's bounds and damage rules: the oldest events go first past the count and the age,
// replay-log-aged-time says so and survives a reopen; a torn tail is cut, other damage is set aside by
// name with a new log (new creation time, ids continuing) and the hub still opens.
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { RecordingSink, openHub, temporaryDirectory } from './hub-fixture';

function segments(directory: string): string[] {
  return fs
    .readdirSync(directory)
    .filter((name) => name.startsWith('events-'))
    .sort();
}

test('past replayMaxEvents the oldest events are dropped and the aged time is the newest dropped one', async (t) => {
  const directory = temporaryDirectory(t);
  const hub = await openHub(t, directory, { settings: { replayMaxEvents: 5 } });
  const published = [];
  for (let i = 0; i < 8; i++) published.push(await hub.publish(i === 7 ? 'b' : 'a', { content: { 'x:n': i } }));
  t.is(hub.replayState().firstId, published[3]!.id);
  t.is(hub.replayState().agedTime, published[2]!.eventTime);
  const replay = new RecordingSink();
  hub.subscribe('a', { startTime: new Date(0) }, replay);
  t.deepEqual(
    replay.ids,
    published.slice(3, 7).map((e) => e.id),
  );
  // A resume point older than the head starts at the head; replayState tells what was missed.
  const behind = new RecordingSink();
  hub.subscribe('a', { afterId: published[0]!.id }, behind);
  t.deepEqual(behind.ids, replay.ids);
  t.is(behind.ended, undefined);
  await hub.close();
  const reopened = await openHub(t, directory, { settings: { replayMaxEvents: 5 } });
  t.is(reopened.replayState().firstId, published[3]!.id);
  t.is(reopened.replayState().agedTime, published[2]!.eventTime);
});

test('past replayMaxAgeSeconds events are dropped by their age', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const hub = await openHub(t, temporaryDirectory(t), { settings: { replayMaxAgeSeconds: 60 }, now: () => now });
  const old = await hub.publish('a', { content: { 'x:n': 0 } });
  now += 30_000;
  const recent = await hub.publish('a', { content: { 'x:n': 1 } });
  t.is(hub.replayState().firstId, old.id);
  now += 45_000;
  t.is(hub.replayState().firstId, recent.id);
  t.is(hub.replayState().agedTime, old.eventTime);
  now += 60_000;
  t.is(hub.replayState().firstId, undefined);
});

test('segments whose events were all dropped are removed from the disk, and the aged time stays', async (t) => {
  const directory = temporaryDirectory(t);
  const first = await openHub(t, directory);
  await first.publish('a', { content: { 'x:n': 0 } });
  await first.close();
  const second = await openHub(t, directory);
  const kept = await second.publish('a', { content: { 'x:n': 1 } });
  await second.close();
  t.is(segments(directory).length, 2);
  // Reopened with a bound of one: the first run's segment holds only dropped events.
  const third = await openHub(t, directory, { settings: { replayMaxEvents: 1 } });
  await third.close();
  t.is(segments(directory).length, 1);
  const fourth = await openHub(t, directory);
  t.is(fourth.replayState().firstId, kept.id);
  t.truthy(fourth.replayState().agedTime);
});

test('a torn tail of the last segment is cut: the events before it are kept', async (t) => {
  const directory = temporaryDirectory(t);
  const hub = await openHub(t, directory);
  const published = [await hub.publish('a', { content: { 'x:n': 0 } }), await hub.publish('a', { content: { 'x:n': 1 } })];
  await hub.close();
  const last = path.join(directory, segments(directory).at(-1)!);
  fs.appendFileSync(last, Buffer.from([200, 0, 0, 0, 1, 2]));
  const logs: string[] = [];
  const reopened = await openHub(t, directory, { log: (m) => logs.push(m) });
  const replay = new RecordingSink();
  reopened.subscribe('a', { startTime: new Date(0) }, replay);
  t.deepEqual(
    replay.ids,
    published.map((e) => e.id),
  );
  t.deepEqual(logs, []);
  t.is((await reopened.publish('a', { content: { 'x:n': 2 } })).id, published[1]!.id + 1);
});

test('a damaged record with good ones after it is set aside by name; a new log begins and ids continue', async (t) => {
  const directory = temporaryDirectory(t);
  const hub = await openHub(t, directory);
  const published = [];
  for (let i = 0; i < 3; i++) published.push(await hub.publish('a', { content: { 'x:n': i } }));
  const creationTime = hub.replayState().creationTime;
  await hub.close();
  const name = segments(directory).at(-1)!;
  const file = path.join(directory, name);
  const bytes = fs.readFileSync(file);
  bytes[12] = bytes[12]! ^ 0xff; // inside the first record's payload
  fs.writeFileSync(file, bytes);
  await new Promise((resolve) => setTimeout(resolve, 5)); // a creation time of its own
  const logs: string[] = [];
  const reopened = await openHub(t, directory, { log: (m) => logs.push(m) });
  t.is(logs.length, 1);
  t.regex(logs[0]!, new RegExp(`${name} at offset 0: checksum mismatch`));
  const aside = fs.readdirSync(directory).find((entry) => entry.startsWith('damaged-'));
  t.truthy(aside);
  t.deepEqual(fs.readdirSync(path.join(directory, aside!)).sort(), [name, 'replay-log.json']);
  t.not(reopened.replayState().creationTime, creationTime);
  t.is(reopened.replayState().firstId, undefined);
  const next = await reopened.publish('a', { content: { 'x:n': 3 } });
  t.true(next.id > published[2]!.id);
});

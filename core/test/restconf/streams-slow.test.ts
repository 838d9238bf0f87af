/**
 * A subscriber that stops reading (restconf/streams-sse.ts backpressure, the hub's bounded buffer): it is
 * sent a final `error` event naming the last id it was given and closed, while a subscriber reading
 * alongside gets every event; stopping the service ends open streams rather than waiting for them.
 */
import test from 'ava';
import { startTestService } from '../../src/service/test-service';
import { openStream } from './streams-client';

test('a consumer that stops reading is told it was too slow and closed; the others miss nothing', async (t) => {
  const svc = await startTestService({ plugins: [], label: 'streams-slow', config: { events: { subscriberBufferEvents: 4 } } });
  const hub = svc.service.events;
  const location = `${svc.service.url}/rests/streams/json/node-status`;
  const slow = await openStream(location);
  const reader = await openStream(location);
  try {
    slow.pause();
    const padding = 'x'.repeat(64 * 1024);
    const ids: number[] = [];
    // Loopback sockets buffer a few MB: publish until the slow one is dropped, at most 600 events (38 MB).
    while (hub.subscriberCount('node-status') === 2 && ids.length < 600) {
      const event = await hub.publish('node-status', {
        content: { 'rosetta-events:node-status': { 'topology-id': 'unified', 'node-id': 's1', status: 'connected', message: padding } },
      });
      ids.push(event.id);
    }
    t.is(hub.subscriberCount('node-status'), 1, 'the slow subscriber was ended');
    await reader.waitFor(ids.length, 30_000);
    t.deepEqual(
      reader.messages.map((m) => Number(m.id)),
      ids,
    );
    slow.resume();
    await slow.waitForEnd(30_000);
    const last = slow.messages[slow.messages.length - 1]!;
    t.is(last.event, 'error');
    const said = JSON.parse(last.data);
    t.is(said.reason, 'too-slow');
    const delivered = slow.messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
    t.is(said['last-delivered-id'], delivered[delivered.length - 1]);
    t.deepEqual(delivered, ids.slice(0, delivered.length));
  } finally {
    slow.close();
    reader.close();
    await svc.stop();
  }
});

test('stopping the service ends its open streams at once', async (t) => {
  const svc = await startTestService({ plugins: [], label: 'streams-stop' });
  const sse = await openStream(`${svc.service.url}/rests/streams/json/data-change`);
  try {
    const stopped = svc.stop();
    await sse.waitForEnd(5000);
    await stopped;
    t.pass();
  } finally {
    sse.close();
  }
});

test('a replay log that dropped events says so in discovery, and a Last-Event-ID older than it gets a replay-gap', async (t) => {
  const svc = await startTestService({ plugins: [], label: 'streams-aged', config: { events: { replayMaxEvents: 2 } } });
  const hub = svc.service.events;
  const publish = () =>
    hub.publish('node-status', {
      content: { 'rosetta-events:node-status': { 'topology-id': 'unified', 'node-id': 'a1', status: 'connected' } },
    });
  const first = await publish();
  let last = first;
  // Until the log no longer holds the event right after `first`: a client that saw `first` missed some.
  for (let i = 0; i < 60 && (hub.replayState().firstId ?? 0) <= first.id + 1; i++) last = await publish();
  const state = hub.replayState();
  t.truthy(state.agedTime, 'the log dropped events from its head');
  const sse = await openStream(`${svc.service.url}/rests/streams/json/node-status`, { 'last-event-id': String(first.id) });
  try {
    const r = await svc.request('GET', '/rests/data/ietf-restconf-monitoring:restconf-state/streams/stream=node-status');
    t.is(r.status, 200, r.text);
    t.is(r.json['ietf-restconf-monitoring:stream'][0]['rosetta-restconf-monitoring:replay-log-aged-time'], state.agedTime);
    const [gap] = await sse.waitFor(1);
    t.is(gap!.event, 'replay-gap');
    t.like(JSON.parse(gap!.data), { 'last-event-id': first.id, 'first-id': state.firstId, 'replay-log-aged-time': state.agedTime });
    // Then what the log still holds, ending with the newest event.
    await sse.waitFor(2);
    const deadline = Date.now() + 10_000;
    while (!sse.messages.some((m) => m.id === String(last.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const ids = sse.messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
    t.is(ids[ids.length - 1], last.id);
    t.true(ids[0]! >= state.firstId!);
  } finally {
    sse.close();
    await svc.stop();
  }
});

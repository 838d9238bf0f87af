/**
 * Ten thousand clients that subscribe and drop, a hundred at a time, leave nothing behind: no
 * subscription in the hub and no heap that grows with them, and the stream serves the next client.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import test from 'ava';
import { startTestService } from '../../src/service/test-service';
import { openStream } from './streams-client';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

test('10,000 subscribe-and-drop connections leak no subscription or memory', async (t) => {
  const svc = await startTestService({ plugins: [], label: 'streams-churn' });
  t.teardown(() => svc.stop());
  const hub = svc.service.events;
  const location = `${svc.service.url}/rests/streams/json/node-status`;
  const settle = async () => {
    const deadline = Date.now() + 10_000;
    while (hub.subscriberCount() !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  };
  const round = async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, () => openStream(location)));
    for (const c of clients) c.close();
  };
  for (let i = 0; i < 10; i++) await round(); // warm: code compiled, pools filled
  await settle();
  const before = heapUsed();
  for (let i = 0; i < 100; i++) await round();
  await settle();
  t.is(hub.subscriberCount(), 0, 'every subscription closed');
  const grown = heapUsed() - before;
  t.true(grown < 8 * 1048576, `heap grew by ${Math.round(grown / 1024)} KB over 10,000 connections`);
  // the stream still serves a client afterwards
  const sse = await openStream(location);
  try {
    const event = await hub.publish('node-status', {
      content: { 'rosetta-events:node-status': { 'topology-id': 'unified', 'node-id': 'c1', status: 'connected' } },
    });
    const [m] = await sse.waitFor(1);
    t.is(m!.id, String(event.id));
  } finally {
    sse.close();
  }
});

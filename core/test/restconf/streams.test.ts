/**
 * The event stream resource over HTTP (restconf/streams*.ts): events published through the service's
 * hub arrive as Server-Sent Events in JSON and XML, with replay (start-time, stop-time, Last-Event-ID),
 * filter and keep-alive; bad requests are refused as the rest of RESTCONF refuses them; a client that
 * leaves frees its subscription. Streams are read with a real HTTP client (streams-client.ts), every
 * wait bounded, every stream closed.
 */
import test from 'ava';
import { startTestService, type TestService } from '../../src/service/test-service';
import { openStream } from './streams-client';

let svc: TestService;

test.before(async () => {
  svc = await startTestService({ plugins: [], label: 'streams', config: { events: { keepAliveSeconds: 1 } } });
});
test.after.always(async () => svc?.stop());

const status = (node: string, s: string) => ({
  nodeId: node,
  content: { 'rosetta-events:node-status': { 'topology-id': 'unified', 'node-id': node, status: s } },
});
const url = (p: string) => `${svc.service.url}${p}`;

test.serial('an event arrives as one SSE message in JSON: id, the RFC 8040 notification in data lines', async (t) => {
  const sse = await openStream(url('/rests/streams/json/node-status'));
  try {
    t.is(sse.status, 200);
    t.is(sse.headers['content-type'], 'text/event-stream');
    t.is(sse.headers['cache-control'], 'no-cache');
    const event = await svc.service.events.publish('node-status', status('r1', 'connected'));
    const [m] = await sse.waitFor(1);
    t.is(m!.id, String(event.id));
    t.is(m!.event, undefined);
    t.deepEqual(JSON.parse(m!.data), {
      'ietf-restconf:notification': { eventTime: event.eventTime, ...status('r1', 'connected').content },
    });
  } finally {
    sse.close();
  }
});

test.serial('the XML location sends the notification element; a text of several lines is several data lines', async (t) => {
  const sse = await openStream(url('/rests/streams/xml/node-status'));
  try {
    const event = await svc.service.events.publish('node-status', {
      ...status('r2', 'connected'),
      xml: '<node-status xmlns="urn:x">\n<node-id>r2</node-id>\n</node-status>',
    });
    const [m] = await sse.waitFor(1);
    t.is(m!.id, String(event.id));
    t.is(
      m!.data,
      `<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>${event.eventTime}</eventTime><node-status xmlns="urn:x">\n<node-id>r2</node-id>\n</node-status></notification>`,
    );
  } finally {
    sse.close();
  }
});

test.serial('events made durable together arrive as separate messages in id order, in JSON and in XML', async (t) => {
  const json = await openStream(url('/rests/streams/json/node-status'));
  const xml = await openStream(url('/rests/streams/xml/node-status'));
  try {
    // Published without waiting between them: the replay log writes most of them in one group commit.
    const published = await Promise.all(
      Array.from({ length: 20 }, (_, i) => svc.service.events.publish('node-status', status(`b${i}`, 'connected'))),
    );
    for (const sse of [json, xml]) {
      const messages = await sse.waitFor(20);
      t.deepEqual(
        messages.map((m) => m.id),
        published.map((e) => String(e.id)),
      );
    }
    t.deepEqual(
      json.messages.map((m) => JSON.parse(m.data)['ietf-restconf:notification']['rosetta-events:node-status']['node-id']),
      published.map((_, i) => `b${i}`),
    );
    t.true(xml.messages.every((m, i) => m.data.includes(`<node-id>b${i}</node-id>`)));
  } finally {
    json.close();
    xml.close();
  }
});

test.serial('start-time replays the kept events; stop-time ends the stream once past', async (t) => {
  const before = new Date(Date.now() - 1000).toISOString();
  const published = [];
  for (const s of ['connecting', 'connected', 'unable-to-connect'])
    published.push(await svc.service.events.publish('node-status', status('r3', s)));
  const stop = new Date(Date.now() + 500).toISOString();
  const sse = await openStream(url(`/rests/streams/json/node-status?start-time=${before}&stop-time=${encodeURIComponent(stop)}`));
  try {
    await sse.waitForEnd();
    const ids = sse.messages.map((m) => Number(m.id));
    for (const e of published) t.true(ids.includes(e.id), `event ${e.id} replayed`);
    t.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
  } finally {
    sse.close();
  }
});

test.serial('filter is an XPath over the content: only matching events are sent, with or without prefixes', async (t) => {
  const plain = await openStream(
    url(`/rests/streams/json/node-status?filter=${encodeURIComponent("/node-status[node-id='f1']/status = 'connected'")}`),
  );
  const prefixed = await openStream(
    url(
      `/rests/streams/json/node-status?filter=${encodeURIComponent("rosetta-events:node-status[rosetta-events:status!='connected'][node-id='f1']")}`,
    ),
  );
  try {
    const hub = svc.service.events;
    const a = await hub.publish('node-status', status('f1', 'connecting'));
    const b = await hub.publish('node-status', status('f1', 'connected'));
    await hub.publish('node-status', status('f2', 'connected'));
    const c = await hub.publish('node-status', status('f1', 'unable-to-connect'));
    const [only] = await plain.waitFor(1);
    t.is(only!.id, String(b.id));
    t.deepEqual(
      (await prefixed.waitFor(2)).map((m) => m.id),
      [String(a.id), String(c.id)],
    );
    // Nothing else passed the plain filter: the next event it lets through comes right after.
    const d = await hub.publish('node-status', status('f1', 'connected'));
    t.deepEqual(
      (await plain.waitFor(2)).map((m) => m.id),
      [String(b.id), String(d.id)],
    );
  } finally {
    plain.close();
    prefixed.close();
  }
});

test.serial('Last-Event-ID resumes after that event: the later kept ones, then live ones, no duplicate', async (t) => {
  const hub = svc.service.events;
  const first = await hub.publish('node-status', status('l1', 'connecting'));
  const second = await hub.publish('node-status', status('l1', 'connected'));
  const sse = await openStream(url('/rests/streams/json/node-status'), { 'last-event-id': String(first.id) });
  try {
    const [replayed] = await sse.waitFor(1);
    t.is(replayed!.id, String(second.id));
    const live = await hub.publish('node-status', status('l1', 'uninstalled'));
    t.deepEqual(
      (await sse.waitFor(2)).map((m) => m.id),
      [String(second.id), String(live.id)],
    );
  } finally {
    sse.close();
  }
});

test.serial('a Last-Event-ID that is no event id is told as a replay-gap, then the stream replays the log', async (t) => {
  const hub = svc.service.events;
  const kept = await hub.publish('node-status', status('g1', 'connected'));
  const sse = await openStream(url('/rests/streams/json/node-status'), { 'last-event-id': 'not-an-id' });
  try {
    const [gap] = await sse.waitFor(1);
    t.is(gap!.event, 'replay-gap');
    t.is(JSON.parse(gap!.data)['last-event-id'], 'not-an-id');
    await sse.waitFor(2);
    t.true(sse.messages.some((m) => m.id === String(kept.id)));
  } finally {
    sse.close();
  }
});

test.serial('an idle stream gets keep-alive comments', async (t) => {
  svc.service.events.defineStream({ name: 'quiet', description: 'never published to', replay: false });
  const sse = await openStream(url('/rests/streams/json/quiet'));
  try {
    t.is(await sse.waitForComment(5000), 'keep-alive');
    t.is(sse.messages.length, 0);
  } finally {
    sse.close();
  }
});

test.serial('bad requests are refused with the RESTCONF error envelope, naming what is wrong', async (t) => {
  svc.service.events.defineStream({ name: 'live-only', description: 'no replay', replay: false });
  const cases: Array<[string, number, string, Record<string, string>?]> = [
    ['/rests/streams/json/no-such-stream', 404, 'no-such-stream'],
    ['/rests/streams/yaml/node-status', 404, 'not an event stream location'],
    ['/rests/streams/json/node-status?filter=%2Fnode-status%5B', 400, "'filter'"],
    ['/rests/streams/json/node-status?filter=nosuchfunction(1)', 400, "'filter'"],
    ['/rests/streams/json/node-status?start-time=yesterday', 400, "'start-time'"],
    ['/rests/streams/json/node-status?start-time=2026-01-02T00:00:00Z&stop-time=2026-01-01T00:00:00Z', 400, "'stop-time'"],
    ['/rests/streams/json/node-status?stop-time=2026-01-01T00:00:00Z', 400, "'stop-time'"],
    ['/rests/streams/json/live-only?start-time=2026-01-01T00:00:00Z', 400, "'start-time'"],
    ['/rests/streams/json/node-status?depth=1', 400, "'depth'"],
    ['/rests/streams/json/node-status?filter=a&filter=b', 400, "'filter'"],
    ['/rests/streams/json/node-status', 406, 'text/event-stream', { accept: 'image/png' }],
  ];
  for (const [p, code, named, headers] of cases) {
    const r = await svc.request('GET', p, undefined, { accept: 'text/event-stream', ...headers });
    t.is(r.status, code, p);
    const entry = r.json?.errors?.error?.[0];
    t.truthy(entry, `${p}: an error envelope`);
    t.true(JSON.stringify(entry).includes(named), `${p}: ${r.text}`);
  }
  const post = await svc.request('POST', '/rests/streams/json/node-status', {});
  t.is(post.status, 405);
  t.regex(post.headers.get('allow') ?? '', /GET/);
  const head = await svc.request('HEAD', '/rests/streams/json/node-status', undefined, { accept: 'text/event-stream' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-type'), 'text/event-stream');
});

test.serial('clients that subscribe and drop leave no subscription behind', async (t) => {
  const hub = svc.service.events;
  const before = hub.subscriberCount();
  for (let round = 0; round < 4; round++) {
    const clients = await Promise.all(Array.from({ length: 50 }, () => openStream(url('/rests/streams/json/data-change'))));
    t.is(hub.subscriberCount('data-change'), 50);
    for (const c of clients) c.close();
    const deadline = Date.now() + 10_000;
    while (hub.subscriberCount() !== before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.is(hub.subscriberCount(), before, `round ${round}`);
  }
});

test.serial('discovery lists every stream with its replay log and absolute locations on this service', async (t) => {
  const r = await svc.request('GET', '/rests/data/ietf-restconf-monitoring:restconf-state/streams');
  t.is(r.status, 200, r.text);
  const streams = r.json['ietf-restconf-monitoring:streams'].stream as Array<Record<string, unknown>>;
  const byName = new Map(streams.map((s) => [s['name'], s]));
  for (const name of ['NETCONF', 'data-change', 'node-status']) {
    const s = byName.get(name)!;
    t.truthy(s, name);
    t.is(s['replay-support'], true);
    t.is(s['replay-log-creation-time'], svc.service.events.replayState().creationTime);
    t.deepEqual(s['access'], [
      { encoding: 'json', location: `${svc.service.url}/rests/streams/json/${name}` },
      { encoding: 'xml', location: `${svc.service.url}/rests/streams/xml/${name}` },
    ]);
  }
  t.is(byName.get('quiet')?.['replay-support'], false);
  const whole = await svc.request('GET', '/rests/data/ietf-restconf-monitoring:restconf-state', undefined, {
    accept: 'application/yang-data+xml',
  });
  t.is(whole.status, 200, whole.text);
  t.regex(whole.text, /<capability>urn:ietf:params:restconf:capability:replay:1\.0<\/capability>/);
});

test.serial('a stream name is percent-encoded in its location; OPTIONS answers the read-only methods', async (t) => {
  const hub = svc.service.events;
  hub.defineStream({ name: 'odd name/with slash', description: 'a name that needs encoding', replay: true });
  const listed = await svc.request('GET', '/rests/data/ietf-restconf-monitoring:restconf-state/streams');
  t.is(listed.status, 200, listed.text);
  const entry = listed.json['ietf-restconf-monitoring:streams'].stream.find((s: { name: string }) => s.name === 'odd name/with slash');
  const location = entry.access[0].location as string;
  t.is(location, `${svc.service.url}/rests/streams/json/odd%20name%2Fwith%20slash`);
  const sse = await openStream(location);
  try {
    const event = await hub.publish('odd name/with slash', status('o1', 'connected'));
    const [m] = await sse.waitFor(1);
    t.is(m!.id, String(event.id));
  } finally {
    sse.close();
  }
  const options = await svc.request('OPTIONS', '/rests/streams/xml/odd%20name%2Fwith%20slash');
  t.is(options.status, 200);
  t.is(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

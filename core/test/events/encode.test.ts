// The notification text of an event (RFC 8040 §6.4): JSON with ietf-restconf:notification and
// eventTime beside the content; XML in the NETCONF notification namespace, each module's members in its
// namespace from the local schema, lists repeated, empty leaves empty, text escaped; a producer's own
// XML used as given; subscribers share one event (and so its encoded text).
import test from 'ava';
import { assembleSchema } from '../../src/service/schema';
import { RecordingSink, openHub, temporaryDirectory } from './hub-fixture';

const schema = assembleSchema([]).schema;

test('JSON: the content members sit beside eventTime in ietf-restconf:notification', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const content = { 'rosetta-events:node-status': { 'topology-id': 'topology-netconf', 'node-id': 'r1', status: 'connected' } };
  const event = await hub.publish('a', { content, eventTime: new Date().toISOString() });
  t.deepEqual(JSON.parse(hub.encode(event, 'json')), { 'ietf-restconf:notification': { eventTime: event.eventTime, ...content } });
});

test('XML: namespaces from the local schema, lists repeated, empty leaves, escaped text', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { schema: () => schema });
  const event = await hub.publish('a', {
    content: {
      'rosetta-events:data-change': {
        datastore: 'config',
        edit: [
          { 'edit-id': '1', operation: 'merge', target: '/x:a', value: { 'x:a': { name: 'a<b&c', on: [null], n: 5 } } },
          { 'edit-id': '2', operation: 'delete', target: '/x:b' },
        ],
      },
    },
  });
  t.is(
    hub.encode(event, 'xml'),
    '<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0">' +
      `<eventTime>${event.eventTime}</eventTime>` +
      '<data-change xmlns="urn:rosetta:params:xml:ns:yang:rosetta-events"><datastore>config</datastore>' +
      '<edit><edit-id>1</edit-id><operation>merge</operation><target>/x:a</target>' +
      '<value><a xmlns="urn:rosetta:module:x"><name>a&lt;b&amp;c</name><on/><n>5</n></a></value></edit>' +
      '<edit><edit-id>2</edit-id><operation>delete</operation><target>/x:b</target></edit>' +
      '</data-change></notification>',
  );
});

test('XML given by the producer is sent as it is', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t), { schema: () => schema });
  const xml =
    '<netconf-config-change xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-notifications"><datastore>running</datastore></netconf-config-change>';
  const event = await hub.publish('a', {
    content: { 'ietf-netconf-notifications:netconf-config-change': { datastore: 'running' } },
    xml,
    eventTime: '2030-01-01T00:00:00Z',
  });
  t.is(
    hub.encode(event, 'xml'),
    `<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2030-01-01T00:00:00Z</eventTime>${xml}</notification>`,
  );
});

test('every subscriber is handed the same event object, whose text is kept with it', async (t) => {
  const hub = await openHub(t, temporaryDirectory(t));
  const sinks = [new RecordingSink(), new RecordingSink()];
  for (const sink of sinks) hub.subscribe('a', {}, sink);
  await hub.publish('a', { content: { 'x:n': 1 } });
  const [first, second] = sinks.map((sink) => sink.events[0]!);
  t.is(first, second);
  t.is(hub.encode(first!, 'json'), hub.encode(second!, 'json'));
  t.is(hub.encode(first!, 'xml'), hub.encode(second!, 'xml'));
});

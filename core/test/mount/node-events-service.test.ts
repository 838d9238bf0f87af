/**
 * Node status and device notifications on the service's event hub, end to end inside one service: a
 * NETCONF node (SDK simulator) installed, sending a notification of its model, dropped and reconnected,
 * uninstalled. A subscriber on the hub sees each status change once and each notification on `NETCONF`
 * and on the node's own stream, which ends when the node is uninstalled; an SSE client over HTTP reads the
 * node's stream in XML (the device's elements as sent) and NETCONF in JSON.
 */
import test from 'ava';
import { startNetconfSimulator } from '@rosetta/sdk/testing';
import type { StreamEvent, SubscriptionEnd } from '../../src/events';
import { openStream } from '../restconf/streams-client';
import { eventually, pluginsFile, startMountService } from './fixture';

const MODEL = `module acme-alarms {
  yang-version 1.1;
  namespace "urn:acme:alarms";
  prefix aa;
  container alarms { leaf count { type uint32; } }
  notification alarm-raised { leaf severity { type string; } leaf count { type uint32; } }
}`;

/** A hub subscriber that keeps what it receives. */
function collector() {
  const events: StreamEvent[] = [];
  const ends: SubscriptionEnd[] = [];
  return { events, ends, sink: { deliver: (e: StreamEvent) => events.push(e) > 0, end: (why: SubscriptionEnd) => ends.push(why) } };
}

test('node-status and NETCONF events of a simulated device: install, notification, drop and reconnect, uninstall', async (t) => {
  const device = await startNetconfSimulator({ yang: MODEL });
  const s = await startMountService(pluginsFile(['plugins/netconf']));
  t.teardown(async () => {
    await s.stop();
    await device.close();
  });
  const hub = s.service.events;
  const status = collector();
  const all = collector();
  const subscriptions = [hub.subscribe('node-status', {}, status.sink), hub.subscribe('NETCONF', {}, all.sink)];
  t.teardown(() => {
    for (const sub of subscriptions) sub.close();
  });
  const statuses = () => status.events.map((e) => (e.content['rosetta-events:node-status'] as { status: string }).status).join(' ');

  const r = await s.request('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'R1',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': device.port,
        'netconf-node-topology:username': 'u',
        'netconf-node-topology:password': 'p',
        'netconf-node-topology:between-attempts-timeout': 100,
      },
    },
  });
  t.is(r.status, 204, r.text);
  t.true(await eventually(async () => statuses() === 'connecting connected installed', 5000), statuses());
  t.deepEqual(status.events[2]!.content, {
    'rosetta-events:node-status': { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'installed' },
  });
  t.truthy(hub.stream('NETCONF-R1'), 'the node has its own stream once installed');
  const own = collector();
  subscriptions.push(hub.subscribe('NETCONF-R1', {}, own.sink));

  t.true(await eventually(async () => device.subscribed === 1, 5000), 'the device was subscribed to');
  const ownXml = await openStream(`${s.service.url}/rests/streams/xml/NETCONF-R1`);
  const allJson = await openStream(`${s.service.url}/rests/streams/json/NETCONF`);
  t.teardown(() => {
    ownXml.close();
    allJson.close();
  });
  t.is(ownXml.status, 200);
  device.notify(
    '<alarm-raised xmlns="urn:acme:alarms"><severity>major</severity><count>2</count></alarm-raised>',
    new Date('2026-11-27T10:00:00Z'),
  );
  t.true(await eventually(async () => own.events.length === 1 && all.events.length === 1, 5000));
  t.deepEqual(own.events[0]!.content, { 'acme-alarms:alarm-raised': { severity: 'major', count: 2 } });
  t.is(own.events[0]!.eventTime, '2026-11-27T10:00:00.000Z');
  t.deepEqual(all.events[0]!.content, {
    'rosetta-events:device-notification': {
      'topology-id': 'topology-netconf',
      'node-id': 'R1',
      notification: { 'acme-alarms:alarm-raised': { severity: 'major', count: 2 } },
    },
  });
  const [sent] = await ownXml.waitFor(1, 5000);
  t.is(
    sent!.data,
    '<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2026-11-27T10:00:00.000Z</eventTime>' +
      '<alarm-raised xmlns="urn:acme:alarms"><severity>major</severity><count>2</count></alarm-raised></notification>',
  );
  const [wrapped] = await allJson.waitFor(1, 5000);
  t.deepEqual(JSON.parse(wrapped!.data), {
    'ietf-restconf:notification': { eventTime: '2026-11-27T10:00:00.000Z', ...all.events[0]!.content },
  });
  const xml = hub.encode(all.events[0]!, 'xml');
  t.regex(xml, /<device-notification xmlns="urn:rosetta:params:xml:ns:yang:rosetta-events">.*<alarm-raised xmlns="urn:acme:alarms">/s);

  device.dropSessions();
  t.true(await eventually(async () => statuses() === 'connecting connected installed connecting connected', 10_000), statuses());
  t.regex((status.events[3]!.content['rosetta-events:node-status'] as { message?: string }).message ?? '', /session lost/);

  const u = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'R1', 'connection-type': 'netconf' },
  });
  t.is(u.status, 204, u.text);
  t.true(await eventually(async () => statuses().endsWith('connected uninstalled'), 5000), statuses());
  t.is(hub.stream('NETCONF-R1'), undefined);
  t.deepEqual(own.ends, [{ reason: 'stream-removed' }]);
  await ownXml.waitForEnd(5000); // the node's stream ends for its HTTP subscriber too
});

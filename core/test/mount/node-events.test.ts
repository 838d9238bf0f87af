/**
 * The mount layer's event producers (mount/node-events.ts): node-status events once per change of the
 * status, with the message; a device notification decoded with the device's schema and published on
 * `NETCONF` (wrapped with topology and node) and on the node's own stream, with the device's eventTime and
 * XML; the node's stream defined for a node whose models are the device's and removed at uninstall.
 */
import test from 'ava';
import { BUILTIN_STREAMS, type EventInput, type StreamDefinition, type StreamEvent } from '../../src/events';
import type { DeviceConnection, NodeConnectionStatus } from '../../src/hooks';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import { NodeEvents, type EventPublisher } from '../../src/mount/node-events';
import { newNode, type MountedNode } from '../../src/mount/node';
import type { DeviceSchema } from '../../src/mount/device-schema';
import type { SouthboundKind } from '../../src/mount/topology';

const DEVICE_MODEL = `module acme-alarms {
  namespace "urn:acme:alarms";
  prefix aa;
  container alarms { leaf count { type uint32; } }
  notification alarm-raised { leaf severity { type string; } leaf count { type uint32; } }
}`;
const LOCAL_MODEL = `module rosetta-events { namespace "urn:test:rosetta-events"; prefix re; }`;

function compile(name: string, text: string) {
  const repo = new ModuleRepository([]);
  repo.addText(`${name}.yang`, text);
  return compileSchema(repo, { modules: [name] });
}

/** Records what is published; like the hub, refuses a stream not defined (the service defines the built-in ones). */
class Recorder implements EventPublisher {
  readonly streams = new Map<string, StreamDefinition>(BUILTIN_STREAMS.map((d) => [d.name, d]));
  readonly removed: string[] = [];
  readonly events: Array<{ stream: string; input: EventInput }> = [];
  defineStream(def: StreamDefinition): void {
    this.streams.set(def.name, def);
  }
  removeStream(name: string): void {
    this.streams.delete(name);
    this.removed.push(name);
  }
  async publish(stream: string, input: EventInput): Promise<StreamEvent> {
    if (!this.streams.has(stream)) throw new Error(`no stream ${stream}`);
    this.events.push({ stream, input });
    return { ...input, stream, id: this.events.length, eventTime: input.eventTime ?? new Date().toISOString() };
  }
  statuses(): unknown[] {
    return this.events.filter((e) => e.stream === 'node-status').map((e) => e.input.content['rosetta-events:node-status']);
  }
}

const KIND = { protocol: 'netconf', topology: 'topology-netconf', models: 'device' } as unknown as SouthboundKind;

function node(): MountedNode {
  const n = newNode('R1', KIND, { host: '127.0.0.1' });
  n.ownSchema = { schema: compile('acme-alarms', DEVICE_MODEL), failed: [] } as unknown as DeviceSchema;
  return n;
}

function connection(status: () => NodeConnectionStatus): DeviceConnection {
  return { message: 'session 7', close: async () => undefined, status };
}

test('node-status: install, a drop and a reconnect reported by the connection, uninstall; once each', (t) => {
  const hub = new Recorder();
  const logs: string[] = [];
  const events = new NodeEvents(hub, () => compile('rosetta-events', LOCAL_MODEL), { info: () => undefined, error: (m) => logs.push(m) });
  const r1 = node();
  r1.installing = true;
  events.added(r1);
  t.true(hub.streams.has('NETCONF-R1'));
  let state: NodeConnectionStatus = 'connected';
  r1.connection = connection(() => state);
  const reports = events.forConnection(r1)!;
  reports.statusChanged(); // while installing: the status a client reads is still connecting
  r1.installing = false;
  events.status(r1);
  events.installed(r1);
  state = 'connecting';
  reports.statusChanged('session lost: reset');
  reports.statusChanged('session lost: reset'); // no change
  state = 'connected';
  reports.statusChanged();
  r1.removed = true;
  events.uninstalled(r1);
  reports.statusChanged(); // a closed connection's last word is not published
  t.deepEqual(hub.statuses(), [
    { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'connecting' },
    { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'connected', message: 'session 7' },
    { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'installed' },
    { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'connecting', message: 'session lost: reset' },
    { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'connected', message: 'session 7' },
    { 'topology-id': 'topology-netconf', 'node-id': 'R1', status: 'uninstalled' },
  ]);
  t.deepEqual(hub.removed, ['NETCONF-R1']);
  t.deepEqual(logs, []);
});

test('a restored node that cannot connect is unable-to-connect with why, once', (t) => {
  const hub = new Recorder();
  const events = new NodeEvents(hub, () => compile('rosetta-events', LOCAL_MODEL), { info: () => undefined, error: () => undefined });
  const r1 = node();
  events.added(r1);
  r1.problem = 'connection refused';
  events.status(r1);
  r1.problem = 'connection refused again';
  events.status(r1);
  t.deepEqual(
    hub.statuses().map((s) => (s as { status: string }).status),
    ['connecting', 'unable-to-connect'],
  );
  t.is((hub.statuses()[1] as { message: string }).message, 'connection refused');
});

test('a device notification goes to NETCONF wrapped and to the node stream as it came, at the device eventTime', async (t) => {
  const hub = new Recorder();
  const warnings: string[] = [];
  const events = new NodeEvents(hub, () => compile('rosetta-events', LOCAL_MODEL), {
    info: () => undefined,
    warn: (m) => warnings.push(m),
    error: (m) => warnings.push(m),
  });
  const r1 = node();
  events.added(r1);
  const reports = events.forConnection(r1)!;
  reports.notification(
    '<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0" xmlns:x="urn:x"><eventTime>2026-11-27T10:00:00Z</eventTime>' +
      '<alarm-raised xmlns="urn:acme:alarms"><severity>major</severity><count>3</count></alarm-raised></notification>',
  );
  const published = hub.events.filter((e) => e.stream !== 'node-status');
  t.deepEqual(
    published.map((e) => e.stream),
    ['NETCONF', 'NETCONF-R1'],
  );
  const own = { 'acme-alarms:alarm-raised': { severity: 'major', count: 3 } };
  t.deepEqual(published[0]!.input.content, {
    'rosetta-events:device-notification': { 'topology-id': 'topology-netconf', 'node-id': 'R1', notification: own },
  });
  t.deepEqual(published[1]!.input.content, own);
  t.is(published[1]!.input.eventTime, '2026-11-27T10:00:00Z');
  t.is(
    published[1]!.input.xml,
    '<alarm-raised xmlns:x="urn:x" xmlns="urn:acme:alarms"><severity>major</severity><count>3</count></alarm-raised>',
  );
  t.regex(
    published[0]!.input.xml ?? '',
    /^<device-notification xmlns="urn:test:rosetta-events"><topology-id>topology-netconf<\/topology-id><node-id>R1<\/node-id><notification><alarm-raised /,
  );

  // an event the device schema does not define is dropped with a warning, not published half-read
  reports.notification(
    '<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2026-11-27T10:00:01Z</eventTime><other xmlns="urn:acme:alarms"/></notification>',
  );
  t.is(hub.events.filter((e) => e.stream !== 'node-status').length, 2);
  t.is(warnings.length, 1);
  t.regex(warnings[0]!, /node R1: a notification does not fit the device's schema/);
});

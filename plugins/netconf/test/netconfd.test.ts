/**
 * The plugin against the real yuma123 netconfd (test/peers/netconf-device.sh on its own port): base:1.1
 * framing, all 26 modules downloaded and compiled by the core's YANG engine, the disk cache hit on a
 * second install, get-config/get of ietf-interfaces and ietf-system through the plugin's hooks, an
 * edit-config + commit checked with a separate session's get-config, an rpc-error with tag/path/message,
 * and a peer restart that the device reconnects after. Skips loudly when netconfd cannot run here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { createHooks } from '@rosetta/core';
import { FaultError, type DeviceConnection, type DeviceInfo } from '@rosetta/sdk';
import { pathValue } from '@rosetta/sdk/testing';
import plugin, { NetconfDevice, NetconfRpcError, NetconfSession } from '../src';
import { compileSources, testCodec } from './support/codec';
import { peer, PEER, peerSkipReason } from './support/peer';

const test = anyTest.serial as TestFn;
const skip = peerSkipReason();
if (skip) console.warn(`\n*** SKIPPING the netconfd tests: ${skip} ***\n`);
const it = skip ? test.skip : test;

const cache = mkdtempSync(path.join(tmpdir(), 'netconf-schema-cache-'));
const hooks = createHooks();
const logs: string[] = [];
const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
const settings = {
  host: PEER.host,
  port: PEER.port,
  username: PEER.username,
  password: PEER.password,
  'schema-cache-directory': cache,
  'between-attempts-timeout': 200,
  'keepalive-delay': 1,
};
const info = (nodeId: string): DeviceInfo => ({ nodeId, protocol: 'netconf', units: [] });
let device: NetconfDevice | undefined;

test.before(async () => {
  if (skip) return;
  await peer('restart'); // fresh: netconfd crashes when one process serves get-schema of ietf-netconf twice
  await plugin.setup!({
    hooks,
    settings: { schemaCacheDirectory: cache },
    name: '@rosetta/plugin-netconf',
    version: '0.1.0',
    folder: '.',
    yangDir: undefined,
    log,
  });
});
test.after.always(async () => {
  await device?.close();
  if (!skip) await peer('stop');
  rmSync(cache, { recursive: true, force: true });
});

/** A separate raw session, as an operator would check the device. */
async function runningConfig(): Promise<string> {
  const s = await NetconfSession.open({ ...PEER, connectTimeoutMs: 20_000, requestTimeoutMs: 20_000, keepaliveMs: 0 }); // generous: a loaded CI machine runs several peers at once
  try {
    return (await s.rpc('<get-config><source><running/></source></get-config>')).text;
  } finally {
    await s.close();
  }
}

it('install: hello with base:1.1, 26 modules downloaded and compiled, cached for the next install', async (t) => {
  let start = Date.now();
  const conn = await hooks.device.connect.for('netconf').promise({ device: info('nc1'), settings });
  const cold = Date.now() - start;
  device = conn as NetconfDevice;
  t.true(device instanceof NetconfDevice);
  t.is(device.status!(), 'connected');
  t.true(device.capabilities!.includes('urn:ietf:params:netconf:base:1.1'));
  t.regex(device.message, /base:1\.1/);
  t.is(device.schemaSources!.length, 26);
  t.deepEqual(device.unavailableSchemas, []);
  t.false(device.schemaCacheHit);
  const ctx = compileSources(device.schemaSources!);
  t.deepEqual(
    ctx.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message),
    [],
  );
  t.true(ctx.modules.has('ietf-interfaces') && ctx.modules.has('ietf-system'));

  start = Date.now();
  const second = (await hooks.device.connect.for('netconf').promise({ device: info('nc2'), settings })) as NetconfDevice;
  const warm = Date.now() - start;
  t.true(second.schemaCacheHit, 'second install reads the cache');
  t.is(second.moduleSetId, device.moduleSetId);
  await second.close();
  t.log(`install: cold ${cold} ms (download), warm ${warm} ms (cache)`);
});

it('reads ietf-interfaces and ietf-system in both contents through device.read', async (t) => {
  const ctx = compileSources(device!.schemaSources!);
  const read = (p: string, content: 'config' | 'nonconfig' | 'all', fields?: string) =>
    hooks.device.read.for('netconf').promise({
      device: info('nc1'),
      connection: device as DeviceConnection,
      path: pathValue(p),
      content,
      codec: testCodec(ctx),
      ...(fields ? { fields } : {}),
    });
  const state = await read("/ietf-interfaces:interfaces-state/interface[name='lo']", 'nonconfig', 'oper-status;ietf-ip:ipv4');
  t.deepEqual(state, {
    'ietf-interfaces:interfaces-state': {
      interface: [{ name: 'lo', 'oper-status': 'unknown', 'ietf-ip:ipv4': { address: [{ ip: '127.0.0.1' }] } }],
    },
  });
  const clock = (await read('/ietf-system:system-state/clock', 'nonconfig')) as Record<string, any>;
  t.regex(clock['ietf-system:system-state'].clock['current-datetime'], /^\d{4}-\d\d-\d\dT/);
  t.deepEqual(await read('/ietf-interfaces:interfaces', 'config'), {}, 'fresh device: no interfaces configured');
});

it('writes: edit-config + commit seen by a separate get-config; rpc-error surfaces tag, path, message', async (t) => {
  const ctx = compileSources(device!.schemaSources!);
  const write = (edits: any[]) =>
    hooks.device.write
      .for('netconf')
      .promise({ device: info('nc1'), connection: device as DeviceConnection, before: {}, after: {}, edits, codec: testCodec(ctx) });
  const result = await write([
    {
      operation: 'replace',
      path: "/ietf-interfaces:interfaces/interface[name='test0']",
      value: {
        'ietf-interfaces:interface': [
          {
            name: 'test0',
            type: 'iana-if-type:ethernetCsmacd',
            description: 'rosetta',
            'ietf-ip:ipv4': { address: [{ ip: '192.0.2.1', 'prefix-length': 24 }] },
          },
        ],
      },
    },
    { operation: 'merge', path: '/ietf-system:system/contact', value: { 'ietf-system:contact': 'noc@example.net' } },
  ]);
  t.true(result!.commands.includes('<commit/>'), result!.commands.join('\n'));
  let running = await runningConfig();
  t.regex(running, /<name>test0<\/name>/);
  t.regex(running, /192\.0\.2\.1/);
  t.regex(running, /noc@example\.net/);
  const read = (await hooks.device.read.for('netconf').promise({
    device: info('nc1'),
    connection: device as DeviceConnection,
    path: pathValue("/ietf-interfaces:interfaces/interface[name='test0']"),
    content: 'config',
    codec: testCodec(ctx),
  })) as Record<string, any>;
  t.is(read['ietf-interfaces:interfaces'].interface[0].type, 'iana-if-type:ethernetCsmacd');

  // A value the device's schema refuses is refused by the schema-aware encoder before the device is asked.
  const bad = await t.throwsAsync(
    write([
      {
        operation: 'merge',
        path: "/ietf-interfaces:interfaces/interface[name='test0']/enabled",
        value: { 'ietf-interfaces:enabled': 'maybe' },
      },
    ]),
    { instanceOf: FaultError },
  );
  t.false(bad instanceof NetconfRpcError);
  t.is(bad!.faults[0]!.tag, 'invalid-value');
  t.regex(`${bad!.faults[0]!.path ?? ''} ${bad!.faults[0]!.message}`, /enabled/);
  t.regex(bad!.faults[0]!.message, /maybe/);
  t.regex(await runningConfig(), /<name>test0<\/name>/);
  // What the device itself refuses comes back as its rpc-error.
  const missing = await t.throwsAsync(write([{ operation: 'delete', path: "/ietf-interfaces:interfaces/interface[name='nope']" }]), {
    instanceOf: NetconfRpcError,
  });
  t.is(missing!.tag, 'data-missing');

  await write([
    { operation: 'delete', path: "/ietf-interfaces:interfaces/interface[name='test0']" },
    { operation: 'remove', path: '/ietf-system:system/contact' },
  ]);
  running = await runningConfig();
  t.notRegex(running, /test0/);
  t.notRegex(running, /noc@example/);
});

it('the peer restarts: the device reconnects and serves again', async (t) => {
  const before = device!.connects;
  await peer('restart');
  const until = Date.now() + 20_000;
  while (Date.now() < until && !(device!.connects > before && device!.status!() === 'connected'))
    await new Promise((r) => setTimeout(r, 100));
  t.is(device!.status!(), 'connected');
  t.true(device!.connects > before);
  t.truthy(await device!.current().rpc('<get-config><source><running/></source></get-config>'));
  t.true(logs.some((l) => /reconnected/.test(l)));
});

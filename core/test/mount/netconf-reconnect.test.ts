/**
 * A NETCONF device that comes back from a restart with another module set (an upgrade): the plugin
 * re-lists its modules after reconnecting, and the mount point serves the new schema (a node only the
 * new revision has becomes readable) without reinstalling. SDK simulator on a fixed port, restarted.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { eventually, pluginsFile, startMountService, type MountService } from './fixture';

const model = (revision: string, extra: string) => `module acme-box {
  yang-version 1.1;
  namespace "urn:acme:box";
  prefix ab;
  revision ${revision};
  container box {
    leaf name { type string; }
    ${extra}
  }
}`;
const V1 = model('2024-01-01', '');
const V2 = model('2025-01-01', 'leaf serial { type string; }');
const CONFIG = '<box xmlns="urn:acme:box"><name>b1</name><serial>S-42</serial></box>';
const MOUNT = '/rests/data/network-topology:network-topology/topology=topology-netconf/node=BOX/yang-ext:mount';

let device: SimulatedNetconfDevice | undefined;
let s: MountService | undefined;

test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

test('after a reconnect to an upgraded device, the mount point serves the new module set', async (t) => {
  device = await startNetconfSimulator({ yang: V1, config: '<box xmlns="urn:acme:box"><name>b1</name></box>' });
  const port = device.port;
  s = await startMountService(pluginsFile(['plugins/netconf']));
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-reconnect-cache-'));
  const r = await s.request('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'BOX',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': port,
        'netconf-node-topology:username': 'u',
        'netconf-node-topology:password': 'p',
        'netconf-node-topology:between-attempts-timeout': 100,
        'netconf-node-topology:schema-cache-directory': cache,
      },
    },
  });
  t.is(r.status, 204, r.text);
  t.is((await s.request('GET', `${MOUNT}/acme-box:box/name?content=config`)).status, 200);
  t.is((await s.request('GET', `${MOUNT}/acme-box:box/serial?content=config`)).status, 404, 'revision 2024 has no serial');

  await device.close();
  device = await startNetconfSimulator({ yang: V2, config: CONFIG }, { port });
  const served = await eventually(
    async () => (await s!.request('GET', `${MOUNT}/acme-box:box/serial?content=config`)).status === 200,
    15_000,
  );
  t.true(served, s.logs.slice(-8).join('\n'));
  const serial = await s.request('GET', `${MOUNT}/acme-box:box/serial?content=config`);
  t.deepEqual(serial.json, { 'acme-box:serial': 'S-42' });
  t.true(
    s.logs.some((l) => /BOX: the module set changed while reconnecting/.test(l)),
    s.logs.join('\n'),
  );
  t.true(s.logs.some((l) => /node BOX: module set changed .* compiling its schema again/.test(l)));
});

test('a reconnect to a device whose hello is unchanged lists no modules again', async (t) => {
  const same = await startNetconfSimulator({ yang: V1, config: '<box xmlns="urn:acme:box"><name>b1</name></box>' });
  const svc = await startMountService(pluginsFile(['plugins/netconf']));
  t.teardown(async () => {
    await svc.service.stop();
    await same.close();
  });
  const r = await svc.request('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'SAME',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': same.port,
        'netconf-node-topology:username': 'u',
        'netconf-node-topology:password': 'p',
        'netconf-node-topology:between-attempts-timeout': 100,
      },
    },
  });
  t.is(r.status, 204, r.text);
  const listings = () => same.operationLog.filter((op) => op === 'get' || op === 'get-schema').length;
  const atInstall = listings();
  t.true(atInstall > 0, 'the install lists the modules');
  for (let round = 1; round <= 3; round++) {
    same.dropSessions();
    const back = await eventually(async () => svc.logs.filter((l) => /SAME: reconnected after/.test(l)).length >= round, 15_000);
    t.true(back, svc.logs.slice(-8).join('\n'));
  }
  const name = await svc.request(
    'GET',
    '/rests/data/network-topology:network-topology/topology=topology-netconf/node=SAME/yang-ext:mount/acme-box:box/name?content=config',
  );
  t.is(name.status, 200, name.text);
  t.is(listings(), atInstall, same.operationLog.join(' '));
});

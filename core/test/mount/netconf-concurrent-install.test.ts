/**
 * Many NETCONF devices with one module set installed at once into an empty data folder: every install
 * downloads the set and writes it to the schema cache at the same moment, and each must succeed (the
 * cache's temporary folders are unique per writer; the first rename wins and the others keep the set in
 * place). Afterwards the cache holds that one set and no temporary folder is left, and each device has
 * one session open: the install, its schema download and a read share it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { pluginsFile, startMountService, type MountService } from './fixture';

const DEVICES = 32;
const YANG = `module acme-port {
  yang-version 1.1;
  namespace "urn:acme:port";
  prefix ap;
  revision 2024-05-01;
  container ports { list port { key name; leaf name { type string; } leaf mtu { type uint16; } } }
}`;

const devices: SimulatedNetconfDevice[] = [];
let s: MountService | undefined;

test.after.always(async () => {
  await s?.stop();
  await Promise.all(devices.map((d) => d.close()));
});

test(`${DEVICES} concurrent installs sharing one module set into an empty schema cache all succeed`, async (t) => {
  for (let i = 0; i < DEVICES; i++) {
    devices.push(
      await startNetconfSimulator({ yang: YANG, config: `<ports xmlns="urn:acme:port"><port><name>p${i}</name></port></ports>` }),
    );
  }
  s = await startMountService(pluginsFile(['plugins/netconf']));
  const cache = path.join(s.dataDir, 'netconf-schema-cache');
  t.false(fs.existsSync(cache), 'the data folder starts without a schema cache');

  const answers = await Promise.all(
    devices.map((d, i) =>
      s!.request('POST', '/rests/operations/connection-manager:install-node', {
        input: {
          'node-id': `port-${i}`,
          netconf: {
            'netconf-node-topology:host': d.host,
            'netconf-node-topology:port': d.port,
            'netconf-node-topology:username': 'u',
            'netconf-node-topology:password': 'p',
          },
        },
      }),
    ),
  );
  const failed = answers.flatMap((r, i) => (r.status === 204 ? [] : [`port-${i}: ${r.status} ${r.text}`]));
  t.deepEqual(failed, [], s.logs.filter((l) => l.startsWith('ERROR')).join('\n'));

  const entries = fs.readdirSync(cache);
  t.is(entries.length, 1, `one module set, no temporary folder left: ${entries.join(', ')}`);
  t.true(fs.existsSync(path.join(cache, entries[0]!, 'index.json')));
  const read = await s.request(
    'GET',
    `/rests/data/network-topology:network-topology/topology=topology-netconf/node=port-${DEVICES - 1}/yang-ext:mount/acme-port:ports?content=config`,
  );
  t.is(read.status, 200, read.text);
  t.deepEqual(read.json, { 'acme-port:ports': { port: [{ name: `p${DEVICES - 1}` }] } });
  // the schema download, the install and the read share each device's one session
  t.deepEqual(
    devices.map((d) => d.sessions),
    devices.map(() => 1),
  );
});

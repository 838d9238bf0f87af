/**
 * Run by uninstall-release.test.ts in a process of its own started with --expose-gc: installs NETCONF
 * simulator devices, reads each through its mount point (a probe plugin keeps a WeakRef to every device
 * connection the core hands a read), uninstalls them all, collects garbage and prints one JSON line:
 * how many connections were seen and how many are still alive.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { startTestService } from '../../src/service/test-service';
import { pluginsFile } from './fixture';

const DEVICES = 10;
const YANG = `module acme-port {
  yang-version 1.1;
  namespace "urn:acme:port";
  prefix ap;
  revision 2024-05-01;
  container ports { list port { key name; leaf name { type string; } leaf mtu { type uint16; } } }
}`;
const PROBE_PLUGIN = `
module.exports = {
  rosettaPlugin: 1,
  setup(api) {
    const seen = (globalThis.__seenConnections ??= new Map());
    api.hooks.device.read.for('netconf').tapPromise({ name: 'release-probe', stage: -10 }, async (ctx) => {
      seen.set(ctx.device.nodeId, new WeakRef(ctx.connection));
      return undefined;
    });
  },
};
`;

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-uninstall-release-'));
  const probe = path.join(dir, 'release-probe');
  fs.mkdirSync(probe);
  fs.writeFileSync(path.join(probe, 'index.js'), PROBE_PLUGIN);
  fs.writeFileSync(
    path.join(probe, 'package.json'),
    JSON.stringify({ name: 'release-probe', version: '1.0.0', rosetta: { kind: 'extension', entry: 'index.js' } }),
  );
  const devices: SimulatedNetconfDevice[] = [];
  for (let i = 0; i < DEVICES; i++) devices.push(await startNetconfSimulator({ yang: YANG }));
  const s = await startTestService({ label: 'release', plugins: [...pluginsFile(['plugins/netconf']), { path: probe }] });
  const problems: string[] = [];
  try {
    for (const [i, d] of devices.entries()) {
      const installed = await s.request('POST', '/rests/operations/connection-manager:install-node', {
        input: {
          'node-id': `port-${i}`,
          netconf: {
            'netconf-node-topology:host': d.host,
            'netconf-node-topology:port': d.port,
            'netconf-node-topology:username': 'u',
            'netconf-node-topology:password': 'p',
          },
        },
      });
      if (installed.status !== 204) problems.push(`install port-${i}: ${installed.status} ${installed.text}`);
      const read = await s.request(
        'GET',
        `/rests/data/network-topology:network-topology/topology=topology-netconf/node=port-${i}/yang-ext:mount/acme-port:ports`,
      );
      if (read.status !== 200 && read.status !== 404) problems.push(`read port-${i}: ${read.status} ${read.text}`);
    }
    for (let i = 0; i < DEVICES; i++) {
      const r = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
        input: { 'node-id': `port-${i}`, 'connection-type': 'netconf' },
      });
      if (r.status !== 204) problems.push(`uninstall port-${i}: ${r.status} ${r.text}`);
    }
    // closed sockets and timers let go over a few turns of the event loop
    for (let round = 0; round < 10; round++) {
      gc();
      await new Promise((r) => setTimeout(r, 50));
    }
    const seen = (globalThis as unknown as { __seenConnections?: Map<string, WeakRef<object>> }).__seenConnections ?? new Map();
    const alive = [...seen.entries()].filter(([, ref]) => ref.deref() !== undefined).map(([id]) => id);
    process.stdout.write(`${JSON.stringify({ seen: seen.size, alive, problems })}\n`);
  } finally {
    await s.stop();
    await Promise.all(devices.map((d) => d.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);

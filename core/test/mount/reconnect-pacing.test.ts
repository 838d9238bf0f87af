/**
 * A service restarted over many installed nodes reconnects them all, never more at once than
 * `fleet.connectConcurrency`. The devices are played by a probe plugin that answers the NETCONF
 * southbound's connect ahead of it (an earlier stage), holds each connect a while and counts how many it
 * holds at once: 40 nodes whose first attempts fall within the two-second retry window, each held 300 ms,
 * would overlap far past the bound if nothing paced them. The assertion is on the count, not on time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { eventually, pluginsFile, startMountService, type MountService } from './fixture';
import { startTestService } from '../../src/service/test-service';

const NODES = 40;
const BOUND = 3;

interface Probe {
  holdMs: number;
  inFlight: number;
  peak: number;
  connected: number;
}
const probe = (): Probe => (globalThis as unknown as { __connectProbe: Probe }).__connectProbe;

const PROBE_PLUGIN = `
module.exports = {
  rosettaPlugin: 1,
  setup(api) {
    const p = (globalThis.__connectProbe ??= { holdMs: 0, inFlight: 0, peak: 0, connected: 0 });
    api.hooks.device.connect.for('netconf').tapPromise({ name: 'connect-probe', stage: -10 }, async () => {
      p.inFlight++;
      p.peak = Math.max(p.peak, p.inFlight);
      await new Promise((r) => setTimeout(r, p.holdMs));
      p.inFlight--;
      p.connected++;
      return { message: 'probe', close: async () => undefined, status: () => 'connected' };
    });
  },
};
`;

let dir: string | undefined;
const services: MountService[] = [];

test.after.always(async () => {
  for (const s of services) await s.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test(`a restart reconnects ${NODES} nodes with at most fleet.connectConcurrency attempts at once`, async (t) => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-reconnect-pacing-'));
  const pluginDir = path.join(dir, 'connect-probe');
  fs.mkdirSync(pluginDir);
  fs.writeFileSync(path.join(pluginDir, 'index.js'), PROBE_PLUGIN);
  fs.writeFileSync(
    path.join(pluginDir, 'package.json'),
    JSON.stringify({ name: 'connect-probe', version: '1.0.0', rosetta: { kind: 'extension', entry: 'index.js' } }),
  );
  const plugins = [...pluginsFile(['plugins/netconf']), { path: pluginDir }];
  const dataDir = path.join(dir, 'data');

  const first = await startMountService(plugins, dataDir);
  services.push(first);
  for (let i = 0; i < NODES; i++) {
    const r = await first.request('POST', '/rests/operations/connection-manager:install-node', {
      input: {
        'node-id': `n${i}`,
        netconf: {
          'netconf-node-topology:host': '127.0.0.1',
          'netconf-node-topology:port': 830,
          'netconf-node-topology:username': 'u',
          'netconf-node-topology:password': 'p',
        },
      },
    });
    t.is(r.status, 204, r.text);
  }
  await first.stop();

  Object.assign(probe(), { holdMs: 300, inFlight: 0, peak: 0, connected: 0 });
  const second = await startTestService({ label: 'mount', plugins, dataDir, config: { fleet: { connectConcurrency: BOUND } } });
  services.push(second);
  t.true(await eventually(async () => probe().connected === NODES, 60_000), `${probe().connected} of ${NODES} reconnected`);
  t.is(probe().peak, BOUND, 'the bound is reached and never passed');
  const status = await second.request('GET', '/rests/data/network-topology:network-topology/topology=topology-netconf/node=n0');
  t.is(status.status, 200, status.text);
});

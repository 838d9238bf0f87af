/**
 * The device metrics through the real service and the SDK's FRR-like simulator over SSH (CLI
 * southbound, FRR units): an installed device shows in the sessions gauge by protocol and status, a
 * read under its mount point is timed as a southbound read, and no label carries the node id.
 */
import test from 'ava';
import { frrDevice, startSimulator } from '@rosetta/sdk/testing';
import { pluginsFile, startMountService } from '../mount/fixture';

const MOUNT = '/rests/data/network-topology:network-topology/topology=cli/node=metrics-node-7/yang-ext:mount';

function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const brace = line.indexOf('{');
      const labels: Record<string, string> = {};
      if (brace >= 0)
        for (const m of line.slice(brace, line.lastIndexOf('}')).matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]!] = m[2]!;
      return {
        name: brace < 0 ? line.slice(0, line.indexOf(' ')) : line.slice(0, brace),
        labels,
        value: Number(line.slice(line.lastIndexOf(' ') + 1)),
      };
    });
}

test('an installed CLI device is a connected cli session, its mount-point read is a timed southbound read, and its node id is no label', async (t) => {
  const device = await startSimulator(
    frrDevice({ hostname: 'r7', username: 'rosetta', password: 'S3cret-pw', config: ['interface eth0', ' description uplink'] }),
  );
  const s = await startMountService(pluginsFile(['plugins/cli', 'plugins/frr']));
  try {
    const install = await s.request('POST', '/rests/operations/connection-manager:install-node', {
      input: {
        'node-id': 'metrics-node-7',
        cli: {
          'cli-topology:host': '127.0.0.1',
          'cli-topology:port': device.port,
          'cli-topology:transport-type': 'ssh',
          'cli-topology:device-type': 'frr',
          'cli-topology:device-version': '8.4.4',
          'cli-topology:username': 'rosetta',
          'cli-topology:password': 'S3cret-pw',
        },
      },
    });
    t.is(install.status, 204, install.text);
    t.is((await s.request('GET', `${MOUNT}/rosetta-openconfig-interfaces:interfaces`)).status, 200);
    const text = (await s.request('GET', '/metrics')).text;
    const all = samples(text);
    t.is(all.find((x) => x.name === 'rosetta_device_sessions' && x.labels.protocol === 'cli' && x.labels.status === 'connected')?.value, 1);
    const reads = all.find(
      (x) =>
        x.name === 'rosetta_device_request_duration_seconds_count' &&
        x.labels.protocol === 'cli' &&
        x.labels.operation === 'read' &&
        x.labels.outcome === 'success',
    );
    t.true((reads?.value ?? 0) >= 1);
    t.false(text.includes('metrics-node-7'));
    t.false(text.includes('S3cret-pw'));
  } finally {
    await s.service.stop();
    await device.close();
  }
});

/**
 * The CLI plugin loaded the way the service loads it: the core's PluginHost reading a plugins.json that
 * enables plugins/cli and the SDK's example FRR unit; install, read and write through the leased
 * generation's hooks, with the units the generation matches for the device's type and version, against
 * the simulator. Also: a version no unit covers is installed without models: its reads are empty, its writes name the host's reason.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { plugins, type DeviceInfo } from '@rosetta/core';
import { frrDevice, pathValue, startSimulator } from '@rosetta/sdk/testing';
import { cliSettings, recordingLogger } from './fixture';

const REPO = path.resolve(__dirname, '../../../..');

test('plugins.json -> PluginHost -> device hooks: install, write, read back, and no unit for a version', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-cli-host-'));
  const configFile = path.join(dir, 'plugins.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      watch: false,
      plugins: [
        { path: path.join(REPO, 'plugins/cli'), enabled: true },
        { path: path.join(REPO, 'sdk/examples/frr-minimal'), enabled: true },
      ],
    }),
  );
  const log = recordingLogger();
  const host = await plugins.PluginHost.start({ configFile, logger: log, watch: false });
  const device = await startSimulator(frrDevice({ username: 'frruser', password: 'frrpass' }));
  const scope = host.acquire();
  try {
    const states = host.status().map((s) => `${s.name}@${s.version} ${s.kind} ${s.state}${s.error ? ` ${s.error}` : ''}`);
    t.true(states.includes('@rosetta/plugin-cli@0.1.0 southbound loaded'), states.join('; '));
    const match = scope.unitsFor('frr', '8.4.4');
    t.is(match.units.length, 1);
    const info: DeviceInfo = { nodeId: 'H1', protocol: 'cli', deviceType: 'frr', deviceVersion: '8.4.4', units: match.units };
    const connection = await scope.hooks.device.connect.for('cli').promise({ device: info, settings: cliSettings(device.port) });
    t.truthy(connection);
    try {
      const after = { 'rosetta-example-frr:static-routes': { route: [{ prefix: '10.5.0.0/16', 'next-hop': '10.0.0.1' }] } };
      const result = await scope.hooks.device.write.for('cli').promise({ device: info, connection: connection!, before: {}, after });
      t.deepEqual(result, { commands: ['ip route 10.5.0.0/16 10.0.0.1'] });
      const read = await scope.hooks.device.read
        .for('cli')
        .promise({ device: info, connection: connection!, path: pathValue('/rosetta-example-frr:static-routes'), content: 'config' });
      t.deepEqual(read, after);
    } finally {
      await connection!.close();
    }

    for (let i = 0; i < 100 && device.connections > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const old = scope.unitsFor('frr', '7.5');
    t.is(old.units.length, 0);
    const oldInfo: DeviceInfo = {
      nodeId: 'H2',
      protocol: 'cli',
      deviceType: 'frr',
      deviceVersion: '7.5',
      units: old.units,
      ...(old.reason ? { unitsMissingReason: old.reason } : {}),
    };
    // installed all the same (connected, no translated models): reads are empty, writes say why with the host's reason
    const uncovered = await scope.hooks.device.connect
      .for('cli')
      .promise({ device: oldInfo, settings: cliSettings(device.port, { 'device-version': '7.5' }) });
    try {
      t.deepEqual(
        await scope.hooks.device.read
          .for('cli')
          .promise({ device: oldInfo, connection: uncovered!, path: pathValue('/'), content: 'config' }),
        {},
      );
      const write = await scope.hooks.device.write
        .for('cli')
        .promise({ device: oldInfo, connection: uncovered!, before: {}, after: {} })
        .catch((e: Error) => e);
      t.regex(
        (write as Error).message,
        /no translation unit serves device-type "frr" version "7\.5": no translation unit for frr covers version 7\.5/,
      );
      t.is((write as { status?: number }).status, 404);
    } finally {
      await uncovered!.close();
    }
  } finally {
    scope.release();
    await device.close();
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

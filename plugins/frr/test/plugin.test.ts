/**
 * The FRR plugin as the core sees it: its manifest validated and the plugin served by the core's plugin
 * host to FRR 8.0 to 10.x (and to no other version or device type); and its units over SSH against the
 * SDK's FRR simulator, which the benchmarks start by the dozen: a write, the simulator's configuration,
 * and the read back.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { plugins } from '@rosetta/core';
import { cachingSession, connectSshCli, planWrite, readUnits, type JsonObject } from '@rosetta/sdk';
import { frrDevice, startSimulator } from '@rosetta/sdk/testing';
import { FRR_ERROR_PATTERNS, unit } from '../src/index';

const ROOT = path.resolve(__dirname, '../..');

test('the core validates the manifest and serves the unit to frr >=8.0.0 <11 only', async (t) => {
  const manifest = plugins.validateManifest(ROOT, JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')));
  t.true(manifest.ok, JSON.stringify(manifest));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-frr-'));
  const configFile = path.join(dir, 'plugins.json');
  fs.writeFileSync(configFile, JSON.stringify({ watch: false, plugins: [{ path: ROOT }] }));
  const host = await plugins.PluginHost.start({
    configFile,
    logger: { info: () => undefined, warn: () => undefined, error: (m: string) => t.log(m) },
  });
  try {
    t.like(host.status()[0], { name: '@rosetta/plugin-frr', version: '1.0.0', state: 'loaded', kind: 'translation-unit' });
    for (const version of ['8.0.0', '8.4.4', '9.1', '10.2.1']) t.is(host.unitsFor('frr', version).units.length, 1, version);
    const served = host.unitsFor('frr', '8.4.4').units[0]!;
    t.is(served.yangDir, path.join(ROOT, 'yang'));
    t.deepEqual((served.definition as typeof unit).errorPatterns, FRR_ERROR_PATTERNS);
    for (const version of ['7.5.1', '11.0.0']) t.regex(host.unitsFor('frr', version).reason ?? '', /covers version/, version);
    t.is(host.unitsFor('ios', '15.2').units.length, 0);
  } finally {
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the units over SSH against the SDK simulator: write, the simulated config, read back', async (t) => {
  const device = await startSimulator(frrDevice({ config: ['interface lo', ' description sim', 'exit'] }));
  // a simulator without credentials accepts any login
  const session = await connectSshCli({ host: device.host, port: device.port, username: 'frruser', password: 'frrpass' });
  try {
    const read = async () => (await readUnits([unit], cachingSession(session), { content: 'config' })) ?? {};
    const before: any = await read();
    t.deepEqual(before['rosetta-openconfig-interfaces:interfaces'].interface, [
      { name: 'lo', config: { name: 'lo', enabled: true, description: 'sim' } },
    ]);
    const after: any = structuredClone(before);
    after['rosetta-openconfig-network-instance:network-instances']['network-instance'][0].protocols = {
      protocol: [
        {
          identifier: 'rosetta-openconfig-policy-types:STATIC',
          name: 'static',
          config: { identifier: 'rosetta-openconfig-policy-types:STATIC', name: 'static' },
          'static-routes': {
            static: [
              {
                prefix: '192.0.2.0/24',
                config: { prefix: '192.0.2.0/24' },
                'next-hops': { 'next-hop': [{ index: 'DROP', config: { index: 'DROP', 'next-hop': 'DROP' } }] },
              },
            ],
          },
        },
      ],
    };
    after['rosetta-openconfig-network-instance:network-instances']['network-instance'].push({ name: 'sim', config: { name: 'sim' } });
    const plan = planWrite([unit], before, after);
    await session.exec('configure terminal');
    for (const c of plan.commands) {
      const out = await session.exec(c);
      t.false(
        FRR_ERROR_PATTERNS.some((p) => p.test(out)),
        `${c}: ${out}`,
      );
    }
    await session.exec('end');
    t.true(
      device.view.config.some((l) => l.text === 'ip route 192.0.2.0/24 Null0'),
      JSON.stringify(device.view.config.map((l) => l.text)) + JSON.stringify(plan.commands),
    );
    const back: any = await read();
    const nis = back['rosetta-openconfig-network-instance:network-instances']['network-instance'];
    t.deepEqual(
      nis.map((n: JsonObject) => n['name']),
      ['default', 'sim'],
    ); // an empty VRF, known from `show vrf`
    t.deepEqual(planWrite([unit], back, after).commands, []);
  } finally {
    session.close();
    await device.close();
  }
});

/**
 * Device-version matching on real vendor version strings, manifest validation and plugins.json checks.
 */
import test from 'ava';
import * as path from 'node:path';
import { coerceDeviceVersion, matchUnits } from '../../src/plugins/version-match';
import { validateManifest } from '../../src/plugins/manifest';
import { parsePluginsConfig } from '../../src/plugins/plugins-config';

// [vendor string as a device reports it, what it must read as]
const VENDOR_VERSIONS: Array<[string, string]> = [
  ['15.2(4)M3', '15.2.4'], // Cisco IOS
  ['15.2(4)M', '15.2.4'],
  ['12.2(55)SE12', '12.2.55'],
  ['17.3.1a', '17.3.1'], // IOS XE
  ['16.9.4', '16.9.4'],
  ['9.3(8)', '9.3.8'], // NX-OS
  ['7.0(3)I7(5a)', '7.0.3'],
  ['7.3.2', '7.3.2'], // IOS XR
  ['6.5.3.14I', '6.5.3'],
  ['18.4R3-S2', '18.4.3'], // Junos
  ['21.2R1.10', '21.2.1'],
  ['4.27.2F', '4.27.2'], // Arista EOS
  ['8.4.4', '8.4.4'], // FRR
  ['8.4', '8.4.0'],
  ['10.0-dev', '10.0.0'],
  ['5.3.4', '5.3.4'],
  ['1.3.2', '1.3.2'], // VyOS
  ['6.48.6 (long-term)', '6.48.6'], // MikroTik
  ['B-20.10.R1', '20.10.1'], // Nokia SR OS
  ['FRRouting 8.4.4', '8.4.4'],
  ['v2.5.1', '2.5.1'],
];

for (const [vendor, expected] of VENDOR_VERSIONS) {
  test(`coerces ${vendor} to ${expected}`, (t) => {
    const v = coerceDeviceVersion(vendor);
    t.is(v?.kind, 'exact');
    if (v?.kind === 'exact') t.is(`${v.semver.major}.${v.semver.minor}.${v.semver.patch}`, expected);
  });
}

test('* and empty mean any version; garbage is refused, not thrown', (t) => {
  t.deepEqual(coerceDeviceVersion('*'), { kind: 'any' });
  t.deepEqual(coerceDeviceVersion(''), { kind: 'any' });
  t.is(coerceDeviceVersion('unknown'), undefined);
  t.is(coerceDeviceVersion('x'.repeat(100_000)), undefined);
  t.is(coerceDeviceVersion(`${'('.repeat(10_000)}1`), undefined); // over the length bound, refused at once
});

const units = [
  { plugin: '@rosetta/plugin-frr', version: '1.2.0', deviceType: 'frr', versions: '>=8.1 <11' },
  { plugin: '@rosetta/plugin-frr', version: '1.3.0', deviceType: 'frr', versions: '>=8.4 <11' },
  { plugin: '@rosetta/plugin-frr', version: '0.9.0', deviceType: 'frr', versions: '>=7 <8.1' },
  { plugin: '@rosetta/plugin-frr-bgp', version: '2.0.0', deviceType: 'frr', versions: '>=8' },
  { plugin: '@rosetta/plugin-ios', version: '1.0.0', deviceType: 'ios', versions: '>=15.0 <16' },
  { plugin: '@rosetta/plugin-ios-xe', version: '1.0.0', deviceType: 'ios-xe', versions: '^17.3.0' },
  { plugin: '@rosetta/plugin-junos', version: '1.0.0', deviceType: 'junos', versions: '>=18.4 <22' },
  { plugin: '@rosetta/plugin-any', version: '1.0.0', deviceType: 'generic', versions: '*' },
];
const names = (m: { units: readonly { plugin: string; version: string }[] }) => m.units.map((u) => `${u.plugin}@${u.version}`);

test('highest version of one plugin wins; several plugins serve one device', (t) => {
  t.deepEqual(names(matchUnits(units, 'frr', '8.4.4')), ['@rosetta/plugin-frr@1.3.0', '@rosetta/plugin-frr-bgp@2.0.0']);
  // 8.2 is outside 1.3.0's range, so 1.2.0 serves it
  t.deepEqual(names(matchUnits(units, 'frr', '8.2.0')), ['@rosetta/plugin-frr@1.2.0', '@rosetta/plugin-frr-bgp@2.0.0']);
  t.deepEqual(names(matchUnits(units, 'frr', '7.5.1')), ['@rosetta/plugin-frr@0.9.0']);
  t.deepEqual(names(matchUnits(units, 'frr', '*')), ['@rosetta/plugin-frr@1.3.0', '@rosetta/plugin-frr-bgp@2.0.0']);
});

test('vendor strings match vendor ranges', (t) => {
  t.deepEqual(names(matchUnits(units, 'ios', '15.2(4)M3')), ['@rosetta/plugin-ios@1.0.0']);
  t.deepEqual(names(matchUnits(units, 'ios-xe', '17.3.1a')), ['@rosetta/plugin-ios-xe@1.0.0']);
  t.deepEqual(names(matchUnits(units, 'junos', '18.4R3-S2')), ['@rosetta/plugin-junos@1.0.0']);
  t.deepEqual(names(matchUnits(units, 'generic', '5.3.4')), ['@rosetta/plugin-any@1.0.0']);
  t.deepEqual(names(matchUnits(units, 'ios-xe', '16.9.4')), []);
});

test('a device no unit covers gets a reason naming what is offered', (t) => {
  const uncovered = matchUnits(units, 'frr', '6.0');
  t.deepEqual(uncovered.units, []);
  t.regex(
    uncovered.reason ?? '',
    /no translation unit for frr covers version 6\.0 \(read as 6\.0\.0\).*plugin-frr 1\.2\.0 serves >=8\.1 <11/,
  );
  t.regex(matchUnits(units, 'eos', '4.27.2F').reason ?? '', /no translation unit is loaded for device type "eos"/);
  t.regex(matchUnits(units, 'frr', 'garbage').reason ?? '', /cannot be read as a version/);
});

const folder = path.resolve('/plugins/frr');
const goodUnit = {
  name: '@rosetta/plugin-frr',
  version: '1.2.0',
  rosetta: { kind: 'translation-unit', entry: 'dist/index.js', yang: 'yang', device: { type: 'frr', versions: '>=8.1 <11' } },
};

test('a good translation-unit manifest resolves its paths inside the folder', (t) => {
  const r = validateManifest(folder, goodUnit);
  if (!r.ok) return t.fail(JSON.stringify(r.problems));
  t.is(r.manifest.entry, path.join(folder, 'dist/index.js'));
  t.is(r.manifest.yangDir, path.join(folder, 'yang'));
  t.deepEqual(r.manifest.device, { type: 'frr', versions: '>=8.1 <11' });
});

test('manifest problems name the plugin and the field', (t) => {
  const cases: Array<[unknown, string]> = [
    [{ ...goodUnit, version: '1.2' }, 'version'],
    [{ ...goodUnit, name: 'Bad Name' }, 'name'],
    [{ name: 'x', version: '1.0.0' }, 'rosetta'],
    [{ ...goodUnit, rosetta: { ...goodUnit.rosetta, kind: 'translator' } }, 'rosetta.kind'],
    [{ ...goodUnit, rosetta: { ...goodUnit.rosetta, entry: '../../etc/passwd' } }, 'rosetta.entry'],
    [{ ...goodUnit, rosetta: { ...goodUnit.rosetta, entry: 42 } }, 'rosetta.entry'],
    [{ ...goodUnit, rosetta: { ...goodUnit.rosetta, device: { type: 'frr', versions: 'eight' } } }, 'rosetta.device.versions'],
    [{ ...goodUnit, rosetta: { ...goodUnit.rosetta, device: undefined } }, 'rosetta.device'],
    [{ ...goodUnit, rosetta: { kind: 'southbound', entry: 'i.js', device: { type: 'x', versions: '*' } } }, 'rosetta.device'],
  ];
  for (const [pkg, field] of cases) {
    const r = validateManifest(folder, pkg);
    t.false(r.ok, field);
    if (!r.ok) {
      t.true(
        r.problems.some((p) => p.field === field),
        `${field}: ${JSON.stringify(r.problems)}`,
      );
      const name = (pkg as { name?: string }).name;
      t.is(r.problems[0]!.plugin, String(name));
    }
  }
  const notObject = validateManifest(folder, [1, 2]);
  t.false(notObject.ok);
  if (!notObject.ok) t.is(notObject.problems[0]!.plugin, 'frr');
});

test('plugins.json: entries resolved against its folder; bad entries named and left out', (t) => {
  const r = parsePluginsConfig(
    {
      watch: false,
      plugins: [
        { path: 'plugins/cli', enabled: true },
        { path: 'plugins/tls', enabled: false, config: { port: 8443 } },
        { path: 'plugins/cli' },
        { path: 'plugins/x', enabled: 'yes' },
        { enabled: true },
        'plugins/y',
        { path: 'plugins/z', config: [] },
      ],
    },
    '/srv/rosetta',
  );
  t.is(r.config?.watch, false);
  t.deepEqual(
    r.config?.entries.map((e) => [e.folder, e.enabled]),
    [
      ['/srv/rosetta/plugins/cli', true],
      ['/srv/rosetta/plugins/tls', false],
    ],
  );
  t.deepEqual(r.config?.entries[1]?.config, { port: 8443 });
  t.deepEqual(
    r.problems.map((p) => p.field),
    ['plugins[2].path', 'plugins[3].enabled', 'plugins[4].path', 'plugins[5]', 'plugins[6].config'],
  );
  t.is(parsePluginsConfig('[]', '/').config, undefined);
  t.is(parsePluginsConfig({ plugins: {} }, '/').config, undefined);
});

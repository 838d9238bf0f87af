/**
 * The example plugin (sdk/examples/frr-minimal) through the transcript harness, against output recorded
 * from a real FRR 8.4.4 (transcripts/frr-8.4.4.log); its read output checked by yanglint against its own
 * YANG module; and the plugin loaded by the core's real plugin host from a plugins.json.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { plugins } from '@rosetta/core';
import { TranslationError, type JsonObject } from '@rosetta/sdk';
import { parseSessionLog, TranscriptMissError, unitHarness } from '@rosetta/sdk/testing';

const EXAMPLE = path.resolve(__dirname, '../../examples/frr-minimal');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require(path.join(EXAMPLE, 'dist/index.js')).default;
const transcript = parseSessionLog(fs.readFileSync(path.join(EXAMPLE, 'transcripts/frr-8.4.4.log'), 'utf8'));
const YANG = path.join(EXAMPLE, 'yang/rosetta-example-frr@2026-11-22.yang');

test('the recorded session log becomes a command table', (t) => {
  t.deepEqual(Object.keys(transcript), ['show running-config', 'show interface json', 'show version']);
  t.true(transcript['show running-config']!.startsWith('Building configuration...'));
});

test('reads config and state of the whole device from the transcript', async (t) => {
  const h = unitHarness(example, transcript);
  const all = await h.read('/');
  t.deepEqual(all, {
    'rosetta-example-frr:interfaces': {
      interface: [
        { name: 'eth7', config: { enabled: false, description: 'uplink to core' }, state: { 'admin-status': 'down' } },
        {
          name: 'lo',
          config: { enabled: true, description: 'loopback of R1' },
          state: { 'admin-status': 'up', 'oper-status': 'up', mtu: 65536 },
        },
      ],
    },
    'rosetta-example-frr:static-routes': {
      route: [
        { prefix: '192.0.2.0/24', 'next-hop': 'Null0' },
        { prefix: '198.51.100.0/24', 'next-hop': '127.0.0.2' },
      ],
    },
  });
  // one round trip per show command, however many readers used it
  t.deepEqual(h.executed, ['show running-config', 'show interface json']);
});

test('what the unit reads is valid against its own YANG module (yanglint)', async (t) => {
  const all = await unitHarness(example, transcript).read('/');
  const file = path.join(os.tmpdir(), `example-read-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(all));
  try {
    execFileSync('yanglint', ['-t', 'data', YANG, file], { stdio: 'pipe' });
    t.pass();
  } catch (err) {
    t.fail(String((err as { stderr?: Buffer }).stderr ?? err));
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('config-only and targeted reads', async (t) => {
  const config = unitHarness(example, transcript);
  const c = await config.read('/', 'config');
  t.deepEqual((c!['rosetta-example-frr:interfaces'] as JsonObject)['interface'], [
    { name: 'eth7', config: { enabled: false, description: 'uplink to core' } },
    { name: 'lo', config: { enabled: true, description: 'loopback of R1' } },
  ]);
  t.deepEqual(config.executed, ['show running-config']); // config reads never ask for interface state
  const h = unitHarness(example, transcript);
  t.deepEqual(await h.read("/rosetta-example-frr:interfaces/interface[name='lo']/state"), {
    'rosetta-example-frr:state': { 'admin-status': 'up', 'oper-status': 'up', mtu: 65536 },
  });
  t.deepEqual(await h.read("/rosetta-example-frr:interfaces/interface[name='eth7']", 'config'), {
    'rosetta-example-frr:interface': [{ name: 'eth7', config: { enabled: false, description: 'uplink to core' } }],
  });
  t.is(await h.read("/rosetta-example-frr:interfaces/interface[name='eth9']"), undefined);
  t.deepEqual(await h.read("/rosetta-example-frr:static-routes/route[prefix='192.0.2.0/24'][next-hop='Null0']"), {
    'rosetta-example-frr:route': [{ prefix: '192.0.2.0/24', 'next-hop': 'Null0' }],
  });
  await t.throwsAsync(h.read('not-a-path'), { instanceOf: TranslationError, message: /a path starts with \// });
});

test('a command missing from the transcript is named', async (t) => {
  const h = unitHarness(example, { 'show running-config': transcript['show running-config']! });
  const err = await t.throwsAsync(h.read('/', 'all'));
  t.regex(err?.message ?? '', /list failed: the transcript has no output for "show interface json"/);
  t.true(err instanceof TranslationError);
  t.true(TranscriptMissError.name.length > 0);
});

test('writes: the commands and the undo a change produces', async (t) => {
  const h = unitHarness(example, transcript);
  const before = (await h.read('/', 'config'))!;
  const after = structuredClone(before) as any;
  after['rosetta-example-frr:interfaces'].interface[0].config = { enabled: true }; // eth7: no shutdown, no description
  after['rosetta-example-frr:interfaces'].interface.push({ name: 'eth8', config: { description: 'new link' } });
  after['rosetta-example-frr:static-routes'].route.splice(1, 1);
  after['rosetta-example-frr:static-routes'].route.push({ prefix: '203.0.113.0/24', 'next-hop': 'Null0' });
  const plan = h.write(before, after);
  t.deepEqual(plan.commands, [
    'no ip route 198.51.100.0/24 127.0.0.2',
    'interface eth7',
    ' no description',
    ' no shutdown',
    'exit',
    'interface eth8',
    ' description new link',
    'exit',
    'ip route 203.0.113.0/24 Null0',
  ]);
  t.deepEqual(plan.undo, [
    'no ip route 203.0.113.0/24 Null0',
    'no interface eth8',
    'interface eth7',
    ' description uplink to core',
    ' shutdown',
    'exit',
    'ip route 198.51.100.0/24 127.0.0.2',
  ]);
  t.deepEqual(plan.undoGaps, []);
  t.deepEqual(h.write(before, before).commands, []);
  const gone = structuredClone(before) as any;
  delete gone['rosetta-example-frr:interfaces'];
  t.deepEqual(h.write(before, gone).commands, ['no interface eth7', 'no interface lo']);
});

test('a change no writer covers is refused with its path', (t) => {
  const h = unitHarness(example, transcript);
  const err = t.throws(() => h.write({}, { 'rosetta-example-frr:other': { x: 1 } }));
  t.regex(err?.message ?? '', /^\/rosetta-example-frr:other: no writer/);
});

test('the example is a real plugin: the core validates its manifest and serves it to frr 8.4.4', async (t) => {
  const manifest = plugins.validateManifest(EXAMPLE, JSON.parse(fs.readFileSync(path.join(EXAMPLE, 'package.json'), 'utf8')));
  t.true(manifest.ok, JSON.stringify(manifest));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-example-'));
  const configFile = path.join(dir, 'plugins.json');
  fs.writeFileSync(configFile, JSON.stringify({ watch: false, plugins: [{ path: EXAMPLE }] }));
  const quiet = { info: () => undefined, warn: () => undefined, error: (m: string) => t.log(m) };
  const host = await plugins.PluginHost.start({ configFile, logger: quiet });
  try {
    t.like(host.status()[0], { name: '@rosetta/example-frr-minimal', version: '1.0.0', state: 'loaded', kind: 'translation-unit' });
    const served = host.unitsFor('frr', '8.4.4');
    t.deepEqual(
      served.units.map((u) => u.plugin),
      ['@rosetta/example-frr-minimal'],
    );
    t.is(served.units[0]!.yangDir, path.join(EXAMPLE, 'yang'));
    const viaHost = await unitHarness(
      served.units.map((u) => u.definition as any),
      transcript,
    ).read('/', 'config');
    t.truthy(viaHost?.['rosetta-example-frr:interfaces']);
    t.regex(host.unitsFor('frr', '7.5.1').reason ?? '', /covers version 7\.5\.1/);
  } finally {
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

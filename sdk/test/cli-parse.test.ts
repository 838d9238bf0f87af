/**
 * CLI output helpers on output recorded from FRR 8.4.4 (the example's transcript) and on FRR's BGP
 * running-config layout from the peer report; per-request caching of show commands and their prefetch
 * (typed ahead in one call), a unit's typeAhead flag; definePlugin and defineSettings.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  asTranslationUnit,
  cachingSession,
  cliError,
  defineTranslationUnit,
  CliOutputError,
  definePlugin,
  defineSettings,
  field,
  fields,
  parseBlocks,
  parseJsonOutput,
  records,
  sections,
} from '@rosetta/sdk';
import { parseSessionLog } from '@rosetta/sdk/testing';

const log = parseSessionLog(fs.readFileSync(path.resolve(__dirname, '../../examples/frr-minimal/transcripts/frr-8.4.4.log'), 'utf8'));
const running = log['show running-config']!;

test('indented blocks and sections of a real running config', (t) => {
  const blocks = parseBlocks(running);
  t.deepEqual(blocks.map((b) => b.text).slice(2, 7), [
    'frr version 8.4.4',
    'frr defaults traditional',
    'hostname frr-peer',
    'no ip forwarding',
    'no ipv6 forwarding',
  ]);
  const ifaces = sections(running, /^interface (\S+)$/);
  t.deepEqual(
    ifaces.map((s) => [s.match[1], s.lines]),
    [
      ['eth7', ['description uplink to core', 'shutdown']],
      ['lo', ['description loopback of R1']],
    ],
  );
  t.is(ifaces[0]!.block.line, 15);
  const bgp = parseBlocks(
    'router bgp 65001\n bgp router-id 1.1.1.1\n !\n address-family ipv4 unicast\n  network 10.0.0.0/8\n exit-address-family\nexit\n!\nend',
  );
  t.is(bgp.length, 1);
  t.deepEqual(
    bgp[0]!.children.map((c) => c.text),
    ['bgp router-id 1.1.1.1', 'address-family ipv4 unicast'],
  );
  t.deepEqual(
    bgp[0]!.children[1]!.children.map((c) => c.text),
    ['network 10.0.0.0/8'],
  );
  t.deepEqual(parseBlocks('\r\n\t\r\n'), []);
});

test('fields and records by regex', (t) => {
  t.deepEqual(
    fields(log['show version']!, { version: /^FRRouting (\S+)/, host: /^FRRouting \S+ \((\S+)\)/, kernel: /on Linux\(([^)]*)\)/ }),
    { version: '8.4.4', host: 'frr-peer', kernel: '6.18.44-fc-v595' },
  );
  t.is(field(running, /^hostname (\S+)/), 'frr-peer');
  t.is(field(running, /^no such/), undefined);
  t.deepEqual(records(running, /^ip route (?<prefix>\S+) (?<via>\S+)$/), [
    { prefix: '192.0.2.0/24', via: 'Null0' },
    { prefix: '198.51.100.0/24', via: '127.0.0.2' },
  ]);
});

test('JSON output, CLI errors and junk', (t) => {
  const json = parseJsonOutput(log['show interface json']!) as Record<string, Record<string, unknown>>;
  t.is(json['lo']!['mtu'], 65536);
  t.is(json['eth7']!['administrativeStatus'], 'down');
  t.deepEqual(parseJsonOutput('show bgp summary json\n{"ipv4Unicast":{}}\n'), { ipv4Unicast: {} });
  t.throws(() => parseJsonOutput('% Unknown command: show foo json'), {
    instanceOf: CliOutputError,
    message: /answered with an error: % Unknown command: show foo json/,
  });
  t.throws(() => parseJsonOutput('Building configuration...'), { message: /no JSON in the output/ });
  t.throws(() => parseJsonOutput('{"a": '), { message: /not valid JSON/ });
  t.is(cliError('ok\n% Command incomplete: ip route 1.2.3.0/24\n'), '% Command incomplete: ip route 1.2.3.0/24');
  t.is(cliError(running), undefined);
});

test('a request session asks the device once per show command; config commands always go through', async (t) => {
  const calls: string[] = [];
  const session = cachingSession({
    exec: async (c) => {
      calls.push(c);
      if (c === 'show fail') throw new Error('timeout');
      return `out of ${c}`;
    },
  });
  const outs = await Promise.all([
    session.exec('show running-config'),
    session.exec('show running-config'),
    session.exec('show running-config'),
  ]);
  t.deepEqual(outs, ['out of show running-config', 'out of show running-config', 'out of show running-config']);
  await session.exec('interface lo');
  await session.exec('interface lo');
  await t.throwsAsync(session.exec('show fail'));
  await t.throwsAsync(session.exec('show fail')); // a failure is not cached
  t.deepEqual(calls, ['show running-config', 'interface lo', 'interface lo', 'show fail', 'show fail']);
});

test('prefetch types the show commands ahead in one call; readers get those outputs; others wait for them', async (t) => {
  const calls: string[][] = [];
  let answer!: () => void;
  const typedAhead = new Promise<void>((r) => {
    answer = r;
  });
  const session = cachingSession({
    exec: async (c) => {
      calls.push([c]);
      return `out of ${c}`;
    },
    execAll: (cs) => {
      calls.push([...cs]);
      return cs.map(async (c) => {
        await typedAhead;
        if (c === 'show fail') throw new Error('refused');
        return `typed ${c}`;
      });
    },
  });
  const prefetched = session.prefetch(['show a', 'configure terminal', 'show b', 'show a', 'show fail']);
  t.deepEqual(calls, [['show a', 'show b', 'show fail']], 'only show commands, each once, in one call');
  const later = session.exec('show c'); // not prefetched: sent once the typed-ahead commands are answered
  t.deepEqual(calls.length, 1);
  answer();
  t.is(await session.exec('show b'), 'typed show b');
  t.is(await later, 'out of show c');
  await prefetched;
  t.is(await session.exec('show a'), 'typed show a');
  t.is(await session.exec('show fail'), 'out of show fail', 'a failed prefetch is not cached: the reader asks again');
  await session.prefetch(['show a']); // cached already: nothing sent
  t.deepEqual(calls, [['show a', 'show b', 'show fail'], ['show c'], ['show fail']]);
  t.deepEqual(session.commandsSent, ['show a', 'show b', 'show fail', 'show c', 'show fail']);
  t.deepEqual(session.commandsAsked, ['show c', 'show b', 'show a', 'show fail'], 'what readers asked for, not what was prefetched');
  const plain = cachingSession({ exec: async (c) => `out of ${c}` });
  await plain.prefetch(['show a']);
  t.deepEqual(plain.commandsSent, [], 'a session that cannot type ahead prefetches nothing');
});

test('typeAhead: false unless the unit says so; a unit from an older SDK gets it', (t) => {
  t.false(defineTranslationUnit({ paths: {} }).typeAhead);
  t.true(defineTranslationUnit({ paths: {}, typeAhead: true }).typeAhead);
  t.throws(() => defineTranslationUnit({ paths: {}, typeAhead: 'yes' as never }), { message: /typeAhead must be a boolean/ });
  const older = { kind: 'rosetta-translation-unit' as const, registrations: [], errorPatterns: [], unusablePatterns: [] };
  t.false(asTranslationUnit(older).typeAhead);
});

test('definePlugin builds what the core loads; defineSettings names each bad field', (t) => {
  const check = defineSettings({
    host: { type: 'string', required: true },
    port: { type: 'number', default: 22, min: 1, max: 65535, integer: true },
    tags: { type: 'string-list', default: [] },
    verbose: { type: 'boolean' },
  });
  const plugin = definePlugin({ settings: check, setup: () => undefined });
  t.is(plugin.rosettaPlugin, 1);
  t.true(Object.isFrozen(plugin));
  t.deepEqual(plugin.settings!({ host: 'a' }), { ok: true, value: { host: 'a', port: 22, tags: [] } });
  const bad = plugin.settings!({ port: 70000.5, tags: [1], verbose: 'yes', colour: 'red' });
  t.false(bad.ok);
  if (!bad.ok) {
    t.deepEqual(
      bad.problems.map((p) => p.field),
      ['colour', 'host', 'port', 'tags', 'verbose'],
    );
    t.regex(bad.problems.find((p) => p.field === 'port')!.message, /must be an integer, got 70000.5/);
  }
});

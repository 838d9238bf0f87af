/**
 * The CLI southbound's pieces without a network: prompts learned from real FRR login bytes (REPORT.md)
 * and from other CLIs, garbage that must not be taken for a prompt, the install-node settings reader,
 * device error lines by unit patterns, the write plan split into steps and the exact undo of a prefix,
 * and the plugin's YANG module compiled by yanglint and by the core, with the same tree.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { asTranslationUnit, type JsonObject } from '@rosetta/sdk';
import { cpuStopwatch } from '@rosetta/sdk/testing';
import { findDeviceError, learnPrompt, planSteps, readCliSettings, undoFor } from '../src/index';
import { EXAMPLE_UNIT, frrPluginUnit } from './fixture';

const FRR_LOGIN = '\r\nHello, this is FRRouting (version 8.4.4).\r\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\r\n\r\nfrr-peer# ';

test('prompt: learned from FRR login bytes; mode prompts derived from it', (t) => {
  const p = learnPrompt(FRR_LOGIN)!;
  t.is(p.host, 'frr-peer');
  t.is(p.base, 'frr-peer# ');
  t.deepEqual(p.find('show x\r\nout\r\nfrr-peer# '), {
    index: 'show x\r\nout\r\n'.length,
    text: 'frr-peer# ',
    mode: undefined,
    privileged: true,
  });
  t.is(p.find('interface lo\r\nfrr-peer(config-if)# ')!.mode, 'config-if');
  t.is(p.find('frr-peer(config-router-af)# ')!.mode, 'config-router-af');
  t.false(p.find('x\r\nfrr-peer> ')!.privileged);
  t.is(p.find('hostname frr-peer\r\n'), undefined, 'a finished line is output, not a prompt');
  t.is(p.find('frr-peer# show running'), undefined, 'a prompt followed by text is not a prompt');
  t.is(p.find('other-host# '), undefined, 'another host name is not this device');
  t.is(p.find('\x1b[1mfrr-peer(config)#\x1b[0m ')!.mode, 'config', 'escape sequences around a prompt are ignored');
});

test('prompt: other CLIs, and text that is no prompt', (t) => {
  t.is(learnPrompt('User Access Verification\r\n\r\nR1>')!.host, 'R1');
  t.is(learnPrompt('\r\nRP/0/RSP0/CPU0:xr-1#')!.host, 'RP/0/RSP0/CPU0:xr-1');
  t.is(learnPrompt('[admin@mikro] > ')?.host, undefined, 'spaces inside are not a Cisco-like prompt');
  t.is(learnPrompt('Hello, this is FRRouting (version 8.4.4).\r\n'), undefined, 'a banner line ending in a newline');
  t.is(learnPrompt(''), undefined);
  t.is(learnPrompt('#'), undefined);
  const long = `${'a'.repeat(100_000)}#`;
  const cpuMs = cpuStopwatch();
  t.is(learnPrompt(long), undefined);
  t.is(learnPrompt('x('.repeat(50_000)), undefined);
  t.true(cpuMs() < 200, `linear on garbage (${cpuMs().toFixed(0)} ms of CPU)`);
});

test('settings: defaults, numeric strings, every bad member named, secrets never echoed', (t) => {
  const ok = readCliSettings({ host: 'r1', port: '2222', username: 'u', password: '', 'device-type': 'frr' });
  t.true(ok.ok);
  if (ok.ok) {
    t.is(ok.value.port, 2222);
    t.is(ok.value.password, '');
    t.is(ok.value.commandTimeout, 60);
    t.is(ok.value.maxConnectionAttempts, 1);
    t.is(ok.value.keepaliveDelay, 60);
  }
  const bad = readCliSettings({
    port: 70000,
    username: 7,
    password: 'sec\nret',
    secret: ['topsecret'],
    'transport-type': 'telnet',
    'keepalive-delay': -1,
    colour: 'red',
  } as never);
  t.false(bad.ok);
  if (!bad.ok) {
    const text = bad.problems.join('\n');
    for (const field of [
      'host: required',
      'port: must be an integer',
      'username: must be',
      'password: must be',
      'secret: must be',
      'telnet is not supported',
      'keepalive-delay: must be',
      'colour: unknown setting',
    ]) {
      t.true(text.includes(field), field);
    }
    t.false(text.includes('topsecret') || text.includes('sec\nret'));
  }
});

test('device errors: the line an error pattern matches, default `% ` lines', (t) => {
  t.is(findDeviceError('\n% Unknown command: foo\n', []), '% Unknown command: foo');
  t.is(findDeviceError('ok\n', []), undefined);
  t.is(
    findDeviceError('BGP is already running; AS is 65001\n', [/^% /m, /^BGP is already running; AS is \d+/m]),
    'BGP is already running; AS is 65001',
  );
  t.is(findDeviceError('warning\n% Invalid input\n', [/% Invalid/g]), '% Invalid input', 'a global pattern is used without its state');
});

const unit = asTranslationUnit(EXAMPLE_UNIT.definition);
const IF = (name: string, description?: string): JsonObject => ({
  name,
  config: description === undefined ? { enabled: true } : { enabled: true, description },
});

test('plan: steps add up to the SDK plan; the undo of a prefix is exactly the started steps, newest first', (t) => {
  const before: JsonObject = {
    'rosetta-example-frr:interfaces': { interface: [IF('eth0', 'old'), IF('eth9')] },
    'rosetta-example-frr:static-routes': { route: [{ prefix: '10.1.0.0/16', 'next-hop': '10.0.0.1' }] },
  };
  const after: JsonObject = {
    'rosetta-example-frr:interfaces': { interface: [IF('eth0', 'new'), IF('eth1', 'added')] },
    'rosetta-example-frr:static-routes': { route: [{ prefix: '172.16.0.0/12', 'next-hop': '10.0.0.1' }] },
  };
  const plan = planSteps([unit], before, after);
  t.deepEqual(plan.commands, [
    'no interface eth9',
    'no ip route 10.1.0.0/16 10.0.0.1',
    'interface eth0',
    ' description new',
    'exit',
    'interface eth1',
    ' description added',
    'exit',
    'ip route 172.16.0.0/12 10.0.0.1',
  ]);
  t.truthy(plan.steps);
  t.deepEqual(
    plan.steps!.map((s) => s.start),
    [0, 1, 2, 5, 8],
  );
  t.deepEqual(undoFor(plan, plan.commands.length), plan.undo, 'everything sent: the whole undo');
  t.deepEqual(undoFor(plan, 0), [], 'the first command refused: nothing to undo');
  t.deepEqual(undoFor(plan, 1), ['interface eth9', 'exit']);
  t.deepEqual(
    undoFor(plan, 4),
    ['interface eth0', ' description old', 'exit', 'ip route 10.1.0.0/16 10.0.0.1', 'interface eth9', 'exit'],
    'a step refused midway (after `interface eth0`) is undone too',
  );
  t.deepEqual(undoFor(plan, 8), [
    'no interface eth1',
    'interface eth0',
    ' description old',
    'exit',
    'ip route 10.1.0.0/16 10.0.0.1',
    'interface eth9',
    'exit',
  ]);
  t.deepEqual(planSteps([unit], before, before).commands, []);
});

test('plan: with plugins/frr units (when built), BGP neighbors under a created instance', (t) => {
  const frr = frrPluginUnit();
  if (!frr) {
    t.log('plugins/frr is not built; skipped');
    t.pass();
    return;
  }
  const units = [asTranslationUnit(frr.definition)];
  const after: JsonObject = {
    'rosetta-openconfig-network-instance:network-instances': {
      'network-instance': [
        {
          name: 'default',
          protocols: {
            protocol: [
              {
                identifier: 'rosetta-openconfig-policy-types:BGP',
                name: 'default',
                bgp: {
                  global: { config: { as: 65001 } },
                  neighbors: {
                    neighbor: [{ 'neighbor-address': '192.0.2.1', config: { 'neighbor-address': '192.0.2.1', 'peer-as': 65002 } }],
                  },
                },
              },
            ],
          },
        },
      ],
    },
  };
  let plan: ReturnType<typeof planSteps>;
  try {
    plan = planSteps(units, {}, after);
  } catch (e) {
    t.log(`plugins/frr refused this document (its model may differ): ${(e as Error).message}`);
    t.pass();
    return;
  }
  t.truthy(plan.steps, 'the writers of plugins/frr are matched to its plan');
  t.deepEqual(undoFor(plan, plan.commands.length), plan.undo);
});

test('YANG: cli-unit-generic compiles with yanglint and the core, with the same tree', (t) => {
  const file = path.resolve(__dirname, '../../yang/cli-unit-generic@2026-11-22.yang');
  const repo = path.resolve(__dirname, '../../../..');
  const ours = execFileSync(process.execPath, [path.join(repo, 'core/bin/rosetta.js'), 'yang', 'tree', file], { encoding: 'utf8' });
  t.regex(ours, /\+---x dry-run\n {7}\+---w input\n {7}\| {2}\+---w before\? {3}anydata/);
  if (!fs.existsSync('/usr/bin/yanglint')) {
    t.log('yanglint is not installed: compared with the core only');
    return;
  }
  const reference = execFileSync('/usr/bin/yanglint', ['-f', 'tree', file], { encoding: 'utf8' });
  t.is(ours.trim(), reference.trim());
});

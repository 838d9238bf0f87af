/**
 * The CLI southbound through its hooks against the SDK's device simulator over real SSH: install (prompt
 * learned, enable secret, wrong password, closed port, telnet, no unit), reads (each show command once),
 * writes in one configuration session, a refused command rolled back in reverse with the exact undo
 * commands, two concurrent requests queued, a device hanging mid-output, reconnect after the device
 * restarts, keepalive, execute-and-read, dry-run, uninstall.
 */
import test from 'ava';
import { NodeSettingsError, type DeviceEvents, type JsonObject } from '@rosetta/sdk';
import { cpuStopwatch, frrDevice, startSimulator, type DeviceDefinition, type SimulatedDevice } from '@rosetta/sdk/testing';
import { CliCommandError, CliConnectionError, CliNoModelsError, CliTimeoutError, isCliDevice, type CliDevice } from '../src/index';
import { cliSettings, harness, type Harness } from './fixture';

const creds = { username: 'frruser', password: 'frrpass' };

async function sim(extra: Partial<DeviceDefinition> = {}, config: string[] = [], port = 0): Promise<SimulatedDevice> {
  return startSimulator({ ...frrDevice({ ...creds, config }), ...extra }, { port });
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function cli(c: { connection: unknown }): CliDevice {
  if (!isCliDevice(c.connection as never)) throw new Error('not a CLI device');
  return c.connection as CliDevice;
}

const IFACE = (name: string, description?: string): JsonObject => ({
  name,
  config: description === undefined ? { enabled: true } : { enabled: true, description },
});

let h: Harness;
test.before(async () => {
  h = await harness();
});

test('install: logs in, learns the prompt, says what it connected to, never shows the password', async (t) => {
  const device = await sim();
  const node = await h.connect('R1', cliSettings(device.port));
  try {
    t.is(node.connection.status?.(), 'connected');
    t.regex(node.connection.message!, /^connected to frruser@127\.0\.0\.1:\d+ over SSH, device-type frr 8\.4\.4, prompt "frr-peer#"$/);
    t.false(JSON.stringify(node.connection).includes('frrpass'));
    t.false(require('node:util').inspect(node.connection, { depth: 5 }).includes('frrpass'));
    t.false(h.log.lines.join('\n').includes('frrpass'));
    t.deepEqual(device.commandLog, [], 'FRR needs no paging command and is privileged at login');
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('the prompt is learned from the device, whatever its host name and banner', async (t) => {
  const device = await sim({ hostname: 'edge-7.lab', banner: 'Welcome\r\nUnauthorized access prohibited #1 > 2\r\n\r\n' });
  const node = await h.connect('R-odd', cliSettings(device.port, { 'device-type': 'frr' }));
  try {
    t.true(node.connection.message!.endsWith('prompt "edge-7.lab#"'));
    // configuration modes derive from the learned prompt: a write enters and leaves them
    const sent = await h.write(node, {}, { 'rosetta-example-frr:interfaces': { interface: [IFACE('eth1', 'up link')] } });
    t.deepEqual(sent, ['interface eth1', ' description up link', 'exit']);
    t.deepEqual(device.commandLog, ['configure terminal', 'interface eth1', 'description up link', 'exit', 'end']);
    t.regex(device.view.runningConfig(), /interface eth1\n description up link/);
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('a device landing in user mode is enabled with the secret; paging is turned off for other types', async (t) => {
  const device = await sim({ hostname: 'R1', enableSecret: 's3cret' });
  const node = await h.connect('R-enable', cliSettings(device.port, { secret: 's3cret' }));
  try {
    t.true(node.connection.message!.endsWith('prompt "R1>"'));
    const out = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show running-config' });
    t.regex(String(out!['output']), /hostname frr-peer/, 'privileged command works after enable');
    t.deepEqual(device.commandLog.slice(0, 2), ['enable', 'show running-config'], 'device-type frr: no paging command');
    t.false(device.commandLog.includes('s3cret'), 'the secret is not recorded as a command');
  } finally {
    await node.connection.close();
  }
  const other = await h.connect('R-enable-2', cliSettings(device.port, { secret: 's3cret', 'device-type': 'frr' }), undefined);
  await other.connection.close();
  const wrong = await h.connect('R-enable-3', cliSettings(device.port, { secret: 'nope' })).catch((e: Error) => e);
  t.true(wrong instanceof CliConnectionError);
  t.regex((wrong as Error).message, /refused the enable secret/);
  t.false((wrong as Error).message.includes('nope'));
  const missing = await h.connect('R-enable-4', cliSettings(device.port)).catch((e: Error) => e);
  t.regex((missing as Error).message, /asks for an enable secret: set cli-topology:secret/);
  await device.close();
});

test('wrong password, closed port, telnet, bad port: clear errors without secrets; an unknown device type is installed without models', async (t) => {
  const device = await sim();
  try {
    const wrong = await h.connect('bad-pw', cliSettings(device.port, { password: 'hunter2' })).catch((e: Error) => e);
    t.true(wrong instanceof CliConnectionError);
    t.is((wrong as CliConnectionError).failure, 'authentication');
    t.is((wrong as CliConnectionError).status, 502);
    t.regex((wrong as Error).message, /frruser@127\.0\.0\.1:\d+: authentication failed/);
    t.false((wrong as Error).message.includes('hunter2'));
    t.false(h.log.lines.join('\n').includes('hunter2'));
  } finally {
    await device.close();
  }
  const closed = await h.connect('closed', cliSettings(device.port)).catch((e: Error) => e);
  t.true(closed instanceof CliConnectionError);
  t.is((closed as CliConnectionError).failure, 'unreachable');
  t.regex((closed as Error).message, /ECONNREFUSED/);

  const telnet = await h.connect('telnet', cliSettings(23, { 'transport-type': 'telnet' })).catch((e: Error) => e);
  t.true(telnet instanceof NodeSettingsError);
  t.regex((telnet as Error).message, /transport-type: telnet is not supported/);
  const port = await h.connect('port', cliSettings(0, { port: 'twenty-two', password: 'p@ss' })).catch((e: Error) => e);
  t.regex((port as Error).message, /port: must be an integer from 1 to 65535, got "twenty-two"/);

  // a device no unit serves is installed all the same: connected, no translated models, reads say why
  const served = await sim();
  try {
    const noUnit = await h.connect('junos', cliSettings(served.port, { 'device-type': 'junos' }), []);
    try {
      t.is(noUnit.connection.status?.(), 'connected');
      t.true(
        h.log.lines.some((l) =>
          /warn junos: no translation unit serves device-type "junos".*installing it without translated models/.test(l),
        ),
        h.log.lines.join('\n'),
      );
      t.deepEqual(await h.read(noUnit, '/', 'config'), {}, 'nothing is translated: an empty tree');
      const dry = await h.invoke(noUnit, 'cli-unit-generic:dry-run', { after: {} }).catch((e: Error) => e);
      t.true(dry instanceof CliNoModelsError);
      t.is((dry as CliNoModelsError).status, 404);
      t.is((dry as CliNoModelsError).tag, 'data-missing');
      t.regex(
        (dry as Error).message,
        /no translation unit serves device-type "junos" version "8\.4\.4"; the mount point has no translated models/,
      );
      const out = await h.invoke(noUnit, 'cli-unit-generic:execute-and-read', { command: 'show version' });
      t.regex(String(out!['output']), /FRRouting 8\.4\.4/, 'the session works without units');
    } finally {
      await noUnit.connection.close();
    }
  } finally {
    await served.close();
  }
});

test('port as a numeric string; reads of the whole tree, a subtree and a list entry run each show command once', async (t) => {
  const device = await sim({}, ['interface eth0', ' description core', 'interface eth1', ' shutdown', 'ip route 10.0.0.0/8 192.0.2.1']);
  const node = await h.connect('R-read', cliSettings(String(device.port) as never));
  try {
    const all = await h.read(node, '/', 'config');
    t.deepEqual(all, {
      'rosetta-example-frr:interfaces': {
        interface: [
          { name: 'eth0', config: { enabled: true, description: 'core' } },
          { name: 'eth1', config: { enabled: false } },
        ],
      },
      'rosetta-example-frr:static-routes': { route: [{ prefix: '10.0.0.0/8', 'next-hop': '192.0.2.1' }] },
    });
    t.deepEqual(device.commandLog, ['show running-config'], 'one show command for the whole read');
    const entry = await h.read(node, "/rosetta-example-frr:interfaces/interface[name='eth1']", 'all');
    t.deepEqual(entry, {
      'rosetta-example-frr:interface': [{ name: 'eth1', config: { enabled: false }, state: { 'admin-status': 'down' } }],
    });
    t.deepEqual(device.commandLog.slice(1), ['show running-config', 'show interface json']);
    t.deepEqual(await h.read(node, "/rosetta-example-frr:interfaces/interface[name='nope']"), {}, 'no data: an empty document');
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('a refused command: the steps already sent are undone in reverse, the error names the command and the message', async (t) => {
  // the device accepts routes into 10/8 only
  const device = await sim({ configCommands: [/^interface /, /^description /, /^shutdown$/, /^ip route 10\./] });
  const node = await h.connect('R-rollback', cliSettings(device.port));
  try {
    const after = {
      'rosetta-example-frr:interfaces': { interface: [IFACE('eth1', 'edge')] },
      'rosetta-example-frr:static-routes': {
        route: [
          { prefix: '10.0.0.0/8', 'next-hop': '10.1.1.1' },
          { prefix: '192.0.2.0/24', 'next-hop': '10.1.1.1' },
        ],
      },
    };
    const baseline = device.view.runningConfig();
    const err = await h.write(node, {}, after).catch((e: Error) => e);
    t.true(err instanceof CliCommandError);
    const e = err as CliCommandError;
    t.is(e.command, 'ip route 192.0.2.0/24 10.1.1.1');
    t.is(e.deviceMessage, '% Unknown command: ip route 192.0.2.0/24 10.1.1.1');
    t.deepEqual(e.rollback.sent, ['no ip route 10.0.0.0/8 10.1.1.1', 'no interface eth1']);
    t.deepEqual(e.rollback.failed, []);
    t.regex(e.message, /refused "ip route 192\.0\.2\.0\/24 10\.1\.1\.1": % Unknown command: .*rolled back with 2 command/);
    t.deepEqual(device.commandLog, [
      'configure terminal',
      'interface eth1',
      'description edge',
      'exit',
      'ip route 10.0.0.0/8 10.1.1.1',
      'ip route 192.0.2.0/24 10.1.1.1',
      'end',
      'configure terminal',
      'no ip route 10.0.0.0/8 10.1.1.1',
      'no interface eth1',
      'end',
    ]);
    t.is(device.view.runningConfig(), baseline, 'the device is back where it was');
    // the device still serves the next request
    t.deepEqual(
      await h.write(node, {}, { 'rosetta-example-frr:static-routes': { route: [{ prefix: '10.9.0.0/16', 'next-hop': '10.1.1.1' }] } }),
      ['ip route 10.9.0.0/16 10.1.1.1'],
    );
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('an update and a delete are undone exactly when a later command fails', async (t) => {
  const device = await sim({ configCommands: [/^interface /, /^description /, /^shutdown$/, /^ip route 10\./] }, [
    'interface eth0',
    ' description old',
    'ip route 10.1.0.0/16 10.0.0.1',
  ]);
  const node = await h.connect('R-rollback-2', cliSettings(device.port));
  try {
    const before = (await h.read(node, '/')) as JsonObject;
    const after = {
      'rosetta-example-frr:interfaces': { interface: [IFACE('eth0', 'new')] },
      'rosetta-example-frr:static-routes': { route: [{ prefix: '172.16.0.0/12', 'next-hop': '10.0.0.1' }] },
    };
    const e = (await h.write(node, before, after).catch((x: Error) => x)) as CliCommandError;
    t.true(e instanceof CliCommandError);
    t.is(e.command, 'ip route 172.16.0.0/12 10.0.0.1');
    t.deepEqual(e.rollback.sent, ['interface eth0', ' description old', 'exit', 'ip route 10.1.0.0/16 10.0.0.1']);
    t.deepEqual(await h.read(node, '/'), before);
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('two concurrent requests queue: the second starts after the first has left configuration mode', async (t) => {
  const device = await sim();
  const node = await h.connect('R-queue', cliSettings(device.port));
  try {
    const routes = (from: number) => ({
      'rosetta-example-frr:static-routes': {
        route: Array.from({ length: 5 }, (_, i) => ({ prefix: `10.${from + i}.0.0/16`, 'next-hop': '10.0.0.1' })),
      },
    });
    const [a, b, r] = await Promise.all([h.write(node, {}, routes(0)), h.write(node, {}, routes(100)), h.read(node, '/')]);
    t.is(a!.length, 5);
    t.is(b!.length, 5);
    const log = device.commandLog;
    const session = (n: number) => [
      'configure terminal',
      ...routes(n)['rosetta-example-frr:static-routes'].route.map((x) => `ip route ${x.prefix} 10.0.0.1`),
      'end',
    ];
    t.deepEqual(log, [...session(0), ...session(100), 'show running-config']);
    t.is((r!['rosetta-example-frr:static-routes'] as { route: unknown[] }).route.length, 10);
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('a device hanging mid-output: command timeout, the session is reset, other requests are served', async (t) => {
  const device = await sim({ hangOn: /^show running-config$/ }, ['interface eth0']);
  const node = await h.connect('R-hang', cliSettings(device.port, { 'command-timeout': 1 }));
  try {
    const started = Date.now();
    const err = await h.read(node, '/').catch((e: Error) => e);
    const took = Date.now() - started;
    t.true(err instanceof Error);
    t.regex((err as Error).message, /no prompt after "show running-config" within 1000 ms/);
    // the device never prompts: only the 1 s timeout ends the read (the upper bound leaves room for a loaded machine)
    t.true(took >= 950 && took < 10_000, `timed out after ${took} ms`);
    // the stuck session was dropped and a new one opened: other commands work
    const out = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show version' });
    t.regex(String(out!['output']), /^FRRouting 8\.4\.4 \(frr-peer\)/);
    t.is(cli(node).connects, 2);
  } finally {
    await node.connection.close();
    await device.close();
  }
  t.true(CliTimeoutError.name === 'CliTimeoutError');
});

test('a device hanging in the middle of a write: timeout naming what had been sent; the next write works', async (t) => {
  const device = await sim({ hangOn: /^ip route 10\.2\./ });
  const node = await h.connect('R-hang-write', cliSettings(device.port, { 'command-timeout': 1 }));
  try {
    const routes = ['10.1.0.0/16', '10.2.0.0/16'].map((prefix) => ({ prefix, 'next-hop': '10.0.0.1' }));
    const err = await h.write(node, {}, { 'rosetta-example-frr:static-routes': { route: routes } }).catch((e: Error) => e);
    t.true(err instanceof CliTimeoutError);
    t.regex(
      (err as Error).message,
      /no prompt after "ip route 10\.2\.0\.0\/16 10\.0\.0\.1" within 1000 ms .*commands sent before the failure, not rolled back: "ip route 10\.1\.0\.0\/16 10\.0\.0\.1"$/,
    );
    t.is((err as CliTimeoutError).status, 504);
    t.deepEqual(
      await h.write(node, {}, { 'rosetta-example-frr:static-routes': { route: [{ prefix: '10.3.0.0/16', 'next-hop': '10.0.0.1' }] } }),
      ['ip route 10.3.0.0/16 10.0.0.1'],
    );
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('reconnect after the device restarts: 502 while it is down, connected again once it is back; each change told once', async (t) => {
  const first = await sim();
  const port = first.port;
  const told: Array<{ status: string; problem: string | undefined }> = [];
  let installed: ReturnType<typeof cli> | undefined;
  const events: DeviceEvents = {
    statusChanged: (problem) => told.push({ status: installed?.status() ?? 'installing', problem }),
    notification: () => undefined,
  };
  const node = await h.connect(
    'R-restart',
    cliSettings(port, { 'max-reconnection-attempts': 0, 'connection-establish-timeout': 5 }),
    undefined,
    events,
  );
  const device = cli(node);
  installed = device;
  const atInstall = told.length;
  try {
    await first.close();
    await until('the drop to be noticed', () => device.status() === 'connecting');
    const down = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show version' }).catch((e: Error) => e);
    t.true(down instanceof CliConnectionError);
    t.is((down as CliConnectionError).status, 502);
    const second = await sim({}, [], port);
    try {
      await until('the reconnect', () => device.status() === 'connected', 10_000);
      const out = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show version' });
      t.regex(String(out!['output']), /FRRouting/);
      t.true(device.connects >= 2);
      const after = told.slice(atInstall);
      t.deepEqual(
        after.map((e) => e.status),
        ['connecting', 'connected'],
      );
      t.regex(after[0]!.problem ?? '', /./, 'the drop says why');
      t.is(after[1]!.problem, undefined);
    } finally {
      await node.connection.close();
      await second.close();
    }
  } finally {
    await node.connection.close();
  }
});

test('max-reconnection-attempts: gives up with unable-to-connect; a request still tries once on demand', async (t) => {
  const first = await sim();
  const port = first.port;
  const node = await h.connect('R-giveup', cliSettings(port, { 'max-reconnection-attempts': 2, 'connection-establish-timeout': 5 }));
  const device = cli(node);
  await first.close();
  await until('giving up', () => device.status() === 'unable-to-connect', 10_000);
  t.regex(h.log.lines.join('\n'), /R-giveup: giving up after 2 reconnection attempt/);
  const second = await sim({}, [], port);
  try {
    const out = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show version' });
    t.regex(String(out!['output']), /FRRouting/);
    t.is(device.status(), 'connected');
  } finally {
    await node.connection.close();
    await second.close();
  }
});

test('keepalive: an idle session gets an empty command and stays up', async (t) => {
  const device = await sim();
  const node = await h.connect('R-keepalive', cliSettings(device.port, { 'keepalive-delay': 1 }));
  try {
    await until('two keepalives', () => cli(node).keepalives >= 2, 4000);
    t.is(cli(node).status(), 'connected');
    t.is(cli(node).connects, 1);
    t.deepEqual(device.commandLog, [], 'a keepalive is an empty line, not a command');
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('execute-and-read and dry-run; bad RPC input is refused; unknown operations pass to the core', async (t) => {
  const device = await sim({}, ['ip route 10.0.0.0/8 192.0.2.1']);
  const node = await h.connect('R-rpc', cliSettings(device.port));
  try {
    const out = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show running-config' });
    t.regex(String(out!['output']), /^Building configuration\.\.\.\n\nCurrent configuration:\n!\nfrr version 8\.4\.4\n/);
    t.regex(String(out!['output']), /ip route 10\.0\.0\.0\/8 192\.0\.2\.1\n/);
    const dry = await h.invoke(node, 'cli-unit-generic:dry-run', {
      after: { 'rosetta-example-frr:static-routes': { route: [{ prefix: '10.1.0.0/16', 'next-hop': '192.0.2.1' }] } },
    });
    t.deepEqual(dry, {
      commands: ['no ip route 10.0.0.0/8 192.0.2.1', 'ip route 10.1.0.0/16 192.0.2.1'],
      'undo-commands': ['no ip route 10.1.0.0/16 192.0.2.1', 'ip route 10.0.0.0/8 192.0.2.1'],
    });
    const withBefore = await h.invoke(node, 'cli-unit-generic:dry-run', {
      before: {},
      after: { 'rosetta-example-frr:interfaces': { interface: [IFACE('lo', 'x')] } },
    });
    t.deepEqual(withBefore!['commands'], ['interface lo', ' description x', 'exit']);
    t.false(
      device.commandLog.some((c) => c.startsWith('ip route 10.1') || c.startsWith('interface')),
      'dry-run sends nothing',
    );
    await t.throwsAsync(h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show version\nconfigure terminal' }), {
      message: /one line/,
    });
    await t.throwsAsync(h.invoke(node, 'cli-unit-generic:execute-and-read', {}), { message: /non-empty string/ });
    await t.throwsAsync(h.invoke(node, 'cli-unit-generic:dry-run', { after: [1] }), { message: /after must be/ });
    t.is(await h.invoke(node, 'other:rpc', {}), undefined);
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('huge output, one line of 4 MB and 200000 short lines, is read whole in linear time', async (t) => {
  const wide = 'x'.repeat(4_000_000);
  const tall = Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join('\n');
  const device = await sim({ commands: { ...frrDevice().commands, 'show wide': wide, 'show tall': tall } });
  const node = await h.connect('R-big', cliSettings(device.port));
  try {
    // CPU time of this process (client and simulator both), which other processes' load does not inflate
    const cpuMs = cpuStopwatch();
    const a = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show wide' });
    const b = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show tall' });
    t.is(String(a!['output']), `${wide}\n`);
    t.is(String(b!['output']), `${tall}\n`);
    const ms = cpuMs();
    t.log(`8 MB of output in ${ms.toFixed(0)} ms of CPU`);
    t.true(ms < 15_000, `${ms.toFixed(0)} ms of CPU`);
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test('uninstall closes the session; later requests say the device is uninstalled', async (t) => {
  const device = await sim();
  const node = await h.connect('R-close', cliSettings(device.port));
  await until('the server to count the connection', () => device.connections === 1);
  await node.connection.close();
  await until('the connection to close', () => device.connections === 0);
  t.is(node.connection.status?.(), 'unable-to-connect');
  await t.throwsAsync(h.read(node, '/'), { message: /uninstalled/ });
  await device.close();
});

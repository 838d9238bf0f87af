/**
 * The CLI southbound against the real FRR 8.4.4 peer (test/peers/frr-device.sh, vtysh over SSH): install,
 * reads, a write checked with `vtysh -c 'show running-config'` on the device itself, a refused command
 * rolled back, execute-and-read, plugins/frr's units reading the whole device, and the cost against a raw
 * SSH session sending the same commands. One FRR per machine: serial, leased through the SDK's
 * acquireFrrPeer (from its baseline configuration; other files wait). Skips loudly where FRR cannot run.
 */
import test from 'ava';
import { connectSshCli, type JsonObject } from '@rosetta/sdk';
import { acquireFrrPeer, frrPeerLogin, frrPeerUnavailable, type FrrPeerLease } from '@rosetta/sdk/testing';
import { CliCommandError } from '../src/index';
import { cliSettings, frrPluginUnit, harness, type Harness } from './fixture';

const PEER = frrPeerLogin();

const why = frrPeerUnavailable();
let peer: FrrPeerLease | undefined;
let h: Harness;

/** The device's own view of its configuration (vtysh as root on the machine, not through Rosetta). */
const deviceRunningConfig = () => peer!.runningConfig();

if (why) {
  test('FRR peer tests', (t) => {
    t.log(`SKIPPED: ${why}`);
    t.pass();
  });
  console.warn(`\n*** plugins/cli frr-peer tests SKIPPED: ${why} ***\n`);
} else {
  test.before(async () => {
    peer = await acquireFrrPeer({ who: 'plugins/cli frr-peer.test' });
    h = await harness();
  });
  test.after.always(async () => {
    await peer?.release();
  });

  const ROUTE_OK = { prefix: '198.51.100.0/24', 'next-hop': '127.0.0.2' };
  const ROUTE_BAD = { prefix: '192.0.2.300/24', 'next-hop': '127.0.0.2' };
  const IFACE = { name: 'eth7', config: { enabled: true, description: 'rosetta cli test' } };

  test.serial('install, read, write checked on the device, refused command rolled back, execute-and-read', async (t) => {
    const started = Date.now();
    const node = await h.connect('frr-1', cliSettings(PEER.port, { username: PEER.username, password: PEER.password }));
    t.log(`install: ${Date.now() - started} ms`);
    try {
      t.is(node.connection.message, 'connected to frruser@127.0.0.1:10022 over SSH, device-type frr 8.4.4, prompt "frr-peer#"');
      const before = (await h.read(node, '/', 'config')) as JsonObject;
      t.false(JSON.stringify(before).includes('eth7'), 'a fresh peer has no eth7');

      // a write: one configuration session, visible in the device's own running config
      const after: JsonObject = {
        ...before,
        'rosetta-example-frr:interfaces': {
          interface: [...((before['rosetta-example-frr:interfaces'] as { interface?: JsonObject[] } | undefined)?.interface ?? []), IFACE],
        },
        'rosetta-example-frr:static-routes': { route: [ROUTE_OK] },
      };
      t.deepEqual(await h.write(node, before, after), [
        'interface eth7',
        ' description rosetta cli test',
        'exit',
        'ip route 198.51.100.0/24 127.0.0.2',
      ]);
      let onDevice = deviceRunningConfig();
      t.regex(onDevice, /\ninterface eth7\n description rosetta cli test\n/);
      t.regex(onDevice, /\nip route 198\.51\.100\.0\/24 127\.0\.0\.2\n/);
      t.deepEqual(await h.read(node, "/rosetta-example-frr:interfaces/interface[name='eth7']"), {
        'rosetta-example-frr:interface': [IFACE],
      });

      // back to the start, then a write whose last command FRR refuses: everything before it is undone
      t.deepEqual(await h.write(node, after, before), ['no interface eth7', 'no ip route 198.51.100.0/24 127.0.0.2']);
      const baseline = deviceRunningConfig();
      const failing = { ...after, 'rosetta-example-frr:static-routes': { route: [ROUTE_OK, ROUTE_BAD] } };
      const err = await h.write(node, before, failing).catch((e: Error) => e);
      t.true(err instanceof CliCommandError, String(err));
      const e = err as CliCommandError;
      t.is(e.command, 'ip route 192.0.2.300/24 127.0.0.2');
      t.regex(e.deviceMessage, /^% /);
      t.log(`FRR said: ${e.deviceMessage}`);
      t.deepEqual(e.rollback.sent, ['no ip route 198.51.100.0/24 127.0.0.2', 'no interface eth7']);
      t.deepEqual(e.rollback.failed, []);
      onDevice = deviceRunningConfig();
      t.is(onDevice, baseline, 'the device is exactly where it was');
      t.false(onDevice.includes('eth7'));

      const version = await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show version' });
      t.regex(String(version!['output']), /^FRRouting 8\.4\.4 \(frr-peer\) on Linux/);
    } finally {
      await node.connection.close();
    }
  });

  test.serial('plugins/frr units read the whole device through the session', async (t) => {
    const frr = frrPluginUnit();
    if (!frr) {
      t.log('SKIPPED: plugins/frr is not built');
      t.pass();
      return;
    }
    const node = await h.connect('frr-2', cliSettings(PEER.port, { username: PEER.username, password: PEER.password }), [frr]);
    try {
      const all = await h.read(node, '/', 'all');
      const interfaces = JSON.stringify(all ?? {});
      t.true(interfaces.includes('"lo"'), `lo is listed: ${interfaces.slice(0, 300)}`);
    } finally {
      await node.connection.close();
    }
  });

  // timings are logged, not asserted: the machine is shared; the benchmark suite owns the bars
  test.serial('100 static routes in one write and a full read, timed beside a raw SSH session sending the same commands', async (t) => {
    const routes = Array.from({ length: 100 }, (_, i) => ({ prefix: `10.77.${i}.0/24`, 'next-hop': '127.0.0.2' }));
    const doc = { 'rosetta-example-frr:static-routes': { route: routes } };
    const commands = routes.map((r) => `ip route ${r.prefix} ${r['next-hop']}`);

    let t0 = Date.now();
    const raw = await connectSshCli({ ...PEER, timeoutMs: 15_000 });
    const rawConnect = Date.now() - t0;
    t0 = Date.now();
    await raw.exec('configure terminal');
    for (const c of commands) await raw.exec(c);
    await raw.exec('end');
    const rawWrite = Date.now() - t0;
    t0 = Date.now();
    await raw.exec('show running-config');
    const rawRead = Date.now() - t0;
    await raw.exec('configure terminal');
    for (const c of commands) await raw.exec(`no ${c}`);
    await raw.exec('end');
    raw.close();

    t0 = Date.now();
    const node = await h.connect('frr-3', cliSettings(PEER.port, { username: PEER.username, password: PEER.password }));
    const install = Date.now() - t0;
    try {
      t0 = Date.now();
      const sent = await h.write(node, {}, doc);
      const write = Date.now() - t0;
      t.is(sent!.length, 100);
      t0 = Date.now();
      const read = await h.read(node, '/', 'config');
      const readMs = Date.now() - t0;
      t.is((read!['rosetta-example-frr:static-routes'] as { route: unknown[] }).route.length, 100);
      t.log(`raw SSH: connect ${rawConnect} ms, 100 routes ${rawWrite} ms, show running-config ${rawRead} ms`);
      t.log(`plugin:  install ${install} ms, 100 routes ${write} ms, read whole mount ${readMs} ms`);
      await h.write(node, doc, {});
      t.false(/ip route 10\.77\./.test(deviceRunningConfig()));
    } finally {
      await node.connection.close();
    }
  });
}

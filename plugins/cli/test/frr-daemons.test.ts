/**
 * A device whose SSH login still works but whose routing software is gone: the real FRR 8.4.4 peer with
 * its daemons (zebra, staticd, bgpd) stopped and sshd left up. vtysh then still answers, printing
 * `Warning: connecting to zebra...failed!` for every command that needs a daemon, and `show running-config`
 * prints only vtysh's own lines: read naively, an empty configuration. The CLI southbound must answer 502
 * (device not usable) for reads and writes, say so in the node's status, and come back once the daemons do.
 * One FRR per machine: leased through acquireFrrPeer; skips loudly where FRR cannot run.
 */
import test from 'ava';
import type { JsonObject } from '@rosetta/sdk';
import { acquireFrrPeer, frrPeerLogin, frrPeerUnavailable } from '@rosetta/sdk/testing';
import { CliConnectionError, CliDeviceUnusableError, isCliDevice, type CliDevice } from '../src/index';
import { cliSettings, frrPluginUnit, harness } from './fixture';

const PEER = frrPeerLogin();
const why = frrPeerUnavailable();
const unit = frrPluginUnit();
const ROUTES = '/rosetta-openconfig-network-instance:network-instances';
const IFS = '/rosetta-openconfig-interfaces:interfaces';

/** Installs node `nodeId` on the FRR peer through the harness: the node and its device. */
async function connectPeer(h: Awaited<ReturnType<typeof harness>>, nodeId: string) {
  const node = await h.connect(nodeId, cliSettings(PEER.port, { username: PEER.username, password: PEER.password }), [unit!]);
  return { node, device: node.connection as CliDevice };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

if (why || !unit) {
  test('FRR daemons-down tests', (t) => {
    t.log(`SKIPPED: ${why ?? 'plugins/frr is not built'}`);
    t.pass();
  });
  console.warn(`\n*** plugins/cli frr-daemons tests SKIPPED: ${why ?? 'plugins/frr is not built'} ***\n`);
} else {
  test('daemons gone behind a live vtysh: reads and writes answer 502, the status says why, and the node recovers', async (t) => {
    t.timeout(180_000);
    const peer = await acquireFrrPeer({ who: 'plugins/cli frr-daemons.test' });
    const h = await harness();
    let device: CliDevice | undefined;
    try {
      peer.configure(['interface eth5', ' description kept', 'exit', 'ip route 192.0.2.0/24 Null0']);
      const { node, device: installed } = await connectPeer(h, 'frr-dead');
      device = installed;
      t.true(isCliDevice(device));
      const iface = await h.read(node, `${IFS}/interface[name='eth5']/config`, 'config');
      t.deepEqual(iface, { 'rosetta-openconfig-interfaces:config': { name: 'eth5', enabled: true, description: 'kept' } });

      await peer.stopDaemons();
      // a new vtysh on the machine itself finds no daemon and exits (the session opened before stays up)
      t.throws(() => peer.runningConfig());

      // a write on the session opened before: `configure terminal` already prints the warnings, so nothing is sent
      const write = await t.throwsAsync(
        h.write(
          node,
          {},
          { [IFS.slice(1)]: { interface: [{ name: 'eth6', config: { name: 'eth6', enabled: true, description: 'never sent' } }] } },
        ),
      );
      t.true(write instanceof CliDeviceUnusableError, String(write));
      t.is((write as CliDeviceUnusableError).status, 502);
      t.regex(write!.message, /not usable: it answered "configure terminal" with "Warning: connecting to \w+\.\.\.failed!"/);
      t.is(device.status(), 'connecting');
      t.regex(
        device.message,
        /^connecting to frruser@127\.0\.0\.1:\d+ over SSH, device-type frr 8\.4\.4 \(.*not usable: Warning: connecting to \w+\.\.\.failed!/,
      );

      // a fresh login finds no daemon at all: vtysh says so and exits, so reads fail as unreachable (502)
      const read = await t.throwsAsync(h.read(node, '/', 'config'));
      t.true(read instanceof CliConnectionError, String(read));
      t.is((read as CliConnectionError).status, 502);
      t.regex(read!.message, /Exiting: failed to connect to any daemons/);
      t.not(device.status(), 'connected');
      t.false(JSON.stringify(device).includes(PEER.password));

      // the daemons come back (the whole peer restarts at its baseline): the node reconnects by itself
      await peer.start();
      await until('the reconnect', () => device!.status() === 'connected', 90_000);
      const back = (await h.read(node, ROUTES, 'config')) as JsonObject;
      t.truthy(back, 'the default network instance reads again');
      t.notRegex(JSON.stringify(back), /192\.0\.2\.0/, 'the restarted peer is at its baseline: the read shows the device as it is now');
    } finally {
      await device?.close(); // stops its reconnecting, whatever failed
      await peer.release();
    }
  });

  test('bgpd alone gone, logged in after it died: a BGP write fails naming the daemon and changes nothing; the rest is served', async (t) => {
    t.timeout(120_000);
    const peer = await acquireFrrPeer({ who: 'plugins/cli frr-daemons.test (bgpd)' });
    const h = await harness();
    let device: CliDevice | undefined;
    try {
      await peer.stopDaemons(['bgpd']);
      // a login made now: vtysh connects to the daemons that run and says nothing of bgpd
      const { node, device: installed } = await connectPeer(h, 'frr-no-bgpd');
      device = installed;
      t.is(device.status(), 'connected');
      const before = (await h.read(node, '/', 'config')) as JsonObject;
      const deviceBefore = peer.runningConfig();
      const bgp = {
        identifier: 'rosetta-openconfig-policy-types:BGP',
        name: 'default',
        config: { identifier: 'rosetta-openconfig-policy-types:BGP', name: 'default' },
        bgp: { global: { config: { as: 65077 } } },
      };
      const after = structuredClone(before) as any;
      const def = after['rosetta-openconfig-network-instance:network-instances']['network-instance'].find((n: any) => n.name === 'default');
      def.protocols = { protocol: [...(def.protocols?.protocol ?? []), bgp] };
      const write = await t.throwsAsync(h.write(node, before, after));
      t.regex(write!.message, /router bgp 65077.*bgpd is not running/s);
      t.is(peer.runningConfig(), deviceBefore, 'nothing changed on the device');
      t.is(device.status(), 'connected', 'the device itself still serves');

      const withIface = structuredClone(before) as any;
      const ifaces = (withIface['rosetta-openconfig-interfaces:interfaces'] ??= { interface: [] });
      (ifaces.interface ??= []).push({ name: 'eth7', config: { name: 'eth7', enabled: true, description: 'served' } });
      await h.write(node, before, withIface);
      t.regex(peer.runningConfig(), /interface eth7\n description served/);
    } finally {
      await device?.close();
      await peer.start().catch(() => undefined); // bgpd back: the whole peer restarts at its baseline
      await peer.release();
    }
  });

  test('a read on a session opened before the daemons died answers 502, not an empty configuration', async (t) => {
    t.timeout(120_000);
    const peer = await acquireFrrPeer({ who: 'plugins/cli frr-daemons.test (read)' });
    const h = await harness();
    let device: CliDevice | undefined;
    try {
      peer.configure(['ip route 192.0.2.0/24 Null0']);
      const { node, device: installed } = await connectPeer(h, 'frr-dead-read');
      device = installed;
      await peer.stopDaemons();
      const read = await t.throwsAsync(h.read(node, '/', 'config'));
      t.true(read instanceof CliDeviceUnusableError, String(read));
      t.is((read as CliDeviceUnusableError).status, 502);
      t.regex(read!.message, /Warning: connecting to \w+\.\.\.failed!/);
      t.regex(device.message, /not usable/);
    } finally {
      await device?.close();
      await peer.release();
    }
  });
}

/**
 * A device that answers but cannot serve, on the SDK's simulator (no root needed): the exact text FRR
 * 8.4.4's vtysh printed with its daemons killed under a logged-in session (frr-daemons.test.ts reproduces it
 * on the real peer). Reads and writes answer 502 instead of an empty configuration, the node's status says
 * why and it reconnects; execute-and-read still shows what the device prints; units without unusable
 * patterns are not affected.
 */
import test from 'ava';
import { frrDevice, startSimulator } from '@rosetta/sdk/testing';
import { CliDeviceUnusableError, isCliDevice, type CliDevice } from '../src/index';
import { cliSettings, EXAMPLE_UNIT, frrPluginUnit, harness } from './fixture';

// as printed by FRR 8.4.4 (vtysh over SSH) after zebra, staticd and bgpd were killed
const WARN = (...daemons: string[]) => daemons.map((d) => `Warning: connecting to ${d}...failed!`).join('\n');
const DEAD_FRR = {
  'show running-config': `Building configuration...\n\nCurrent configuration:\n!\n${WARN('zebra', 'bgpd', 'staticd')}\nhostname frr-peer\nservice integrated-vtysh-config\n!\nend`,
  'show vrf': `${WARN('zebra')}\nzebra is not running`,
  'show interface json': `${WARN('zebra')}\nzebra is not running`,
  'configure terminal': WARN('zebra', 'bgpd', 'staticd'),
};

const unit = frrPluginUnit();

(unit ? test : test.skip)(
  'the output of an FRR without daemons is refused with 502 for reads and writes, and the status says why',
  async (t) => {
    const healthy = frrDevice({ username: 'frruser', password: 'frrpass', config: ['ip route 192.0.2.0/24 Null0'] });
    const device = await startSimulator({ ...healthy, commands: { ...healthy.commands, ...DEAD_FRR } });
    const h = await harness();
    const node = await h.connect('DEAD', cliSettings(device.port), [unit!]);
    const cli = node.connection as CliDevice;
    try {
      t.true(isCliDevice(cli));
      for (const content of ['config', 'all'] as const) {
        const e = await t.throwsAsync(h.read(node, '/', content));
        t.true(e instanceof CliDeviceUnusableError, String(e));
        t.is((e as CliDeviceUnusableError).status, 502);
        t.is((e as CliDeviceUnusableError).tag, 'southbound_no_connection');
        t.regex(e!.message, /not usable: it answered "show running-config" with "Warning: connecting to zebra\.\.\.failed!"/);
        t.regex(cli.message, /^connecting to .* \(the device was not usable: Warning: connecting to zebra\.\.\.failed!\)$/);
      }
      // the session was dropped and a new one opened (the simulator's login works): connected again
      const reconnected = Date.now() + 5000;
      while (cli.status() !== 'connected' && Date.now() < reconnected) await new Promise((r) => setTimeout(r, 20));
      t.is(cli.status(), 'connected');
      t.true(cli.connects >= 2);

      const before = device.commandLog.length;
      const w = await t.throwsAsync(
        h.write(
          node,
          {},
          { 'rosetta-openconfig-interfaces:interfaces': { interface: [{ name: 'eth1', config: { name: 'eth1', description: 'x' } }] } },
        ),
      );
      t.true(w instanceof CliDeviceUnusableError, String(w));
      t.deepEqual(device.commandLog.slice(before), ['configure terminal'], 'nothing after the warning is sent');

      // execute-and-read answers what the device printed, whatever it is
      t.deepEqual(await h.invoke(node, 'cli-unit-generic:execute-and-read', { command: 'show vrf' }), {
        output: `${WARN('zebra')}\nzebra is not running\n`,
      });
    } finally {
      await cli.close();
      await device.close();
    }
  },
);

test('units that declare no unusable patterns read the same output as data (no check without patterns)', async (t) => {
  const device = await startSimulator({ ...frrDevice({ username: 'frruser', password: 'frrpass' }), commands: DEAD_FRR });
  const h = await harness();
  const node = await h.connect('DEAD2', cliSettings(device.port), [EXAMPLE_UNIT]);
  try {
    t.deepEqual(await h.read(node, '/', 'config'), {});
    t.is((node.connection as CliDevice).status(), 'connected');
  } finally {
    await node.connection.close();
    await device.close();
  }
});

/**
 * What a NETCONF device connection pushes to the core (DeviceEvents): each notification the device sends
 * on the stream it subscribed to, and each change of its status with why, once per change. SDK simulator.
 */
import test from 'ava';
import type { DeviceEvents } from '@rosetta/sdk';
import { startNetconfSimulator } from '@rosetta/sdk/testing';
import { NetconfDevice } from '../src/device';
import { readNodeSettings } from '../src/settings';

const MODEL = `module acme-alarms {
  namespace "urn:acme:alarms";
  prefix aa;
  container alarms { leaf count { type uint32; } }
  notification alarm-raised { leaf severity { type string; } leaf text { type string; } }
}`;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Polls `check` every 20 ms for at most 5 s. */
async function until(check: () => boolean): Promise<boolean> {
  const end = Date.now() + 5000;
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 20));
  return check();
}

test('the device subscribes to NETCONF, passes each notification on and reports a drop and the reconnect once each', async (t) => {
  const sim = await startNetconfSimulator({ yang: MODEL });
  t.teardown(() => sim.close());
  const settings = readNodeSettings({ host: '127.0.0.1', port: sim.port, username: 'u', password: 'p', 'between-attempts-timeout': 50 });
  if (!settings.ok) return t.fail(settings.problems.join());
  const notifications: string[] = [];
  const changes: Array<{ status: string; problem: string | undefined }> = [];
  let dev: NetconfDevice | undefined;
  const events: DeviceEvents = {
    notification: (xml) => notifications.push(xml),
    statusChanged: (problem) => changes.push({ status: dev?.status() ?? 'installing', problem }),
  };
  dev = await NetconfDevice.install('ALARMS', settings.value, undefined, quiet, { events });
  t.teardown(() => dev?.close());
  t.true(await until(() => sim.subscribed === 1), 'create-subscription on the default stream');

  const event = '<alarm-raised xmlns="urn:acme:alarms"><severity>major</severity><text>fan</text></alarm-raised>';
  t.is(sim.notify(event, new Date('2026-11-27T10:00:00Z')), 1);
  t.true(await until(() => notifications.length === 1));
  t.regex(notifications[0]!, /<eventTime>2026-11-27T10:00:00.000Z<\/eventTime><alarm-raised xmlns="urn:acme:alarms">/);

  const before = changes.length;
  sim.dropSessions();
  t.true(await until(() => dev!.connects === 2 && dev!.status() === 'connected' && sim.subscribed === 1));
  const after = changes.slice(before);
  t.deepEqual(
    after.map((c) => c.status),
    ['connecting', 'connected'],
  );
  t.regex(after[0]!.problem ?? '', /session lost/);
  t.is(after[1]!.problem, undefined);

  sim.notify(event);
  t.true(await until(() => notifications.length === 2), 'the reconnected session subscribed again');
  const count = changes.length;
  await dev.close();
  t.is(changes.length, count, "an uninstall is the core's to report, not a status change");
});

/**
 * Schema filters under a mount point, on a real service with the NETCONF southbound and the SDK's
 * NETCONF simulator as the device: the device's own module defines and uses a `hidden` extension (as
 * vendors do, e.g. `tailf:hidden`) and a deprecated leaf. GET under `yang-ext:mount` leaves hidden
 * nodes out, `fields`, `depth`, paging and `fetch=count` see the filtered tree, `unhide` brings them
 * back, writes drop ignored definitions before they reach the device (checked in the simulator's
 * running configuration), and `schema.loaded` runs for the device's schema. The plugin switched off:
 * the device's tree as it is.
 */
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { siblingPlugin, startFilterService, type FilterService } from './support/service';

const MODEL = `module acme-box {
  yang-version 1.1;
  namespace "urn:acme:box";
  prefix ab;
  extension hidden { argument value; }
  container system {
    leaf hostname { type string; }
    leaf secret { ab:hidden full; type string; }
    leaf debug-level { ab:hidden debug; type uint8; }
    leaf old-name { status deprecated; type string; }
    leaf uptime { type uint32; config false; }
  }
  container users {
    list user {
      key name;
      leaf name { type string; }
      leaf role { type string; }
      leaf hint { ab:hidden full; type string; }
    }
  }
}`;

const CONFIG =
  '<system xmlns="urn:acme:box"><hostname>box1</hostname><secret>s3</secret><debug-level>4</debug-level><old-name>legacy</old-name></system>' +
  '<users xmlns="urn:acme:box"><user><name>ann</name><role>admin</role><hint>cat</hint></user>' +
  '<user><name>ben</name><role>viewer</role><hint>dog</hint></user><user><name>cy</name><role>viewer</role><hint>owl</hint></user></users>';

const MOUNT = '/rests/data/network-topology:network-topology/topology=topology-netconf/node=B1/yang-ext:mount';
const SYSTEM = `${MOUNT}/acme-box:system`;
const USERS = `${MOUNT}/acme-box:users`;
const FILTERS = {
  hiddenDataOnReadByExtensions: ['ab:hidden full', 'ab:hidden debug'],
  hideDeprecatedDefinitionsOnRead: true,
  ignoredDataOnWriteByExtensions: ['ab:hidden full'],
};

async function withDevice(enabled: boolean, run: (s: FilterService, device: SimulatedNetconfDevice) => Promise<void>): Promise<void> {
  const device = await startNetconfSimulator({ yang: MODEL, username: 'admin', password: 'Adm1n-pw', config: CONFIG });
  const s = await startFilterService(FILTERS, enabled, [siblingPlugin('netconf')]);
  try {
    const install = await s.request('POST', '/rests/operations/connection-manager:install-node', {
      input: {
        'node-id': 'B1',
        netconf: {
          'netconf-node-topology:host': '127.0.0.1',
          'netconf-node-topology:port': device.port,
          'netconf-node-topology:username': 'admin',
          'netconf-node-topology:password': 'Adm1n-pw',
          'netconf-node-topology:tcp-only': false,
        },
      },
    });
    if (install.status !== 204) throw new Error(`install-node: ${install.status} ${install.text}`);
    await run(s, device);
  } finally {
    await s.stop();
    await device.close();
  }
}

test('GET under a mount point leaves hidden definitions out; query parameters see the filtered tree; unhide brings them back', async (t) => {
  await withDevice(true, async (s) => {
    const system = await s.request('GET', `${SYSTEM}?content=config`);
    t.is(system.status, 200, system.text);
    t.deepEqual(system.json, { 'acme-box:system': { hostname: 'box1' } });
    const users = await s.request('GET', USERS);
    t.deepEqual(users.json, {
      'acme-box:users': {
        user: [
          { name: 'ann', role: 'admin' },
          { name: 'ben', role: 'viewer' },
          { name: 'cy', role: 'viewer' },
        ],
      },
    });
    // The whole mount point, XML too.
    const whole = await s.request('GET', `${MOUNT}?content=config`, undefined, { accept: 'application/yang-data+xml' });
    t.is(whole.status, 200, whole.text);
    t.regex(whole.text, /<hostname>box1<\/hostname>/);
    t.notRegex(whole.text, /secret|debug-level|old-name|<hint>/);
    // A hidden target is not there.
    t.is((await s.request('GET', `${SYSTEM}/secret`)).status, 404);
    t.is((await s.request('GET', `${SYSTEM}/old-name`)).status, 404);

    // fields, depth, fetch=count and paging.
    t.deepEqual((await s.request('GET', `${SYSTEM}?content=config&fields=${encodeURIComponent('hostname;secret;debug-level')}`)).json, {
      'acme-box:system': { hostname: 'box1' },
    });
    t.deepEqual((await s.request('GET', `${USERS}?depth=3`)).json, {
      'acme-box:users': {
        user: [
          { name: 'ann', role: 'admin' },
          { name: 'ben', role: 'viewer' },
          { name: 'cy', role: 'viewer' },
        ],
      },
    });
    t.is((await s.request('GET', `${USERS}/user=ann?fetch=count`)).text, '2');
    t.is((await s.request('GET', `${USERS}/user=ann?fetch=count&unhide=all`)).text, '3');
    t.is((await s.request('GET', `${SYSTEM}?content=config&fetch=count`)).text, '1');
    t.deepEqual((await s.request('GET', `${USERS}/user?offset=1&limit=1`)).json, { 'acme-box:user': [{ name: 'ben', role: 'viewer' }] });

    // unhide: one extension, then all (the deprecated leaf included).
    const debug = await s.request('GET', `${SYSTEM}?content=config&unhide=${encodeURIComponent('ab:hidden debug')}`);
    t.deepEqual(debug.json, { 'acme-box:system': { hostname: 'box1', 'debug-level': 4 } });
    const all = await s.request('GET', `${SYSTEM}?content=config&unhide=all`);
    t.deepEqual(all.json, { 'acme-box:system': { hostname: 'box1', secret: 's3', 'debug-level': 4, 'old-name': 'legacy' } });
    t.deepEqual((await s.request('GET', `${SYSTEM}/secret?unhide=all`)).json, { 'acme-box:secret': 's3' });

    // schema.loaded ran for the device's schema (the plugin reports what its settings hide there).
    t.true(
      s.logs.some((l) => /device B1: 4 definition\(s\) hidden on read, 2 ignored on write/.test(l)),
      s.logs.join('\n'),
    );
  });
});

test('writes under a mount point drop definitions ignored on write before they reach the device, unless unhidden', async (t) => {
  await withDevice(true, async (s, device) => {
    const put = await s.request('PUT', `${USERS}/user=dee`, { 'acme-box:user': [{ name: 'dee', role: 'admin', hint: 'fox' }] });
    t.is(put.status, 201, put.text);
    t.regex(device.runningXml(), /<name>dee<\/name><role>admin<\/role><\/user>/);
    t.notRegex(device.runningXml(), /fox/);
    const patch = await s.request('PATCH', SYSTEM, { 'acme-box:system': { hostname: 'box2', secret: 'leak' } });
    t.is(patch.status, 200, patch.text);
    t.regex(device.runningXml(), /<hostname>box2<\/hostname>/);
    t.notRegex(device.runningXml(), /leak/);
    const post = await s.request('POST', USERS, { 'acme-box:user': [{ name: 'eve', hint: 'bat' }] });
    t.is(post.status, 201, post.text);
    t.notRegex(device.runningXml(), /bat/);
    // unhide on the write accepts them.
    const unhidden = await s.request('PATCH', `${SYSTEM}?unhide=all`, { 'acme-box:system': { secret: 'kept' } });
    t.is(unhidden.status, 200, unhidden.text);
    t.regex(device.runningXml(), /<secret>kept<\/secret>/);
  });
});

test('the plugin switched off: the device tree as it is, writes as sent', async (t) => {
  await withDevice(false, async (s, device) => {
    const system = await s.request('GET', `${SYSTEM}?content=config`);
    t.deepEqual(system.json, { 'acme-box:system': { hostname: 'box1', secret: 's3', 'debug-level': 4, 'old-name': 'legacy' } });
    t.is((await s.request('GET', `${USERS}/user=ann?fetch=count`)).text, '3');
    t.is((await s.request('PATCH', SYSTEM, { 'acme-box:system': { secret: 'sent' } })).status, 200);
    t.regex(device.runningXml(), /<secret>sent<\/secret>/);
    t.false(s.logs.some((l) => /device B1: .* hidden on read/.test(l)));
  });
});

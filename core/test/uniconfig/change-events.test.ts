/**
 * The uniconfig layer's data-change events, read over SSE from a running service with a simulated
 * NETCONF device: a transaction's commit publishes, for the node, what changed in its intended
 * configuration (uniconfig-intended) and in what the device now holds (uniconfig-actual), with the
 * topology and node id, after the install's own events. Every other operation that stores a node's
 * trees publishes too: install and uninstall, sync-from-network (only what changed, and to a subscription
 * scoped to the node's subtree), replace-config-with-operational and -with-snapshot; a snapshot's create
 * and delete are Config datastore changes. With authentication on, each names the user whose request made it.
 */
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import test from 'ava';
import { hashPassword } from '../../src/cli/hash-password-command';
import { startTestService } from '../../src/service/test-service';
import { openStream } from '../restconf/streams-client';
import { pluginsFile, startMountService, type MountService } from '../mount/fixture';
import { ACME_ROUTER_CONFIG, ACME_ROUTER_YANG, installAcmeRouter, installN1, N1_CONFIGURATION } from './acme-router';
import type { SseClient, SseMessage } from '../restconf/streams-client';

const CONF = N1_CONFIGURATION;
const OPS = '/rests/operations';

let device: SimulatedNetconfDevice | undefined;
let device2: SimulatedNetconfDevice | undefined;
let device3: SimulatedNetconfDevice | undefined;
let s: MountService | undefined;
test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
  await device2?.close();
  await device3?.close();
});

interface Change {
  datastore: string;
  'topology-id'?: string;
  'node-id'?: string;
  user?: string;
  edit: { operation: string; target: string; value?: unknown }[];
}

function changeOf(m: SseMessage): Change {
  return JSON.parse(m.data)['ietf-restconf:notification']['rosetta-events:data-change'] as Change;
}

/** The next `count` events after the `seen` already read, as [datastore, node, operation target] per edit; exactly `count` arrived. */
async function next(sse: SseClient, seen: number, count: number): Promise<string[][]> {
  const all = await sse.waitFor(seen + count);
  return all.slice(seen).map((m) => {
    const c = changeOf(m);
    return [c.datastore, c['node-id'] ?? '-', ...c.edit.map((e) => `${e.operation} ${e.target}`)];
  });
}

test.serial('a commit publishes the node intended and actual changes on data-change', async (t) => {
  device = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: ACME_ROUTER_CONFIG });
  s = await startMountService(pluginsFile(['plugins/netconf']));
  const install = await installN1(s, device.port);
  t.is(install.status, 204, install.text);

  const sse = await openStream(`${s.service.url}/rests/streams/json/data-change`);
  try {
    t.is(sse.status, 200);
    const tx = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
    const cookie = tx.headers.get('set-cookie')!.split(';')[0]!;
    const put = await s.request('PUT', `${CONF}/acme-router:system/hostname`, { 'acme-router:hostname': 'edge-1' }, { cookie });
    t.is(put.status, 204, put.text);
    t.is(sse.messages.length, 0, 'an edit inside a transaction is not a change until it is committed');
    const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie });
    t.is(commit.status, 204, commit.text);

    const messages = await sse.waitFor(2);
    const changes = messages.map((m) => JSON.parse(m.data)['ietf-restconf:notification']['rosetta-events:data-change'] as Change);
    t.deepEqual(changes.map((c) => [c.datastore, c['topology-id'], c['node-id']]).sort(), [
      ['uniconfig-actual', 'uniconfig', 'N1'],
      ['uniconfig-intended', 'uniconfig', 'N1'],
    ]);
    for (const c of changes) {
      t.is(c.edit.length, 1, JSON.stringify(c));
      t.regex(c.edit[0]!.target, /acme-router:system\/hostname$/);
      t.deepEqual(c.edit[0]!.value, { 'acme-router:hostname': 'edge-1' });
    }
    t.true(Number(messages[0]!.id) < Number(messages[1]!.id), 'numbered in order');
  } finally {
    sse.close();
  }
});

test.serial('every operation that stores a node or a snapshot publishes what changed, and only that', async (t) => {
  // the device's own configuration, as long as nobody wrote to it: the test changes it "on the device"
  let hostname = 'n2';
  const running = () => `<system xmlns="urn:acme:router"><hostname>${hostname}</hostname><location>lab</location></system>`;
  device2 = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: running });
  s ??= await startMountService(pluginsFile(['plugins/netconf']));
  const svc = s;
  const N2 = N1_CONFIGURATION.replace('node=N1', 'node=N2');
  const sse = await openStream(`${svc.service.url}/rests/streams/json/data-change`);
  let sub: SseClient | undefined;
  try {
    let seen = 0;
    const install = await installAcmeRouter(svc, 'N2', device2.port);
    t.is(install.status, 204, install.text);
    const installed = await next(sse, seen, 2);
    seen += 2;
    t.deepEqual(installed.sort(), [
      ['uniconfig-actual', 'N2', 'create /acme-router:system'],
      ['uniconfig-intended', 'N2', 'create /acme-router:system'],
    ]);

    const created = await svc.request('POST', '/rests/operations/data-change-events:create-data-change-subscription', {
      input: { 'node-id': 'N2', 'topology-id': 'uniconfig', 'subtree-path': '/acme-router:system', 'data-change-scope': 'SUBTREE' },
    });
    t.is(created.status, 200, created.text);
    sub = await openStream(`${svc.service.url}/rests/streams/json/${created.json['data-change-events:output']['subscription-id']}`);

    // the device changed by itself: a sync stores and publishes the actual configuration's change only
    hostname = 'n2-changed';
    const sync = () => svc.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ['N2'] } } });
    const synced = await sync();
    t.is(synced.status, 200, synced.text);
    t.deepEqual(await next(sse, seen, 1), [['uniconfig-actual', 'N2', 'replace /acme-router:system/hostname']]);
    seen += 1;
    const [scoped] = await sub.waitFor(1);
    t.deepEqual(changeOf(scoped!).edit[0]!.value, { 'acme-router:hostname': 'n2-changed' }, 'the subtree subscription got the sync');

    // nothing changed: the second sync publishes nothing (the next event is the replace's)
    t.is((await sync()).status, 200);
    const replaced = await svc.request('POST', `${OPS}/uniconfig-manager:replace-config-with-operational`, {
      input: { 'target-nodes': { node: ['N2'] } },
    });
    t.is(replaced.status, 204, replaced.text);
    t.deepEqual(await next(sse, seen, 1), [['uniconfig-intended', 'N2', 'replace /acme-router:system/hostname']]);
    seen += 1;

    // a snapshot is a Config datastore change; replacing with it changes the node (intended, and the device)
    const snapshot = (rpc: string, more = {}) => svc.request('POST', `${OPS}/snapshot-manager:${rpc}`, { input: { name: 's1', ...more } });
    t.is((await snapshot('create-snapshot', { 'target-nodes': { node: ['N2'] } })).status, 204);
    t.deepEqual(await next(sse, seen, 1), [['config', '-', 'create /snapshot-manager:snapshots/snapshot=s1']]);
    seen += 1;
    const put = await svc.request('PUT', `${N2}/acme-router:system/hostname`, { 'acme-router:hostname': 'n2-edited' });
    t.is(put.status, 204, put.text);
    seen += (await next(sse, seen, 2)).length;
    t.is((await snapshot('replace-config-with-snapshot', { 'target-nodes': { node: ['N2'] } })).status, 204);
    const back = await next(sse, seen, 2);
    seen += 2;
    t.deepEqual(back.sort(), [
      ['uniconfig-actual', 'N2', 'replace /acme-router:system/hostname'],
      ['uniconfig-intended', 'N2', 'replace /acme-router:system/hostname'],
    ]);
    t.deepEqual(changeOf(sse.messages[seen - 1]!).edit[0]!.value, { 'acme-router:hostname': 'n2-changed' });
    t.is((await snapshot('delete-snapshot')).status, 204);
    t.deepEqual(await next(sse, seen, 1), [['config', '-', 'delete /snapshot-manager:snapshots/snapshot=s1']]);
    seen += 1;

    // uninstall: both configurations vanish, each as one delete of the whole configuration
    const gone = await svc.request('POST', '/rests/operations/connection-manager:uninstall-node', {
      input: { 'node-id': 'N2', 'connection-type': 'netconf' },
    });
    t.true(gone.status < 300, gone.text);
    t.deepEqual((await next(sse, seen, 2)).sort(), [
      ['uniconfig-actual', 'N2', 'delete /'],
      ['uniconfig-intended', 'N2', 'delete /'],
    ]);
  } finally {
    sse.close();
    sub?.close();
  }
});

test.serial('a sync of a device that cannot be read publishes nothing for it', async (t) => {
  device3 = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: ACME_ROUTER_CONFIG });
  s ??= await startMountService(pluginsFile(['plugins/netconf']));
  const svc = s;
  t.is((await installAcmeRouter(svc, 'N3', device3.port)).status, 204);
  const sse = await openStream(`${svc.service.url}/rests/streams/json/data-change`);
  try {
    await device3.close();
    const synced = await svc.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ['N3'] } } });
    t.is(synced.status, 200, synced.text);
    t.regex(synced.text, /"fail"/);
    // a later change is the first event: the failed sync published nothing before it
    t.is(
      (
        await svc.request('POST', `${OPS}/snapshot-manager:create-snapshot`, {
          input: { name: 'after-failed-sync', 'target-nodes': { node: ['N3'] } },
        })
      ).status,
      204,
    );
    t.deepEqual(await next(sse, 0, 1), [['config', '-', 'create /snapshot-manager:snapshots/snapshot=after-failed-sync']]);
  } finally {
    sse.close();
  }
});

test.serial('with authentication on, a node change names the user whose request made it', async (t) => {
  let hostname = 'n4';
  const running = () => `<system xmlns="urn:acme:router"><hostname>${hostname}</hostname><location>lab</location></system>`;
  const own = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: running });
  t.teardown(() => own.close());
  const passwordHash = await hashPassword('s3cret-pw', { cost: 1024 });
  const svc = await startTestService({
    plugins: pluginsFile(['plugins/auth', 'plugins/netconf']),
    label: 'uniconfig-events-user',
    config: { auth: { users: [{ name: 'operator7', role: 'write', passwordHash }] } },
  });
  t.teardown(() => svc.stop());
  const authorization = `Basic ${Buffer.from('operator7:s3cret-pw').toString('base64')}`;
  const authed: MountService = {
    ...svc,
    request: (method, path, body, headers) => svc.request(method, path, body, { authorization, ...headers }),
  };
  t.is((await installAcmeRouter(authed, 'N4', own.port)).status, 204);
  const sse = await openStream(`${svc.service.url}/rests/streams/json/data-change`, { authorization });
  try {
    hostname = 'n4-changed';
    const synced = await authed.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, {
      input: { 'target-nodes': { node: ['N4'] } },
    });
    t.is(synced.status, 200, synced.text);
    const put = await authed.request('PUT', `${N1_CONFIGURATION.replace('node=N1', 'node=N4')}/acme-router:system/location`, {
      'acme-router:location': 'rack-2',
    });
    t.is(put.status, 204, put.text);
    const changes = (await sse.waitFor(3)).map(changeOf);
    t.deepEqual(
      changes.map((c) => [c.datastore, c.user]),
      [
        ['uniconfig-actual', 'operator7'],
        ['uniconfig-intended', 'operator7'],
        ['uniconfig-actual', 'operator7'],
      ],
    );
    t.false(JSON.stringify(changes).includes('s3cret-pw'));
  } finally {
    sse.close();
  }
});

/**
 * Commits and reads across a dozen uniconfig nodes, each an SDK NETCONF simulator: a commit pushes
 * to the devices at once (the simulators count edit-configs outstanding together, so the overlap is
 * seen in what the devices received, not in how long anything took); sync-from-network and
 * is-in-sync ask the devices at once and answer in input order; checked-commit reads them at once and
 * names the one changed by hand; a device that refuses its change
 * rolls the others back by default, and with `do-rollback: false` leaves them committed and stored,
 * the answer naming each node's fate; an unreachable node refuses the whole commit (502, one entry per
 * node, nothing sent) unless `skip-unreachable-nodes` commits the rest and answers 200 naming it.
 * The service's bound (fleet.commitConcurrency 4) holds, on the devices, for a commit and the reads of a
 * dozen nodes; it covers the four nodes of the refusal tests, so every push there starts before a
 * refusal is known and each node's fate is certain.
 */
import test from 'ava';
import { openRawNetconf, startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { startTestService } from '../../src/service/test-service';
import { eventually, pluginsFile, type MountService, netconfNodeInput } from '../mount/fixture';
import { ACME_ROUTER_YANG } from './acme-router';

const OPS = '/rests/operations';
const NODES = 12;
/** fleet.commitConcurrency of the service: below the dozen nodes, at least the four nodes of the refusal tests. */
const BOUND = 4;
/** Each simulated device holds its reply to these operations back this long, so requests sent together overlap on the devices. */
const HELD_MS = 40;

const ids = Array.from({ length: NODES }, (_, i) => `N${String(i + 1).padStart(2, '0')}`);
const devices = new Map<string, SimulatedNetconfDevice>();
let s: MountService;

/** Per operation name: how many requests the devices held at once now, and at most since the last reset. */
const outstanding = new Map<string, { now: number; most: number }>();
function mostAtOnce(op: string): number {
  return outstanding.get(op)?.most ?? 0;
}
function resetCounts(): void {
  outstanding.clear();
}

function simulator(nodeId: string, port?: number): Promise<SimulatedNetconfDevice> {
  return startNetconfSimulator(
    {
      yang: ACME_ROUTER_YANG,
      username: 'admin',
      password: 'pw',
      config: `<system xmlns="urn:acme:router"><hostname>${nodeId.toLowerCase()}</hostname></system>`,
      replyDelayMs: (op) => {
        if (op !== 'edit-config' && op !== 'get-config') return 0;
        const count = outstanding.get(op) ?? { now: 0, most: 0 };
        outstanding.set(op, count);
        count.now++;
        count.most = Math.max(count.most, count.now);
        setTimeout(() => count.now--, HELD_MS);
        return HELD_MS;
      },
    },
    port === undefined ? {} : { port },
  );
}

function conf(nodeId: string): string {
  return `/rests/data/network-topology:network-topology/topology=uniconfig/node=${nodeId}/configuration`;
}

async function transaction(): Promise<string> {
  const r = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  if (r.status !== 201) throw new Error(`create-transaction: ${r.status} ${r.text}`);
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

async function put(nodeId: string, leaf: 'hostname' | 'location', value: string, cookie: string): Promise<void> {
  const r = await s.request('PUT', `${conf(nodeId)}/acme-router:system/${leaf}`, { [`acme-router:${leaf}`]: value }, { cookie });
  if (r.status !== 201 && r.status !== 204) throw new Error(`PUT ${nodeId} ${leaf}: ${r.status} ${r.text}`);
}

/** The value of a system leaf in a node's intended (config) or actual (nonconfig) configuration. */
async function stored(nodeId: string, leaf: string, content: 'config' | 'nonconfig'): Promise<unknown> {
  const r = await s.request('GET', `${conf(nodeId)}/acme-router:system/${leaf}?content=${content}`);
  return r.status === 200 ? r.json[`acme-router:${leaf}`] : r.status;
}

async function commit(cookie: string, input: Record<string, unknown> = {}) {
  return s.request('POST', `${OPS}/uniconfig-manager:commit`, { input }, { cookie });
}

/** Changes a device's location on a session of the test's own, as someone at the device would. */
async function byHand(nodeId: string, location: string): Promise<void> {
  const raw = await openRawNetconf({ host: '127.0.0.1', port: devices.get(nodeId)!.port, username: 'admin', password: 'pw' });
  try {
    const edit = await raw.rpc(
      `<edit-config><target><candidate/></target><config><system xmlns="urn:acme:router"><location>${location}</location></system></config></edit-config>`,
    );
    if (!/<ok\/>/.test(edit)) throw new Error(`edit by hand: ${edit}`);
    const commit = await raw.rpc('<commit/>');
    if (!/<ok\/>/.test(commit)) throw new Error(`commit by hand: ${commit}`);
  } finally {
    await raw.close();
  }
}

test.before(async () => {
  s = await startTestService({
    label: 'fleet-commit',
    plugins: pluginsFile(['plugins/netconf']),
    config: { fleet: { commitConcurrency: BOUND } },
  });
  for (const nodeId of ids) {
    const device = await simulator(nodeId);
    devices.set(nodeId, device);
    const r = await s.request('POST', `${OPS}/connection-manager:install-node`, {
      input: netconfNodeInput(nodeId, device.port),
    });
    if (r.status !== 204) throw new Error(`install ${nodeId}: ${r.status} ${r.text}`);
  }
});

test.after.always(async () => {
  await s?.service.stop();
  for (const device of devices.values()) await device.close();
});

test.serial(
  'a commit of a dozen nodes pushes to their devices at once, never more than the bound; each device and node holds its own change',
  async (t) => {
    const cookie = await transaction();
    for (const nodeId of ids) await put(nodeId, 'hostname', `${nodeId}-new`, cookie);
    resetCounts();
    const r = await commit(cookie);
    t.is(r.status, 204, r.text);
    const most = mostAtOnce('edit-config');
    t.true(most > 1 && most <= BOUND, `edit-configs outstanding at once: ${most}`);
    for (const nodeId of ids) {
      t.regex(devices.get(nodeId)!.runningXml(), new RegExp(`<hostname>${nodeId}-new</hostname>`), nodeId);
      t.is(await stored(nodeId, 'hostname', 'nonconfig'), `${nodeId}-new`, `${nodeId} read back`);
    }
  },
);

test.serial('is-in-sync and sync-from-network ask the devices at once, within the bound, and answer in the order asked', async (t) => {
  const handChanged = 'N03';
  await byHand(handChanged, 'by hand');
  const order = [...ids].reverse();
  resetCounts();
  const inSync = await s.request('POST', `${OPS}/uniconfig-manager:is-in-sync`, { input: { 'target-nodes': { node: order } } });
  t.is(inSync.status, 200, inSync.text);
  const results = inSync.json['uniconfig-manager:output']['node-results']['node-result'];
  t.deepEqual(
    results.map((n: any) => [n['node-id'], n['is-in-sync']]),
    order.map((id) => [id, id !== handChanged]),
  );
  t.true(mostAtOnce('get-config') > 1 && mostAtOnce('get-config') <= BOUND, `get-configs outstanding at once: ${mostAtOnce('get-config')}`);

  resetCounts();
  const sync = await s.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: order } } });
  t.is(sync.status, 200, sync.text);
  t.deepEqual(
    sync.json['uniconfig-manager:output']['node-results']['node-result'],
    order.map((id) => ({ 'node-id': id, status: 'complete' })),
  );
  t.true(mostAtOnce('get-config') > 1 && mostAtOnce('get-config') <= BOUND, `get-configs outstanding at once: ${mostAtOnce('get-config')}`);
  t.is(await stored(handChanged, 'location', 'nonconfig'), 'by hand', 'the hand change is now the actual configuration');
});

/** Runs `work` while another session holds `nodeId`'s candidate lock, so the device refuses every change. */
async function whileRefusing<T>(nodeId: string, work: () => Promise<T>): Promise<T> {
  const other = await openRawNetconf({ host: '127.0.0.1', port: devices.get(nodeId)!.port, username: 'admin', password: 'pw' });
  try {
    const lock = await other.rpc('<lock><target><candidate/></target></lock>');
    if (!/<ok\/>/.test(lock)) throw new Error(`lock: ${lock}`);
    return await work();
  } finally {
    await other.close();
  }
}

test.serial('checked-commit reads the devices at once and refuses naming the one changed by hand; nothing is sent', async (t) => {
  const nodes = ids.slice(0, 8);
  await byHand('N08', 'moved by hand');
  const cookie = await transaction();
  for (const nodeId of nodes) await put(nodeId, 'hostname', 'checked', cookie);
  resetCounts();
  const r = await s.request('POST', `${OPS}/uniconfig-manager:checked-commit`, { input: {} }, { cookie });
  t.is(r.status, 409, r.text);
  t.regex(r.json.errors.error[0]['error-message'], /the configuration of N08 on the device differs/);
  const most = mostAtOnce('get-config');
  t.true(most > 1 && most <= BOUND, `get-configs outstanding at once: ${most}`);
  t.is(mostAtOnce('edit-config'), 0, 'nothing sent');
  for (const nodeId of nodes) t.notRegex(devices.get(nodeId)!.runningXml(), /checked/, nodeId);
  const sync = await s.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ['N08'] } } });
  t.is(sync.status, 200, sync.text);
});

test.serial('one device refuses: by default every other node is rolled back, each node named with its fate', async (t) => {
  const nodes = ['N04', 'N05', 'N06', 'N07'];
  const cookie = await transaction();
  for (const nodeId of nodes) await put(nodeId, 'location', 'all-or-nothing', cookie);
  const r = await whileRefusing('N05', () => commit(cookie));
  t.is(r.status, 500, r.text);
  t.deepEqual(
    r.json.errors.error.map((e: any) => e['error-info']),
    nodes.map((id) => ({ 'node-id': id, 'configuration-status': id === 'N05' ? 'fail' : 'complete', 'rollback-status': 'complete' })),
  );
  for (const nodeId of nodes) {
    t.notRegex(devices.get(nodeId)!.runningXml(), /all-or-nothing/, `${nodeId} rolled back`);
    t.is(await stored(nodeId, 'location', 'config'), 404, `${nodeId} intended unchanged`);
  }
});

test.serial('do-rollback false: the nodes that took the change stay committed and stored; the answer says which', async (t) => {
  const nodes = ['N04', 'N05', 'N06', 'N07'];
  const cookie = await transaction();
  for (const nodeId of nodes) await put(nodeId, 'location', 'kept', cookie);
  const r = await whileRefusing('N05', () => commit(cookie, { 'do-rollback': false }));
  t.is(r.status, 500, r.text);
  const errors = r.json.errors.error;
  t.deepEqual(
    errors.map((e: any) => e['error-info']),
    nodes.map((id) => ({
      'node-id': id,
      'configuration-status': id === 'N05' ? 'fail' : 'complete',
      'rollback-status': id === 'N05' ? 'complete' : 'n/a',
    })),
  );
  t.regex(errors[0]['error-message'], /committed and left so \(do-rollback is false\) although node 'N05' failed/);
  for (const nodeId of nodes.filter((id) => id !== 'N05')) {
    t.regex(devices.get(nodeId)!.runningXml(), /<location>kept<\/location>/, `${nodeId} kept the change`);
    t.is(await stored(nodeId, 'location', 'config'), 'kept', `${nodeId} intended stored`);
    t.is(await stored(nodeId, 'location', 'nonconfig'), 'kept', `${nodeId} actual stored`);
  }
  t.notRegex(devices.get('N05')!.runningXml(), /kept/, 'the refusing device undid its own part');
  t.is(await stored('N05', 'location', 'config'), 404);
});

test.serial(
  'an unreachable node: 502 naming every node and nothing sent; skip-unreachable-nodes commits the rest and answers 200 naming it',
  async (t) => {
    const down = 'N12';
    const nodes = ['N10', 'N11', down];
    const port = devices.get(down)!.port;
    await devices.get(down)!.close();
    const status = async () =>
      (await s.request('GET', `/rests/data/network-topology:network-topology/topology=topology-netconf/node=${down}?content=nonconfig`))
        .text;
    t.true(await eventually(async () => !(await status()).includes('"connected"')), 'the loss is noticed');

    const first = await transaction();
    for (const nodeId of nodes) await put(nodeId, 'location', 'everywhere', first);
    const refused = await commit(first);
    t.is(refused.status, 502, refused.text);
    const errors = refused.json.errors.error;
    t.deepEqual(
      errors.map((e: any) => e['error-info']),
      nodes.map((id) => ({ 'node-id': id, 'configuration-status': id === down ? 'fail' : 'n/a', 'rollback-status': 'n/a' })),
    );
    t.is(errors[2]['error-tag'], 'southbound_no_connection');
    t.regex(errors[0]['error-message'], /not sent because node\(s\) N12 cannot be reached/);
    for (const nodeId of ['N10', 'N11']) t.notRegex(devices.get(nodeId)!.runningXml(), /everywhere/, `${nodeId} untouched`);

    const second = await transaction();
    for (const nodeId of nodes) await put(nodeId, 'location', 'everywhere', second);
    const skipped = await commit(second, { 'skip-unreachable-nodes': true });
    t.is(skipped.status, 200, skipped.text);
    t.deepEqual(skipped.json, { 'uniconfig-manager:output': { 'unreachable-nodes': { node: [down] } } });
    for (const nodeId of ['N10', 'N11']) {
      t.regex(devices.get(nodeId)!.runningXml(), /<location>everywhere<\/location>/, `${nodeId} committed`);
      t.is(await stored(nodeId, 'location', 'nonconfig'), 'everywhere');
    }
    t.is(await stored(down, 'location', 'config'), 404, 'nothing of the unreachable node was stored');

    // it comes back: a plain commit of it goes through
    devices.set(down, await simulator(down, port));
    t.true(await eventually(async () => (await status()).includes('"connected"'), 30_000), 'it reconnects');
    const third = await transaction();
    await put(down, 'location', 'everywhere', third);
    t.is((await commit(third)).status, 204);
    t.regex(devices.get(down)!.runningXml(), /<location>everywhere<\/location>/);
  },
);

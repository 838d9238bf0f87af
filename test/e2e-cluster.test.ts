/**
 * Several Rosetta processes on one real PostgreSQL own the installed NETCONF devices (simulated by the
 * sdk's NETCONF simulator, one SSH server each) through node leases (core/src/database/node-leases.ts):
 * each device is connected by exactly one live instance, the nodes spread over the instances, a clean
 * stop hands them over, and a kill -9 of the owner loses them to the survivors soon after the lease
 * ends. Every device's open sessions are sampled throughout: never two at once. A device's data and a
 * uniconfig transaction are reached through the instance that does not hold them (forwarded). The real FRR peer
 * (test/peers/frr-device.sh) is owned the same way, its SSH sessions counted on the machine's own TCP
 * table. Skips loudly without PostgreSQL's server binaries (and the FRR part without FRR).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { Client } from 'pg';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { type RosettaProcess, startRosetta } from '@rosetta/core/dist/test/database/rosetta-process';
import { type PostgresServer, postgresAbsent, startPostgres } from '@rosetta/core/dist/test/postgres-server';
import { acquireFrrPeer, frrPeerLogin, frrPeerUnavailable } from '@rosetta/sdk/testing';
import { restconfRequest, writeRepositoryPlugins } from './e2e-support';

const absent = postgresAbsent();
if (absent !== undefined) console.warn(`\n*** e2e-cluster: SKIPPING the tests of several instances: ${absent} ***\n`);
const test = anyTest.serial as TestFn;
const it = absent === undefined ? test : test.skip;

const MODEL = `module acme-cluster {
  yang-version 1.1;
  namespace "urn:acme:cluster";
  prefix ac;
  container box { leaf name { type string; } }
}`;
const DEVICES = 6;
const PASSWORD = 'cluster-sim-pw';

let server: PostgresServer | undefined;
const sims: SimulatedNetconfDevice[] = [];
const instances: RosettaProcess[] = [];
let url = '';
let pluginsJson = '';
/** The configuration every instance starts with: one secrets key for all (each seals and opens the others' device passwords). */
let configFile = '';
let db: Client | undefined;
/** The most sessions any device had open at once, sampled every 20 ms. */
let mostSessions = 0;
let sampler: NodeJS.Timeout | undefined;

test.before(async () => {
  if (absent !== undefined) return;
  server = await startPostgres();
  url = await server.createDatabase('cluster');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-cluster-'));
  pluginsJson = writeRepositoryPlugins(dir);
  configFile = path.join(dir, 'rosetta.json');
  fs.writeFileSync(configFile, JSON.stringify({ secretsKeyFile: path.join(dir, 'device-secrets.key') }));
  for (let i = 0; i < DEVICES; i++)
    sims.push(
      await startNetconfSimulator({
        yang: MODEL,
        username: 'sim',
        password: PASSWORD,
        config: '<box xmlns="urn:acme:cluster"><name>b</name></box>',
      }),
    );
  sampler = setInterval(() => {
    for (const sim of sims) mostSessions = Math.max(mostSessions, sim.sessions);
  }, 20);
  db = new Client({ connectionString: url });
});

test.after.always(async () => {
  if (sampler !== undefined) clearInterval(sampler);
  await Promise.all(instances.map((i) => i.kill()));
  await db?.end().catch(() => undefined);
  for (const sim of sims) await sim.close();
  await server?.destroy();
});

async function start(): Promise<RosettaProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-cluster-data-'));
  const running = await startRosetta(['--database', url, '--data-dir', dataDir, '--plugins', pluginsJson, '--config', configFile]);
  if (running.url === undefined) throw new Error(`rosetta start failed:\n${running.output()}`);
  instances.push(running);
  return running;
}

/** The owner of each node as the leases table says (the database's clock: only unexpired leases). */
async function owners(): Promise<Map<string, string>> {
  const { rows } = await db!.query<{ node_id: string; owner: string }>('SELECT node_id, owner FROM node_leases WHERE expires_at > now()');
  return new Map(rows.map((r) => [r.node_id, r.owner]));
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await check()) return true;
  return false;
}

const everyDeviceOneSession = async () => sims.every((s) => s.sessions === 1);

it('nodes spread over two instances, each device one session; a clean stop hands them over; kill -9 of the owner: taken over after its lease', async (t) => {
  await db!.connect();
  const a = await start();
  const b = await start();
  for (let i = 0; i < DEVICES; i++) {
    const r = await restconfRequest(a.url!, 'POST', '/rests/operations/connection-manager:install-node', {
      input: {
        'node-id': `sim${i}`,
        netconf: {
          'netconf-node-topology:host': '127.0.0.1',
          'netconf-node-topology:port': sims[i]!.port,
          'netconf-node-topology:username': 'sim',
          'netconf-node-topology:password': PASSWORD,
        },
      },
    });
    t.is(r.status, 204, r.text);
  }
  // the leases move the nodes the other instance should own to it: both end up holding some
  t.true(
    await until(async () => {
      const held = await owners();
      return held.size === DEVICES && new Set(held.values()).size === 2 && (await everyDeviceOneSession());
    }, 20_000),
    `spread over both: ${JSON.stringify([...(await owners())])}\n${a.output().slice(-3000)}\n---- b\n${b.output().slice(-3000)}`,
  );
  const spread = [...(await owners()).values()];
  t.log(`spread: ${[...new Set(spread)].map((o) => spread.filter((x) => x === o).length).join(' / ')} nodes`);
  t.is(mostSessions, 1, 'no device ever had two sessions');
  // a node is read through either instance (its data lives in the shared Config datastore)
  const listing = await restconfRequest(
    b.url!,
    'GET',
    '/rests/data/network-topology:network-topology/topology=topology-netconf?content=config',
  );
  t.is(listing.status, 200, listing.text);
  t.is(listing.json['network-topology:topology'][0].node.length, DEVICES);
  // a device's data through the instance that does not own it: forwarded to its owner, both ways
  const held = await owners();
  for (const [node, owner] of held) {
    const other = owner.includes(`pid ${a.pid} `) ? b : a;
    const box = `/rests/data/network-topology:network-topology/topology=topology-netconf/node=${node}/yang-ext:mount/acme-cluster:box`;
    const read = await restconfRequest(other.url!, 'GET', box);
    t.is(read.status, 200, `${node} through the other instance: ${read.text}`);
    t.is(read.json['acme-cluster:box'].name, 'b');
  }
  const [first, firstOwner] = [...held][0]!;
  const notOwner = firstOwner.includes(`pid ${a.pid} `) ? b : a;
  const written = await restconfRequest(
    notOwner.url!,
    'PUT',
    `/rests/data/network-topology:network-topology/topology=topology-netconf/node=${first}/yang-ext:mount/acme-cluster:box/name`,
    { 'acme-cluster:name': 'written-through-another' },
  );
  t.true([201, 204].includes(written.status), written.text);
  t.regex(sims[Number(first.slice(3))]!.runningXml(), /written-through-another/);
  // a uniconfig transaction opened on a, continued and committed through b: forwarded to a, which holds it
  const aNode = [...held].find(([, o]) => o.includes(`pid ${a.pid} `))![0];
  const created = await restconfRequest(a.url!, 'POST', '/rests/operations/uniconfig-manager:create-transaction');
  t.is(created.status, 201, created.text);
  const cookie = created.headers.get('set-cookie')!.split(';')[0]!;
  const intended = `/rests/data/network-topology:network-topology/topology=uniconfig/node=${aNode}/configuration/acme-cluster:box/name`;
  const changed = await restconfRequest(b.url!, 'PUT', intended, { 'acme-cluster:name': 'committed-through-b' }, cookie);
  t.true([201, 204].includes(changed.status), changed.text);
  t.notRegex(sims[Number(aNode.slice(3))]!.runningXml(), /committed-through-b/, 'nothing reaches the device before commit');
  const committed = await restconfRequest(b.url!, 'POST', '/rests/operations/uniconfig-manager:commit', { input: {} }, cookie);
  t.is(committed.status, 204, committed.text);
  t.regex(sims[Number(aNode.slice(3))]!.runningXml(), /committed-through-b/);
  const closed = await restconfRequest(b.url!, 'POST', '/rests/operations/uniconfig-manager:close-transaction', { input: {} }, cookie);
  t.is(closed.status, 422, 'a committed transaction is no longer open anywhere');
  // a third instance joins, then b stops cleanly: its nodes go at once, not after a lease
  const c = await start();
  t.true(await until(async () => new Set((await owners()).values()).size === 3, 20_000), 'the third instance took its share');
  const stopped = Date.now();
  await b.stop();
  t.true(
    await until(async () => {
      const held = await owners();
      return held.size === DEVICES && [...held.values()].every((o) => !o.includes(`pid ${b.pid} `)) && (await everyDeviceOneSession());
    }, 10_000),
    'b’s nodes were taken by the others',
  );
  t.log(`clean stop: nodes handed over ${Date.now() - stopped} ms after the stop began`);
  t.true(Date.now() - stopped < 8000, `handed over in ${Date.now() - stopped} ms after a clean stop`);
  // uninstall through an instance that does not own the node: its owner closes the session at its next renewal
  const [gone] = [...(await owners())].find(([, o]) => o.includes(`pid ${a.pid} `)) ?? [];
  t.truthy(gone, 'a owns a node');
  const uninstall = await restconfRequest(c.url!, 'POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': gone, 'connection-type': 'netconf' },
  });
  t.is(uninstall.status, 204, uninstall.text);
  const goneSim = sims[Number(gone!.slice(3))]!;
  t.true(
    await until(async () => goneSim.sessions === 0 && !(await owners()).has(gone!), 10_000),
    'the owner closed the uninstalled node’s session',
  );
  // kill -9 of a: its nodes pass to c once their leases end (10 s), within 15 s of that
  const aNodes = [...(await owners())].filter(([, o]) => o.includes(`pid ${a.pid} `)).map(([n]) => n);
  t.true(aNodes.length > 0, 'a owns nodes before the kill');
  const killed = Date.now();
  await a.kill();
  t.true(
    await until(async () => {
      const held = await owners();
      return aNodes.every((n) => held.get(n)?.includes(`pid ${c.pid} `) === true) && sims.every((s) => s === goneSim || s.sessions === 1);
    }, 30_000),
    'c took over a’s nodes and connected them',
  );
  t.log(`kill -9: ${aNodes.length} node(s) taken over and connected ${Date.now() - killed} ms after the kill (lease 10 s)`);
  t.true(Date.now() - killed < 25_000, `taken over ${Date.now() - killed} ms after the kill (lease 10 s)`);
  t.is(mostSessions, 1, 'no device ever had two sessions');
});

const frrUnavailable = absent ?? frrPeerUnavailable();
if (absent === undefined && frrUnavailable !== undefined)
  console.warn(`\n*** e2e-cluster: SKIPPING the FRR ownership test: ${frrUnavailable} ***\n`);
const itFrr = frrUnavailable === undefined ? test : test.skip;

/** Established TCP connections to loopback port `port` (their client ends: Rosetta's sessions to the device), from /proc/net/tcp{,6}. */
function sessionsTo(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[2]?.endsWith(hex) && fields[3] === '01') n++;
    }
  }
  return n;
}

itFrr(
  'the FRR device: one session from the cluster, through whichever instance; kill -9 of its owner: taken over, never two sessions',
  async (t) => {
    const peer = await acquireFrrPeer({ who: 'test/e2e-cluster' });
    t.teardown(() => peer.release());
    const { port, username, password } = frrPeerLogin();
    const before = instances.filter((i) => i.exited() === undefined);
    const d = await start();
    const e = await start();
    const alive = [...before, d, e];
    let most = 0;
    const sampling = setInterval(() => {
      most = Math.max(most, sessionsTo(port));
    }, 50);
    t.teardown(() => clearInterval(sampling));
    const installed = await restconfRequest(d.url!, 'POST', '/rests/operations/connection-manager:install-node', {
      input: {
        'node-id': 'FRR1',
        cli: {
          'cli-topology:host': '127.0.0.1',
          'cli-topology:port': String(port),
          'cli-topology:transport-type': 'ssh',
          'cli-topology:device-type': 'frr',
          'cli-topology:device-version': '8.4.4',
          'cli-topology:username': username,
          'cli-topology:password': password,
        },
      },
    });
    t.is(installed.status, 204, installed.text);
    // let the leases settle (the node may move to the instance that should own it), then one session
    await new Promise((r) => setTimeout(r, 4000));
    t.true(await until(async () => sessionsTo(port) === 1 && (await owners()).has('FRR1'), 15_000), 'one session to the device');
    const owner = (await owners()).get('FRR1')!;
    const victim = alive.find((i) => owner.includes(`pid ${i.pid} `));
    const survivor = alive.find((i) => i !== victim);
    t.truthy(victim, `FRR1 is owned by a live instance: ${owner}`);
    if (victim === undefined || survivor === undefined) return;
    // its data through the other instance, forwarded
    const read = await restconfRequest(
      survivor.url!,
      'GET',
      '/rests/data/network-topology:network-topology/topology=cli/node=FRR1/yang-ext:mount/rosetta-openconfig-interfaces:interfaces',
    );
    t.is(read.status, 200, read.text);
    const killed = Date.now();
    await victim.kill();
    t.true(
      await until(async () => {
        const now = (await owners()).get('FRR1') ?? '';
        return sessionsTo(port) === 1 && alive.some((i) => i !== victim && now.includes(`pid ${i.pid} `));
      }, 30_000),
      'the survivor took the device over',
    );
    t.log(`FRR1 taken over ${Date.now() - killed} ms after kill -9 of its owner (lease 10 s)`);
    t.is(most, 1, 'the device never had two sessions from the cluster');
    const uninstalled = await restconfRequest(survivor.url!, 'POST', '/rests/operations/connection-manager:uninstall-node', {
      input: { 'node-id': 'FRR1', 'connection-type': 'cli' },
    });
    t.is(uninstalled.status, 204, uninstalled.text);
  },
);

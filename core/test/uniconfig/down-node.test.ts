/**
 * A uniconfig node whose device is down (NETCONF, SDK simulator): its stored intended and actual
 * configuration stay readable, and editable inside a transaction, both while the session is lost and
 * after a restart of the service during which the device never came back (the device's YANG modules
 * are kept by the uniconfig layer); only a commit (or an immediate write) fails, with 502 and nothing
 * changed in the stores. Once the device is back, the transaction's edit commits.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { eventually, pluginsFile, startMountService, type MountService } from '../mount/fixture';
import { ACME_ROUTER_CONFIG, ACME_ROUTER_YANG, installN1, N1_CONFIGURATION } from './acme-router';

const CONF = N1_CONFIGURATION;
const OPS = '/rests/operations';
const plugins = pluginsFile(['plugins/netconf']);

let device: SimulatedNetconfDevice | undefined;
let s: MountService | undefined;

test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

async function transaction(svc: MountService): Promise<string> {
  const r = await svc.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  if (r.status !== 201) throw new Error(`create-transaction: ${r.status} ${r.text}`);
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

async function hostname(svc: MountService, content: string, cookie?: string): Promise<{ status: number; value: unknown }> {
  const r = await svc.request('GET', `${CONF}/acme-router:system/hostname?content=${content}`, undefined, cookie ? { cookie } : {});
  return { status: r.status, value: r.status === 200 ? r.json['acme-router:hostname'] : r.text };
}

test.serial(
  'a down device: its stored copy is read and edited in a transaction; commit 502, nothing changed; after it is back the commit goes through',
  async (t) => {
    device = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: ACME_ROUTER_CONFIG });
    const port = device.port;
    s = await startMountService(plugins);
    const install = await installN1(s, port);
    t.is(install.status, 204, install.text);

    // 1. the session is lost while the service runs
    await device.close();
    device = undefined;
    t.deepEqual(await hostname(s, 'config'), { status: 200, value: 'n1' });
    const lost = await transaction(s);
    t.is(
      (await s.request('PUT', `${CONF}/acme-router:system/hostname`, { 'acme-router:hostname': 'offline-edit' }, { cookie: lost })).status,
      204,
    );
    const status = async (svc: MountService) =>
      (await svc.request('GET', '/rests/data/network-topology:network-topology/topology=topology-netconf/node=N1?content=nonconfig')).text;
    const running = s;
    t.true(await eventually(async () => !(await status(running)).includes('"connected"')), 'the loss is noticed');
    const lostCommit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie: lost });
    t.is(lostCommit.status, 502, lostCommit.text);
    t.deepEqual(await hostname(s, 'config'), { status: 200, value: 'n1' }, 'intended unchanged');
    t.deepEqual(await hostname(s, 'nonconfig'), { status: 200, value: 'n1' }, 'actual unchanged');

    // 2. the service restarts while the device is still down: nothing but the kept modules gives the schema
    await s.service.stop();
    s = await startMountService(plugins, s.dataDir);
    t.deepEqual(await hostname(s, 'config'), { status: 200, value: 'n1' }, s.logs.join('\n'));
    t.deepEqual(await hostname(s, 'nonconfig'), { status: 200, value: 'n1' });
    const whole = await s.request('GET', CONF);
    t.deepEqual(whole.json, { 'uniconfig-topology:configuration': { 'acme-router:system': { hostname: 'n1', location: 'lab' } } });
    const cookie = await transaction(s);
    t.is(
      (await s.request('PUT', `${CONF}/acme-router:system/hostname`, { 'acme-router:hostname': 'edited-while-down' }, { cookie })).status,
      204,
    );
    t.deepEqual(await hostname(s, 'config', cookie), { status: 200, value: 'edited-while-down' });
    const diff = await s.request('POST', `${OPS}/uniconfig-manager:calculate-diff`, { input: {} }, { cookie });
    t.is(diff.status, 200, diff.text);
    t.deepEqual(
      diff.json['uniconfig-manager:output']['node-results']['node-result'][0]['updated-data'].map((u: any) => u.path),
      ['/acme-router:system/hostname'],
    );
    const immediate = await s.request('PUT', `${CONF}/acme-router:system/location`, { 'acme-router:location': 'never' });
    t.is(immediate.status, 502, immediate.text);
    const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: { 'target-nodes': { node: ['N1'] } } }, { cookie });
    t.is(commit.status, 502, commit.text);
    t.deepEqual(await hostname(s, 'config'), { status: 200, value: 'n1' });
    t.deepEqual(await hostname(s, 'nonconfig'), { status: 200, value: 'n1' });

    // 3. the device comes back on its port: a new transaction's edit commits and reaches it
    device = await startNetconfSimulator(
      { yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: ACME_ROUTER_CONFIG },
      { port },
    );
    const svc = s;
    t.true(await eventually(async () => (await status(svc)).includes('"connected"'), 30_000), svc.logs.join('\n'));
    const again = await transaction(s);
    t.is(
      (await s.request('PUT', `${CONF}/acme-router:system/hostname`, { 'acme-router:hostname': 'back' }, { cookie: again })).status,
      204,
    );
    const ok = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie: again });
    t.is(ok.status, 204, ok.text);
    t.regex(device.runningXml(), /<hostname>back<\/hostname>/);
    t.deepEqual(await hostname(s, 'nonconfig'), { status: 200, value: 'back' });
  },
);

test.serial(
  'a data folder of an earlier version (a file per node for the actual configuration and for the modules) is read, then moved into the journals',
  async (t) => {
    await s?.service.stop();
    s = undefined;
    await device?.close();
    device = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: ACME_ROUTER_CONFIG });
    const first = await startMountService(plugins);
    s = first;
    const install = await installN1(first, device.port);
    t.is(install.status, 204, install.text);
    await first.service.stop();
    s = undefined;
    await device.close();
    device = undefined;

    // what an earlier version left: no journals, one file per node instead
    const dir = first.dataDir;
    const hexId = Buffer.from('N1', 'utf8').toString('hex');
    fs.rmSync(path.join(dir, 'uniconfig-actual-journal'), { recursive: true });
    fs.rmSync(path.join(dir, 'uniconfig-node-modules'), { recursive: true });
    const sets = fs.readdirSync(path.join(dir, 'uniconfig-modules'));
    t.is(sets.length, 1);
    fs.writeFileSync(
      path.join(dir, 'uniconfig-modules', `node-${hexId}.json`),
      JSON.stringify({ set: sets[0]!.slice(0, -'.json'.length) }),
    );
    fs.mkdirSync(path.join(dir, 'uniconfig-actual'));
    const legacyActual = path.join(dir, 'uniconfig-actual', `${hexId}.json`);
    fs.writeFileSync(legacyActual, JSON.stringify({ 'acme-router:system': { hostname: 'from-a-file', location: 'lab' } }));

    for (const round of ['moved', 'from the journal']) {
      const svc = await startMountService(plugins, dir);
      s = svc;
      t.deepEqual(await hostname(svc, 'nonconfig'), { status: 200, value: 'from-a-file' }, `${round}: ${svc.logs.join('\n')}`);
      t.deepEqual(await hostname(svc, 'config'), { status: 200, value: 'n1' }, round);
      t.false(fs.existsSync(legacyActual), round);
      await svc.service.stop();
      s = undefined;
    }
  },
);

/**
 * Long work as a client and an operator see it, on a real service against thirty of the SDK's NETCONF
 * simulators: an install-multiple-nodes batch is readable under `rosetta-jobs:jobs` while it runs (one
 * device's login is held back by the test until it has read the job running with every other node
 * done, so the read cannot miss it), its done count moves to the total, a node that hangs at login ends
 * it `failed` naming that node, the log carries its progress lines, and /metrics shows it running.
 * A sync-from-network of every node and of one node is a job too.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { startTestService, type TestService } from '../../src/service/test-service';
import { eventually, pluginsFile } from '../mount/fixture';
import { type JobEntry, JOBS, readJobs } from './jobs-read';

const MODEL = `module acme-box {
  yang-version 1.1;
  namespace "urn:acme:box";
  prefix ab;
  container system { leaf hostname { type string; } }
}`;

const DEVICES = 30;
const devices: SimulatedNetconfDevice[] = [];
const sockets = new Set<net.Socket>();
let s: TestService;
/** Hangs at login: accepts and never speaks. */
let hung: net.Server;
/** Holds each connection until `release()`, then joins it to the first simulator. */
let gated: net.Server;
let release: () => void = () => undefined;
const opened = new Promise<void>((resolve) => {
  release = resolve;
});
const caches = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-jobs-cache-'));

function netconfNode(id: string, port: number, extra: Record<string, unknown> = {}) {
  return {
    'node-id': id,
    netconf: {
      'netconf-node-topology:host': '127.0.0.1',
      'netconf-node-topology:port': port,
      'netconf-node-topology:username': 'admin',
      'netconf-node-topology:password': 'pw',
      'netconf-node-topology:schema-cache-directory': path.join(caches, id),
      ...extra,
    },
  };
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const jobs = (): Promise<JobEntry[]> => readJobs(s);

test.before(async () => {
  for (let i = 0; i < DEVICES; i++) {
    devices.push(
      await startNetconfSimulator({
        yang: MODEL,
        username: 'admin',
        password: 'pw',
        config: `<system xmlns="urn:acme:box"><hostname>j${i}</hostname></system>`,
      }),
    );
  }
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  hung = net.createServer(track);
  gated = net.createServer((socket) => {
    track(socket);
    socket.pause();
    void opened.then(() => {
      const device = net.connect(devices[0]!.port, '127.0.0.1');
      track(device);
      socket.pipe(device).pipe(socket);
      socket.resume();
      socket.on('error', () => device.destroy());
      device.on('error', () => socket.destroy());
    });
  });
  await listen(hung);
  await listen(gated);
  s = await startTestService({
    label: 'jobs',
    plugins: pluginsFile(['plugins/netconf', 'plugins/cli']),
    config: { fleet: { installConcurrency: 4 } },
  });
});

test.after.always(async () => {
  release();
  await s?.stop();
  for (const d of devices) await d.close();
  for (const socket of sockets) socket.destroy();
  hung?.close();
  gated?.close();
  fs.rmSync(caches, { recursive: true, force: true });
});

test.serial('a bulk install is a job readable while it runs, its done count moving to the total and its end state kept', async (t) => {
  const nodes = [
    netconfNode('GATED', (gated.address() as net.AddressInfo).port, { 'netconf-node-topology:initial-connection-timeout': 120_000 }),
    netconfNode('HUNG', (hung.address() as net.AddressInfo).port, { 'netconf-node-topology:initial-connection-timeout': 1000 }),
    ...devices.map((d, i) => netconfNode(`J${i}`, d.port)),
  ];
  const total = nodes.length;
  t.is((await s.request('GET', JOBS)).status, 404, 'no job kept yet: the list is absent');
  const mark = s.logs.length;
  const batch = s.request('POST', '/rests/operations/connection-manager:install-multiple-nodes', { input: { nodes } });
  // every node but GATED ends (HUNG by its timeout) while GATED's login waits for the test
  const seen: number[] = [];
  let allButOne: JobEntry | undefined;
  t.true(
    await eventually(async () => {
      const job = (await jobs()).find((j) => j.kind === 'install-multiple-nodes');
      if (job === undefined) return false;
      t.is(job.state, 'running', JSON.stringify(job));
      t.is(job.total, total);
      t.is(job.finished, undefined);
      seen.push(job.done);
      if (job.done === total - 1) allButOne = job;
      return allButOne !== undefined;
    }, 60_000),
    `the job never had all but one node done: ${JSON.stringify(seen)}`,
  );
  t.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
    'done never goes back',
  );
  t.is(allButOne!.failed, 1, 'HUNG failed at its timeout');
  const scrape = await s.request('GET', '/metrics');
  t.regex(scrape.text, /^rosetta_jobs_running\{kind="install-multiple-nodes"\} 1$/m);
  t.regex(scrape.text, /^rosetta_job_items_remaining\{kind="install-multiple-nodes"\} 1$/m);
  release();
  const r = await batch;
  t.is(r.status, 200, r.text);
  t.deepEqual(
    r.json['connection-manager:output']['node-results'].map((n: { 'node-id': string }) => n['node-id']),
    ['HUNG'],
  );
  const ended = (await jobs()).find((j) => j.id === allButOne!.id)!;
  t.like(ended, { kind: 'install-multiple-nodes', state: 'failed', total, done: total, failed: 1 });
  t.regex(ended.error!, /^HUNG: /);
  t.true(Date.parse(ended.finished!) >= Date.parse(ended.started));
  // one job read by its key, as any list entry is
  const one = await s.request('GET', `${JOBS}/job=${ended.id}`);
  t.is(one.status, 200, one.text);
  t.is(one.json['rosetta-jobs:job'][0].done, total);
  const log = s.logs.slice(mark);
  t.true(log.includes(`installing ${total} node(s), at most 4 at once`), log.join('\n'));
  t.true(
    log.some((l) => new RegExp(`^installing \\d+/${total}`).test(l)),
    log.join('\n'),
  );
  t.true(
    log.some((l) => new RegExp(`^installed ${total - 1}/${total} node\\(s\\) in [\\d.]+ s; 1 failed, the first: HUNG: `).test(l)),
    log.join('\n'),
  );
  const after = await s.request('GET', '/metrics');
  t.notRegex(after.text, /^rosetta_jobs_running\{kind="install-multiple-nodes"\} [1-9]/m);
});

test.serial('sync-from-network of every node and of one node are jobs: a batch with progress lines, one naming its node', async (t) => {
  const mark = s.logs.length;
  const all = await s.request('POST', '/rests/operations/uniconfig-manager:sync-from-network', { input: {} });
  t.is(all.status, 200, all.text);
  const synced = all.json['uniconfig-manager:output']['node-results']['node-result'].length;
  t.true(synced >= DEVICES, all.text);
  const one = await s.request('POST', '/rests/operations/uniconfig-manager:sync-from-network', {
    input: { 'target-nodes': { node: ['J3'] } },
  });
  t.is(one.status, 200, one.text);
  const syncs = (await jobs()).filter((j) => j.kind === 'sync-from-network');
  t.is(syncs.length, 2);
  t.like(syncs[0], { state: 'succeeded', total: synced, done: synced, failed: 0 });
  t.is(syncs[0]!['node-id'], undefined);
  t.like(syncs[1], { state: 'succeeded', total: 1, done: 1, 'node-id': 'J3' });
  const log = s.logs.slice(mark);
  t.true(log.includes(`syncing ${synced} node(s)`), log.join('\n'));
  t.true(
    log.some((l) => new RegExp(`^synced ${synced}/${synced} node\\(s\\) in [\\d.]+ s$`).test(l)),
    log.join('\n'),
  );
});

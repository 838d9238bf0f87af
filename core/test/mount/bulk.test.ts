/**
 * The bulk node RPCs on a real service with the NETCONF and CLI southbounds, against ten of the SDK's
 * NETCONF simulators: install-multiple-nodes with a node whose port refuses, one whose host does not
 * resolve and one whose device hangs at login failing alone (204 / 200 with the failed nodes), each
 * installed node a uniconfig node too (install-node's taps ran per node); progress in the log;
 * check-installed-nodes, get-installed-nodes, check-nodes-connection with a dropped device and an
 * unknown node; a node installed under another protocol (409 alone, a failed node in a batch); a batch
 * naming a node twice and an empty batch refused whole; 10,000 nodes in one request; uninstall-multiple-nodes.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { startTestService, type TestService } from '../../src/service/test-service';
import { eventually, pluginsFile } from './fixture';

const MODEL = `module acme-box {
  yang-version 1.1;
  namespace "urn:acme:box";
  prefix ab;
  container system { leaf hostname { type string; } }
}`;

const OPS = '/rests/operations/connection-manager';
const DEVICES = 10;
const devices: SimulatedNetconfDevice[] = [];
let s: TestService;
let hung: net.Server;
const hungSockets = new Set<net.Socket>();
const caches = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bulk-cache-'));

function netconfNode(id: string, host: string, port: number, extra: Record<string, unknown> = {}) {
  return {
    'node-id': id,
    netconf: {
      'netconf-node-topology:host': host,
      'netconf-node-topology:port': port,
      'netconf-node-topology:username': 'admin',
      'netconf-node-topology:password': 'pw',
      'netconf-node-topology:schema-cache-directory': path.join(caches, id),
      ...extra,
    },
  };
}

/** A port on loopback that refuses connections (bound and closed). */
async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test.before(async () => {
  for (let i = 0; i < DEVICES; i++) {
    devices.push(
      await startNetconfSimulator({
        yang: MODEL,
        username: 'admin',
        password: 'pw',
        config: `<system xmlns="urn:acme:box"><hostname>b${i}</hostname></system>`,
      }),
    );
  }
  // a device that accepts the TCP connection and never says anything: it hangs at login
  hung = net.createServer((socket) => {
    hungSockets.add(socket);
    socket.on('close', () => hungSockets.delete(socket));
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  s = await startTestService({
    label: 'bulk',
    plugins: pluginsFile(['plugins/netconf', 'plugins/cli']),
    config: { fleet: { installConcurrency: 4 } },
  });
});

test.after.always(async () => {
  await s?.stop();
  for (const d of devices) await d.close();
  for (const socket of hungSockets) socket.destroy();
  hung?.close();
  fs.rmSync(caches, { recursive: true, force: true });
});

test.serial('install-multiple-nodes installs the reachable nodes and answers the failed ones with the reason', async (t) => {
  const refused = await refusedPort();
  const hungPort = (hung.address() as net.AddressInfo).port;
  const nodes = [
    ...devices.map((d, i) => netconfNode(`B${i}`, '127.0.0.1', d.port)),
    netconfNode('REFUSED', '127.0.0.1', refused),
    netconfNode('NOWHERE', 'no-such-host.invalid', 830),
    netconfNode('HUNG', '127.0.0.1', hungPort, { 'netconf-node-topology:initial-connection-timeout': 1000 }),
  ];
  const mark = s.logs.length;
  // while the batch runs, the nodes' status is readable and the service answers
  const batch = s.request('POST', `${OPS}:install-multiple-nodes`, { input: { nodes } });
  let finished = false;
  void batch.finally(() => {
    finished = true;
  });
  let seen: unknown;
  while (!finished && seen === undefined) {
    const during = await s.request('GET', '/rests/data/network-topology:network-topology/topology=unified?content=nonconfig');
    seen = during.json?.['network-topology:topology']?.[0]?.node?.[0]?.['unified-topology:connection-status'];
  }
  t.true(seen === 'connecting' || seen === 'connected', `status while the batch runs: ${String(seen)}`);
  const r = await batch;
  t.is(r.status, 200, r.text);
  const failed = r.json['connection-manager:output']['node-results'] as Array<Record<string, string>>;
  t.deepEqual(failed.map((f) => f['node-id']).sort(), ['HUNG', 'NOWHERE', 'REFUSED']);
  for (const f of failed) t.is(f.status, 'fail');
  const message = (id: string) => failed.find((f) => f['node-id'] === id)!['error-message'];
  t.regex(message('REFUSED'), /REFUSED.*cannot be reached|ECONNREFUSED/);
  t.regex(message('NOWHERE'), /ENOTFOUND|EAI_AGAIN|not resolve|getaddrinfo/i);
  t.regex(message('HUNG'), /timed out|within 1000 ms/);
  // every reachable node is installed, connected, and a uniconfig node too (install-node's taps ran per node)
  for (let i = 0; i < DEVICES; i++) {
    const node = await s.request(
      'GET',
      `/rests/data/network-topology:network-topology/topology=topology-netconf/node=B${i}?content=nonconfig`,
    );
    t.is(node.json?.['network-topology:node']?.[0]?.['netconf-node-topology:connection-status'], 'connected', node.text);
    const uniconfig = await s.request(
      'GET',
      `/rests/data/network-topology:network-topology/topology=uniconfig/node=B${i}/configuration?content=config`,
    );
    t.is(uniconfig.json?.['uniconfig-topology:configuration']?.['acme-box:system']?.hostname, `b${i}`, uniconfig.text);
  }
  // nothing of a failed node is left
  const gone = await s.request('GET', '/rests/data/network-topology:network-topology/topology=topology-netconf/node=REFUSED');
  t.is(gone.status, 404);
  const log = s.logs.slice(mark);
  t.true(
    log.some((l) => /^installing 13 node\(s\), at most 4 at once$/.test(l)),
    log.join('\n'),
  );
  t.true(
    log.some((l) => /^installing \d+\/13/.test(l)),
    log.join('\n'),
  );
  t.true(
    log.some((l) => /^installed 10\/13 node\(s\) in [\d.]+ s; 3 failed/.test(l)),
    log.join('\n'),
  );
});

test.serial('check-installed-nodes and get-installed-nodes list the installed nodes with their topology and uniconfig layer', async (t) => {
  const check = await s.request('POST', `${OPS}:check-installed-nodes`, { input: { 'target-nodes': { node: ['B3', 'REFUSED', 'B1'] } } });
  t.is(check.status, 200, check.text);
  t.deepEqual(check.json['connection-manager:output']['node-results']['node-result'], [
    { 'node-id': 'B3', 'topology-id': 'topology-netconf', 'uniconfig-layer': true },
    { 'node-id': 'B1', 'topology-id': 'topology-netconf', 'uniconfig-layer': true },
  ]);
  const none = await s.request('POST', `${OPS}:check-installed-nodes`, { input: { 'target-nodes': { node: ['REFUSED'] } } });
  t.is(none.status, 200, none.text);
  t.is(none.json['connection-manager:output']?.['node-results']?.['node-result'], undefined);
  const empty = await s.request('POST', `${OPS}:check-installed-nodes`, { input: { 'target-nodes': {} } });
  t.is(empty.status, 400, empty.text);
  t.is(empty.json.errors.error[0]['error-tag'], 'missing-element');
  const all = await s.request('POST', `${OPS}:get-installed-nodes`);
  t.is(all.status, 200, all.text);
  t.deepEqual(
    all.json['connection-manager:output']['node-results']['node-result'].map((n: Record<string, unknown>) => n['node-id']),
    devices.map((_, i) => `B${i}`),
  );
});

test.serial('check-nodes-connection: 204 when all are connected, else an error per node naming why', async (t) => {
  const ok = await s.request('POST', `${OPS}:check-nodes-connection`, { input: { 'target-nodes': { node: ['B0', 'B1'] } } });
  t.is(ok.status, 204, ok.text);
  // B2's device goes away: its sessions end and new ones are refused
  const port = devices[2]!.port;
  await devices[2]!.close();
  t.true(
    await eventually(async () => {
      const r = await s.request('POST', `${OPS}:check-nodes-connection`, { input: { 'target-nodes': { node: ['B2'] } } });
      return r.status !== 204;
    }),
  );
  const r = await s.request('POST', `${OPS}:check-nodes-connection`, { input: { 'target-nodes': { node: ['B0', 'B2', 'GHOST'] } } });
  t.is(r.status, 500, r.text);
  const errors = r.json.errors.error as Array<Record<string, any>>;
  t.is(errors.length, 2);
  t.regex(errors[0]!['error-message'], /^node 'B2' \(topology topology-netconf\) is not connected: /);
  t.like(errors[0]!['error-info'], { 'node-id': 'B2', 'topology-id': 'topology-netconf' });
  t.is(errors[1]!['error-message'], "node 'GHOST' is not installed");
  devices[2] = await startNetconfSimulator({ yang: MODEL, username: 'admin', password: 'pw' }, { port });
});

test.serial('a node installed under another protocol: 409 naming its topology alone, a failed node in a batch', async (t) => {
  const cli = { 'node-id': 'B0', cli: { 'cli-topology:host': '127.0.0.1', 'cli-topology:port': 22, 'cli-topology:transport-type': 'ssh' } };
  const single = await s.request('POST', `${OPS}:install-node`, { input: cli });
  t.is(single.status, 409, single.text);
  t.is(single.json.errors.error[0]['error-tag'], 'data-exists');
  t.regex(single.json.errors.error[0]['error-message'], /node 'B0' is already installed \(topology topology-netconf\)/);
  const batch = await s.request('POST', `${OPS}:install-multiple-nodes`, { input: { nodes: [cli] } });
  t.is(batch.status, 200, batch.text);
  t.deepEqual(batch.json['connection-manager:output']['node-results'], [
    { 'node-id': 'B0', status: 'fail', 'error-message': "node 'B0' is already installed (topology topology-netconf)" },
  ]);
});

test.serial('a batch naming a node twice, or no node, is refused whole and installs nothing', async (t) => {
  const refused = await refusedPort();
  const twice = await s.request('POST', `${OPS}:install-multiple-nodes`, {
    input: {
      nodes: [netconfNode('X1', '127.0.0.1', refused), netconfNode('X2', '127.0.0.1', refused), netconfNode('X1', '127.0.0.1', refused)],
    },
  });
  t.is(twice.status, 400, twice.text);
  const error = twice.json.errors.error[0];
  t.is(error['error-tag'], 'invalid-value');
  t.is(error['error-path'], '/connection-manager:install-multiple-nodes/input/nodes');
  t.regex(error['error-message'], /node 'X1' is named 2 times in the batch/);
  t.false(
    s.logs.some((l) => /^installing 3 node/.test(l)),
    'no node was tried',
  );
  for (const body of [{ input: { nodes: [] } }, { input: {} }, undefined]) {
    const empty = await s.request('POST', `${OPS}:install-multiple-nodes`, body);
    t.is(empty.status, 400, empty.text);
    t.is(empty.json.errors.error[0]['error-tag'], 'missing-element');
    t.is(empty.json.errors.error[0]['error-path'], '/connection-manager:install-multiple-nodes/input/nodes');
  }
  t.is((await s.request('GET', '/rests/operations')).status, 200, 'the service answers');
});

test.serial('10,000 nodes in one request: every node tried and answered, the service responsive meanwhile', async (t) => {
  const refused = await refusedPort();
  const nodes = Array.from({ length: 10_000 }, (_, i) => ({
    'node-id': `F${String(i).padStart(5, '0')}`,
    netconf: {
      'netconf-node-topology:host': '127.0.0.1',
      'netconf-node-topology:port': refused,
      'netconf-node-topology:username': 'admin',
      'netconf-node-topology:password': 'pw',
    },
  }));
  const batch = s.request('POST', `${OPS}:install-multiple-nodes`, { input: { nodes } });
  const meanwhile = await s.request('GET', '/rests/operations');
  t.is(meanwhile.status, 200);
  const r = await batch;
  t.is(r.status, 200, r.text.slice(0, 500));
  const failed = r.json['connection-manager:output']['node-results'] as Array<Record<string, string>>;
  t.is(failed.length, 10_000);
  t.is(new Set(failed.map((f) => f['node-id'])).size, 10_000);
  const odd = failed.filter((f) => f.status !== 'fail' || !/cannot be reached: .*ECONNREFUSED/.test(f['error-message']!));
  t.deepEqual(odd.slice(0, 3), []);
  const all = await s.request('POST', `${OPS}:get-installed-nodes`);
  const left = (all.json['connection-manager:output']['node-results']['node-result'] ?? []) as Array<Record<string, string>>;
  t.deepEqual(
    left.filter((n) => n['node-id']!.startsWith('F')),
    [],
    'none of them stayed',
  );
});

test.serial('uninstall-multiple-nodes uninstalls every node; nodes not installed are answered as failed', async (t) => {
  const nodes = devices.map((_, i) => ({ 'node-id': `B${i}`, 'connection-type': 'netconf' }));
  const r = await s.request('POST', `${OPS}:uninstall-multiple-nodes`, { input: { nodes } });
  t.is(r.status, 204, r.text);
  const installed = await s.request('POST', `${OPS}:get-installed-nodes`);
  t.is(installed.json['connection-manager:output']?.['node-results']?.['node-result'], undefined, installed.text);
  t.is((await s.request('GET', '/rests/data/network-topology:network-topology/topology=uniconfig/node=B0')).status, 404);
  const again = await s.request('POST', `${OPS}:uninstall-multiple-nodes`, { input: { nodes: nodes.slice(0, 2) } });
  t.is(again.status, 200, again.text);
  t.deepEqual(again.json['connection-manager:output']['node-results'], [
    { 'node-id': 'B0', status: 'fail', 'error-message': "node 'B0' is not installed" },
    { 'node-id': 'B1', status: 'fail', 'error-message': "node 'B1' is not installed" },
  ]);
});

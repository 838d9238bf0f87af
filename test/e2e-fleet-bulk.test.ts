/**
 * The bulk node RPCs across real and simulated devices: the real FRR 8.4.4 peer (CLI, leased through
 * the SDK's acquireFrrPeer), a real yuma123 netconfd (test/peers/netconf-device.sh on its own port and
 * state folder) and a fleet of simulated NETCONF and CLI devices (startFleet), through the real service
 * with the repository's plugins:
 * - install-multiple-nodes installs them all in one request, each also a uniconfig node, while a node
 *   whose port refuses fails alone (200 naming it);
 * - check-installed-nodes and get-installed-nodes list them with their topologies;
 * - check-nodes-connection answers 204 for all, then names the one whose device was dropped;
 * - uninstall-multiple-nodes removes them all (204).
 * Skipped loudly when FRR or netconfd cannot run here.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import { acquireFrrPeer, frrPeerLogin, frrPeerUnavailable, startFleet, type Fleet, type FrrPeerLease } from '@rosetta/sdk/testing';
import { type Answer, netconfPeer, netconfdUnavailable, restconfRequest, writeRepositoryPlugins } from './e2e-support';

const NC = { host: '127.0.0.1', port: 10867, username: 'ncuser', password: 'ncpass', state: '/tmp/rosetta-e2e-fleet-bulk-netconf' };
const FRR = frrPeerLogin();
const OPS = '/rests/operations/connection-manager';

const skip = frrPeerUnavailable() ?? netconfdUnavailable();
if (skip) console.warn(`\n*** e2e-fleet-bulk: SKIPPING the real-device tests: ${skip} ***\n`);
const test = anyTest.serial as TestFn;
const it = skip ? test.skip : test;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-fleet-bulk-'));
let service: RunningService | undefined;
let frr: FrrPeerLease | undefined;
let fleet: Fleet | undefined;
const logs: string[] = [];

function request(method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> {
  return restconfRequest(service!.url, method, p, body, cookie);
}

/** A port on loopback that refuses connections (bound and closed). */
async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The batch: FRR1, NC1 and every fleet device, each with its protocol's container. */
function batch(): Array<{ 'node-id': string } & Record<string, unknown>> {
  const cli = (host: string, port: number, username: string, password: string) => ({
    'cli-topology:host': host,
    'cli-topology:port': port,
    'cli-topology:transport-type': 'ssh',
    'cli-topology:device-type': 'frr',
    'cli-topology:device-version': '8.4.4',
    'cli-topology:username': username,
    'cli-topology:password': password,
  });
  const netconf = (host: string, port: number, username: string, password: string) => ({
    'netconf-node-topology:host': host,
    'netconf-node-topology:port': port,
    'netconf-node-topology:username': username,
    'netconf-node-topology:password': password,
  });
  return [
    { 'node-id': 'FRR1', cli: cli(FRR.host, FRR.port, FRR.username, FRR.password) },
    { 'node-id': 'NC1', netconf: netconf(NC.host, NC.port, NC.username, NC.password) },
    ...fleet!.devices.map((d) =>
      d.kind === 'cli'
        ? { 'node-id': d.id, cli: cli(d.host, d.port, d.username, d.password) }
        : { 'node-id': d.id, netconf: netconf(d.host, d.port, d.username, d.password) },
    ),
  ];
}

anyTest.before(async () => {
  if (skip) return;
  frr = await acquireFrrPeer({ who: 'test/e2e-fleet-bulk' });
  await netconfPeer(NC, 'start');
  fleet = await startFleet({ netconf: 6, cli: 2, configLines: 40 });
  const plugins = writeRepositoryPlugins(dir);
  const config = resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins, fleet: { installConcurrency: 4 } }, dir);
  service = await startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: { info: (m) => logs.push(m), error: (m) => logs.push(`ERROR ${m}`) },
  });
});

anyTest.after.always(async () => {
  await service?.stop();
  await fleet?.close();
  if (!skip) await netconfPeer(NC, 'stop').catch(() => undefined);
  await frr?.release();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('install-multiple-nodes installs FRR, netconfd and the fleet in one request; a refusing port fails alone', async (t) => {
  const nodes = [
    ...batch(),
    {
      'node-id': 'GONE',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': await refusedPort(),
        'netconf-node-topology:username': 'u',
        'netconf-node-topology:password': 'p',
      },
    },
  ];
  const r = await request('POST', `${OPS}:install-multiple-nodes`, { input: { nodes } });
  t.is(r.status, 200, r.text);
  const failed = r.json['connection-manager:output']['node-results'];
  t.is(failed.length, 1, r.text);
  t.like(failed[0], { 'node-id': 'GONE', status: 'fail' });
  t.regex(failed[0]['error-message'], /device 'GONE' cannot be reached: .*ECONNREFUSED/);
  t.true(
    logs.some((l) => new RegExp(`^installed ${nodes.length - 1}/${nodes.length} node\\(s\\)`).test(l)),
    logs.join('\n'),
  );
  // every installed node is a uniconfig node too: the batch ran install-node's taps per node
  for (const id of ['FRR1', 'NC1', fleet!.devices[0]!.id, fleet!.devices.at(-1)!.id]) {
    const u = await request('GET', `/rests/data/network-topology:network-topology/topology=uniconfig/node=${id}?content=config`);
    t.is(u.status, 200, `${id}: ${u.text.slice(0, 300)}`);
  }
});

it('check-installed-nodes and get-installed-nodes name each node with its topology', async (t) => {
  const cliId = fleet!.devices.find((d) => d.kind === 'cli')!.id;
  const check = await request('POST', `${OPS}:check-installed-nodes`, {
    input: { 'target-nodes': { node: ['NC1', 'GONE', cliId, 'FRR1'] } },
  });
  t.is(check.status, 200, check.text);
  t.deepEqual(check.json['connection-manager:output']['node-results']['node-result'], [
    { 'node-id': 'NC1', 'topology-id': 'topology-netconf', 'uniconfig-layer': true },
    { 'node-id': cliId, 'topology-id': 'cli', 'uniconfig-layer': true },
    { 'node-id': 'FRR1', 'topology-id': 'cli', 'uniconfig-layer': true },
  ]);
  const all = await request('POST', `${OPS}:get-installed-nodes`);
  t.is(all.status, 200, all.text);
  const ids = all.json['connection-manager:output']['node-results']['node-result'].map((n: { 'node-id': string }) => n['node-id']);
  t.deepEqual(
    ids,
    batch()
      .map((n) => n['node-id'])
      .sort(),
  );
});

it('check-nodes-connection: 204 for all, then the dropped device named with why', async (t) => {
  const every = batch().map((n) => n['node-id']);
  const ok = await request('POST', `${OPS}:check-nodes-connection`, { input: { 'target-nodes': { node: every } } });
  t.is(ok.status, 204, ok.text);
  const dropped = fleet!.devices.find((d) => d.kind === 'netconf')!.id;
  await fleet!.drop([dropped]);
  let answer = ok;
  const end = Date.now() + 20_000;
  while (answer.status === 204 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 200));
    answer = await request('POST', `${OPS}:check-nodes-connection`, { input: { 'target-nodes': { node: every } } });
  }
  t.is(answer.status, 500, answer.text);
  const errors = answer.json.errors.error;
  t.is(errors.length, 1, answer.text);
  t.regex(errors[0]['error-message'], new RegExp(`^node '${dropped}' \\(topology topology-netconf\\) is not connected: `));
  t.like(errors[0]['error-info'], { 'node-id': dropped, 'topology-id': 'topology-netconf' });
  await fleet!.resume([dropped]);
});

it('uninstall-multiple-nodes removes every node', async (t) => {
  const nodes = batch().map((n) => ({ 'node-id': n['node-id'], 'connection-type': 'cli' in n ? 'cli' : 'netconf' }));
  const r = await request('POST', `${OPS}:uninstall-multiple-nodes`, { input: { nodes } });
  t.is(r.status, 204, r.text);
  const all = await request('POST', `${OPS}:get-installed-nodes`);
  t.is(all.json['connection-manager:output']?.['node-results']?.['node-result'], undefined, all.text);
});

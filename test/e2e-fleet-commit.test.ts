/**
 * Commits spanning real and simulated devices: the real FRR 8.4.4 peer (CLI, leased through the SDK's
 * acquireFrrPeer), a real yuma123 netconfd (test/peers/netconf-device.sh on its own port and state
 * folder) and SDK NETCONF simulators, one of which is down, through the real service with the
 * repository's plugins:
 * - with the down node among the targets the commit is refused (502, one entry per node) and nothing
 *   reaches any device; with `skip-unreachable-nodes` every reachable device takes its change and the
 *   answer (200) names the down node;
 * - with `do-rollback: false` and netconfd refusing (its locks held by the test's own session), FRR and
 *   the simulators keep their change, netconfd holds nothing of it, and the answer says so per node.
 * Skipped loudly when FRR or netconfd cannot run here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import {
  acquireFrrPeer,
  frrPeerLogin,
  frrPeerUnavailable,
  openRawNetconf,
  startNetconfSimulator,
  type FrrPeerLease,
  type RawNetconfSession,
  type SimulatedNetconfDevice,
} from '@rosetta/sdk/testing';
import { type Answer, netconfPeer, netconfdUnavailable, restconfRequest, writeRepositoryPlugins } from './e2e-support';

const NC = { host: '127.0.0.1', port: 10866, username: 'ncuser', password: 'ncpass', state: '/tmp/rosetta-e2e-fleet-commit-netconf' };
const FRR = frrPeerLogin();
const TOPO = '/rests/data/network-topology:network-topology/topology=uniconfig';
const OPS = '/rests/operations';
const SIM_MODEL = `module acme-router {
  yang-version 1.1;
  namespace "urn:acme:router";
  prefix ar;
  container system {
    leaf hostname { type string; }
    leaf location { type string; }
  }
}`;
const SIMS = ['S1', 'S2', 'S3'];
const DOWN = 'SDOWN';

const skip = frrPeerUnavailable() ?? netconfdUnavailable();
if (skip) console.warn(`\n*** e2e-fleet-commit: SKIPPING the real-device tests: ${skip} ***\n`);
const test = anyTest.serial as TestFn;
const it = skip ? test.skip : test;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-fleet-commit-'));
let service: RunningService | undefined;
let frr: FrrPeerLease | undefined;
let raw: RawNetconfSession | undefined;
const sims = new Map<string, SimulatedNetconfDevice>();
const logs: string[] = [];

function request(method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> {
  return restconfRequest(service!.url, method, p, body, cookie);
}

async function transaction(): Promise<string> {
  const r = await request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  if (r.status !== 201) throw new Error(`create-transaction: ${r.status} ${r.text}`);
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

async function install(nodeId: string, input: Record<string, unknown>): Promise<void> {
  const r = await request('POST', `${OPS}/connection-manager:install-node`, { input: { 'node-id': nodeId, ...input } });
  if (r.status !== 204) throw new Error(`install ${nodeId}: ${r.status} ${r.text}`);
}

function simulatorInput(device: SimulatedNetconfDevice): Record<string, unknown> {
  return {
    netconf: {
      'netconf-node-topology:host': '127.0.0.1',
      'netconf-node-topology:port': device.port,
      'netconf-node-topology:username': 'admin',
      'netconf-node-topology:password': 'pw',
    },
  };
}

/** Puts the same text on every node of the commit: FRR1's uf0 description, NC1's and the simulators' location. */
async function changeAll(text: string, nodes: readonly string[], cookie: string): Promise<void> {
  for (const node of nodes) {
    const r =
      node === 'FRR1'
        ? await request(
            'PUT',
            `${TOPO}/node=FRR1/configuration/rosetta-openconfig-interfaces:interfaces/interface=uf0/config`,
            { 'rosetta-openconfig-interfaces:config': { name: 'uf0', description: text } },
            cookie,
          )
        : node === 'NC1'
          ? await request('PUT', `${TOPO}/node=NC1/configuration/ietf-system:system/location`, { 'ietf-system:location': text }, cookie)
          : await request(
              'PUT',
              `${TOPO}/node=${node}/configuration/acme-router:system/location`,
              { 'acme-router:location': text },
              cookie,
            );
    if (r.status !== 201 && r.status !== 204) throw new Error(`PUT on ${node}: ${r.status} ${r.text}`);
  }
}

const ncRunning = () => raw!.rpc('<get-config><source><running/></source></get-config>');

anyTest.before(async () => {
  if (skip) return;
  frr = await acquireFrrPeer({ who: 'test/e2e-fleet-commit' });
  await netconfPeer(NC, 'start');
  raw = await openRawNetconf(NC);
  const plugins = writeRepositoryPlugins(dir);
  const config = resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins }, dir);
  service = await startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: { info: (m) => logs.push(m), error: (m) => logs.push(`ERROR ${m}`) },
  });
  await install('FRR1', {
    cli: {
      'cli-topology:host': FRR.host,
      'cli-topology:port': FRR.port,
      'cli-topology:transport-type': 'ssh',
      'cli-topology:device-type': 'frr',
      'cli-topology:device-version': '8.4.4',
      'cli-topology:username': FRR.username,
      'cli-topology:password': FRR.password,
    },
  });
  await install('NC1', {
    netconf: {
      'netconf-node-topology:host': NC.host,
      'netconf-node-topology:port': NC.port,
      'netconf-node-topology:username': NC.username,
      'netconf-node-topology:password': NC.password,
    },
  });
  for (const id of [...SIMS, DOWN]) {
    const device = await startNetconfSimulator({
      yang: SIM_MODEL,
      username: 'admin',
      password: 'pw',
      config: `<system xmlns="urn:acme:router"><hostname>${id}</hostname></system>`,
    });
    sims.set(id, device);
    await install(id, simulatorInput(device));
  }
  // the down node: its device goes away after install, as a device in an outage does
  await sims.get(DOWN)!.close();
  sims.delete(DOWN);
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const status = await request(
      'GET',
      `/rests/data/network-topology:network-topology/topology=topology-netconf/node=${DOWN}?content=nonconfig`,
    );
    if (!status.text.includes('"connected"')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${DOWN} still looks connected after its device closed`);
});

anyTest.after.always(async () => {
  await service?.stop();
  await raw?.close();
  for (const device of sims.values()) await device.close();
  if (!skip) await netconfPeer(NC, 'stop').catch(() => undefined);
  // the peer is shared with other test files: the interface these commits made goes again
  try {
    frr?.configure(['no interface uf0']);
  } catch {
    // a peer that cannot be configured any more has nothing of ours to keep
  }
  await frr?.release();
});

it('a down node refuses the commit of all (502, per node, nothing sent); skip-unreachable-nodes commits the others and names it', async (t) => {
  const nodes = ['FRR1', 'NC1', ...SIMS, DOWN];
  const frrBefore = frr!.runningConfig();
  const refusedTx = await transaction();
  await changeAll('fleet e2e', nodes, refusedTx);
  const refused = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, refusedTx);
  t.is(refused.status, 502, refused.text);
  t.deepEqual(
    refused.json.errors.error.map((e: any) => e['error-info']),
    nodes.map((id) => ({ 'node-id': id, 'configuration-status': id === DOWN ? 'fail' : 'n/a', 'rollback-status': 'n/a' })),
  );
  t.is(frr!.runningConfig(), frrBefore, 'nothing sent to FRR');
  t.notRegex(await ncRunning(), /fleet e2e/, 'nothing sent to netconfd');
  for (const id of SIMS) t.notRegex(sims.get(id)!.runningXml(), /fleet e2e/, `nothing sent to ${id}`);

  const cookie = await transaction();
  await changeAll('fleet e2e', nodes, cookie);
  const r = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: { 'skip-unreachable-nodes': true } }, cookie);
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json, { 'uniconfig-manager:output': { 'unreachable-nodes': { node: [DOWN] } } });
  t.regex(frr!.runningConfig(), /interface uf0\n description fleet e2e/);
  t.regex(await ncRunning(), /<location>fleet e2e<\/location>/);
  for (const id of SIMS) t.regex(sims.get(id)!.runningXml(), /<location>fleet e2e<\/location>/, id);
  const frrActual = await request(
    'GET',
    `${TOPO}/node=FRR1/configuration/rosetta-openconfig-interfaces:interfaces/interface=uf0/config/description?content=nonconfig`,
  );
  t.is(frrActual.json?.['rosetta-openconfig-interfaces:description'], 'fleet e2e', frrActual.text);
});

it('do-rollback false with netconfd refusing: FRR and the simulators keep their change, the answer names each node', async (t) => {
  const nodes = ['FRR1', 'NC1', ...SIMS];
  const cookie = await transaction();
  await changeAll('kept by fleet', nodes, cookie);
  const ncBefore = await ncRunning();
  for (const target of ['candidate', 'running']) t.regex(await raw!.rpc(`<lock><target><${target}/></target></lock>`), /<ok\/>/);
  let r: Answer;
  try {
    r = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: { 'do-rollback': false } }, cookie);
  } finally {
    for (const target of ['candidate', 'running']) await raw!.rpc(`<unlock><target><${target}/></target></unlock>`);
  }
  t.is(r.status, 500, r.text);
  t.deepEqual(
    r.json.errors.error.map((e: any) => e['error-info']),
    nodes.map((id) => ({
      'node-id': id,
      'configuration-status': id === 'NC1' ? 'fail' : 'complete',
      'rollback-status': id === 'NC1' ? 'complete' : 'n/a',
    })),
  );
  t.regex(frr!.runningConfig(), /interface uf0\n description kept by fleet/);
  for (const id of SIMS) t.regex(sims.get(id)!.runningXml(), /<location>kept by fleet<\/location>/, id);
  t.is((await ncRunning()).replace(/message-id="\d+"/, ''), ncBefore.replace(/message-id="\d+"/, ''), 'netconfd holds nothing of it');
  const intended = await request(
    'GET',
    `${TOPO}/node=FRR1/configuration/rosetta-openconfig-interfaces:interfaces/interface=uf0/config/description`,
  );
  t.is(intended.json?.['rosetta-openconfig-interfaces:description'], 'kept by fleet', 'the committed node is stored as committed');
  const ncIntended = await request('GET', `${TOPO}/node=NC1/configuration/ietf-system:system/location`);
  t.is(ncIntended.json?.['ietf-system:location'], 'fleet e2e', 'the failed node keeps what it had');
  t.false(
    logs.some((l) => l.startsWith('ERROR') && /rollback failed/.test(l)),
    logs.join('\n'),
  );
});

/**
 * End to end against the real FRR peer (test/peers/frr-device.sh): a Rosetta service with the CLI
 * southbound (plugins/cli) and the FRR translation units (plugins/frr) installs the peer as a node,
 * reads its whole mount point and subtrees in both contents, and PUT/PATCH/DELETEs an interface
 * description, each checked on the device itself with `vtysh -c 'show running-config'`; stops and starts
 * the peer, following the node-status events; then uninstalls. The node's OpenAPI document validates and
 * requests built from it succeed.
 *
 * One FRR per machine: the tests are serial and the peer is leased through the SDK's acquireFrrPeer
 * (other files using it wait; this one starts from its baseline). Without FRR the tests are skipped loudly.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import test from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import type { StreamEvent } from '@rosetta/core/dist/src/events';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import { builtWrite, resolve } from '@rosetta/core/dist/test/openapi/document-walk';
import { acquireFrrPeer, frrPeerLogin, frrPeerUnavailable, type FrrPeerLease } from '@rosetta/sdk/testing';
import { type Answer, restconfRequest } from './e2e-support';

const REPO = path.resolve(__dirname, '../..'); // from test/dist
const { port: PORT, username: USER, password: PASS } = frrPeerLogin();
const IFACE = 'rtest0';
const NODES = '/rests/data/network-topology:network-topology';
const MOUNT = `${NODES}/topology=cli/node=FRR1/yang-ext:mount`;
const IFACES = `${MOUNT}/rosetta-openconfig-interfaces:interfaces`;

const unavailable = frrPeerUnavailable();
if (unavailable) console.warn(`\n*** e2e-frr-mount: SKIPPING the real-device tests: ${unavailable} ***\n`);
const serial = unavailable === undefined ? test.serial : test.serial.skip;

let service: RunningService | undefined;
let peer: FrrPeerLease | undefined;

function runningConfig(): string {
  return peer!.runningConfig();
}

/** Polls `check` every 100 ms until it answers something truthy, for at most `ms`; its last answer. */
async function within<T>(ms: number, check: () => T): Promise<T> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return check();
}

function request(method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> {
  return restconfRequest(service!.url, method, p, body, cookie);
}

test.before(async () => {
  if (unavailable) return;
  peer = await acquireFrrPeer({ who: 'test/e2e-frr-mount' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-'));
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(
    plugins,
    JSON.stringify({ watch: false, plugins: ['plugins/cli', 'plugins/frr'].map((p) => ({ path: path.join(REPO, p), enabled: true })) }),
  );
  const config = resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins }, dir);
  service = await startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: { info: () => undefined, error: (m) => console.error(m) },
  });
});

test.after.always(async () => {
  await service?.stop();
  await peer?.release();
});

serial('install the real FRR as a CLI node', async (t) => {
  const r = await request('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'FRR1',
      cli: {
        'cli-topology:host': '127.0.0.1',
        'cli-topology:port': String(PORT),
        'cli-topology:transport-type': 'ssh',
        'cli-topology:device-type': 'frr',
        'cli-topology:device-version': '8.4.4',
        'cli-topology:username': USER,
        'cli-topology:password': PASS,
      },
    },
  });
  t.is(r.status, 204, r.text);
  const node = await request('GET', `${NODES}/topology=cli/node=FRR1?content=nonconfig`);
  t.is(node.json['network-topology:node'][0]['cli-topology:connection-status'], 'connected', node.text);
});

serial('GET the whole mount point and a subtree, config and nonconfig', async (t) => {
  const config = await request('GET', `${MOUNT}?content=config`);
  t.true(config.status === 200 || config.status === 404, config.text);
  const state = await request('GET', `${MOUNT}?content=nonconfig`);
  t.is(state.status, 200, state.text);
  const lo = state.json['ietf-restconf:data']['rosetta-openconfig-interfaces:interfaces'].interface.find((i: any) => i.name === 'lo');
  t.truthy(lo?.state, state.text.slice(0, 500));
  const loState = await request('GET', `${IFACES}/interface=lo/state?content=nonconfig`);
  t.is(loState.status, 200, loState.text);
  t.truthy(loState.json['rosetta-openconfig-interfaces:state']['oper-status']);
});

serial('PUT, PATCH and DELETE an interface description, checked with vtysh', async (t) => {
  const put = await request('PUT', `${IFACES}/interface=${IFACE}`, {
    'rosetta-openconfig-interfaces:interface': [{ name: IFACE, config: { name: IFACE, description: 'set by rosetta', enabled: false } }],
  });
  t.is(put.status, 201, put.text);
  t.regex(runningConfig(), new RegExp(`interface ${IFACE}\\n description set by rosetta`));
  const read = await request('GET', `${IFACES}/interface=${IFACE}/config?content=config`);
  t.is(read.json['rosetta-openconfig-interfaces:config'].description, 'set by rosetta');

  const patch = await request('PATCH', `${IFACES}/interface=${IFACE}/config`, {
    'rosetta-openconfig-interfaces:config': { description: 'patched by rosetta' },
  });
  t.is(patch.status, 200, patch.text);
  t.regex(runningConfig(), new RegExp(`interface ${IFACE}\\n description patched by rosetta`));

  const del = await request('DELETE', `${IFACES}/interface=${IFACE}/config/description`);
  t.is(del.status, 204, del.text);
  t.notRegex(runningConfig(), /description patched by rosetta/);
  // `shutdown` keeps the interface in FRR's running-config once its description is gone
  t.regex(runningConfig(), new RegExp(`interface ${IFACE}\\n shutdown`));
  const delIface = await request('DELETE', `${IFACES}/interface=${IFACE}`);
  t.is(delIface.status, 204, delIface.text);
  t.notRegex(runningConfig(), new RegExp(`interface ${IFACE}\\b`));
});

serial("the node's OpenAPI document validates; a GET and a PUT built from it succeed on FRR", async (t) => {
  const res = await request('GET', '/rests/openapi.json?node=cli/FRR1');
  t.is(res.status, 200, res.text.slice(0, 500));
  const doc = res.json;
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  const state = `${IFACES}/interface={name}/state`;
  const entry = `${IFACES}/interface={name}`;
  t.true(Object.hasOwn(doc.paths, state), 'the interface state has its path');
  t.deepEqual(Object.keys(doc.paths[state]), ['parameters', 'get'], 'state is read only');

  const lo = await request('GET', `${state.replace('{name}', 'lo')}?content=nonconfig`);
  t.is(lo.status, 200, lo.text);
  t.truthy(lo.json['rosetta-openconfig-interfaces:state']['oper-status']);

  const put = builtWrite(doc, entry, 'put', { name: IFACE });
  const member = put.body['rosetta-openconfig-interfaces:interface'][0];
  const interfaceSchema = resolve(
    doc,
    resolve(doc, doc.paths[entry].put.requestBody.content['application/yang-data+json'].schema).properties[
      'rosetta-openconfig-interfaces:interface'
    ].items,
  );
  t.truthy(resolve(doc, interfaceSchema.properties.config).properties.description, 'the document lists config/description');
  member.config = { name: IFACE, description: 'from the document' };
  const written = await request('PUT', put.path, put.body);
  t.is(written.status, 201, written.text);
  t.regex(runningConfig(), new RegExp(`interface ${IFACE}\\n description from the document`));
  t.is((await request('DELETE', put.path)).status, 204);
  t.notRegex(runningConfig(), new RegExp(`interface ${IFACE}\\b`));
});

serial('the peer stopped and started: node-status says FRR1 is not connected, with why, then connected again', async (t) => {
  const events: StreamEvent[] = [];
  const subscription = service!.events.subscribe('node-status', {}, { deliver: (e) => events.push(e) > 0, end: () => undefined });
  t.teardown(() => subscription.close());
  const statuses = () =>
    events.map((e) => e.content['rosetta-events:node-status'] as { 'node-id': string; status: string; message?: string });
  await peer!.stop();
  const down = await within(20_000, () => statuses().find((s) => s.status !== 'connected'));
  t.truthy(down, 'a status other than connected after the stop');
  t.is(down!['node-id'], 'FRR1');
  t.truthy(down!.message, 'the status says why');
  await peer!.start();
  t.true(await within(60_000, () => statuses().at(-1)?.status === 'connected'), JSON.stringify(statuses()));
  const seen = statuses().map((s) => s.status);
  t.true(
    seen.every((s, i) => i === 0 || s !== seen[i - 1]),
    `each change once: ${seen.join(' ')}`,
  );
  t.is((await request('GET', `${MOUNT}?content=nonconfig`)).status, 200);
});

serial('uninstall the node', async (t) => {
  const r = await request('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'FRR1', 'connection-type': 'cli' },
  });
  t.is(r.status, 204, r.text);
  t.is((await request('GET', MOUNT)).status, 404);
});

/**
 * End to end against the real yuma123 netconfd (test/peers/netconf-device.sh on its own port and state
 * folder): a Rosetta service with the NETCONF southbound (plugins/netconf, `logRpcs` on so the test sees
 * what crossed the wire) installs the peer, downloads and compiles its 26 modules, reads ietf-interfaces
 * and ietf-system in every content, turns `fields` into a subtree filter, writes with PUT/PATCH/DELETE
 * (each checked with a raw NETCONF session of the test's own), surfaces the device's rpc-error, receives
 * a netconf-config-change notification, reconnects after the device restarts, survives a service restart,
 * and uninstalls. The SDK simulator is a second node for a YANG 1.1 action (netconfd has none) and, in its
 * misbehaving modes, the bad devices. The node's OpenAPI document validates and requests built from it
 * succeed. Passwords are checked absent from responses, logs and the data folder.
 *
 * Skips loudly when netconfd is not installed or the test does not run as root.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import SwaggerParser from '@apidevtools/swagger-parser';
import anyTest, { type TestFn } from 'ava';
import { openRawNetconf, startNetconfSimulator, type RawNetconfSession, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import type { StreamEvent } from '@rosetta/core/dist/src/events';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import { builtWrite } from '@rosetta/core/dist/test/openapi/document-walk';
import { type Answer, netconfPeer, netconfdUnavailable, restconfRequest } from './e2e-support';

const REPO = path.resolve(__dirname, '../..'); // from test/dist
const PEER = { host: '127.0.0.1', port: 10852, username: 'ncuser', password: 'ncpass', state: '/tmp/rosetta-e2e-netconf' };
const NODES = '/rests/data/network-topology:network-topology';
const TOPO = `${NODES}/topology=topology-netconf`;
const MOUNT = `${TOPO}/node=NC1/yang-ext:mount`;
const SIM_PASSWORD = 'S1m-secret-pw';

const skip = netconfdUnavailable();
if (skip) console.warn(`\n*** e2e-netconf: SKIPPING the real-device tests: ${skip} ***\n`);
const test = anyTest.serial as TestFn;
const it = skip ? test.skip : test;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-netconf-'));
const dataDir = path.join(dir, 'data');
const pluginsJson = path.join(dir, 'plugins.json');
const logs: string[] = [];
let service: RunningService | undefined;
let sim: SimulatedNetconfDevice | undefined;
let raw: RawNetconfSession | undefined;

async function start(): Promise<void> {
  const config = resolveConfig({ port: 0, dataDir, plugins: pluginsJson }, dir);
  service = await startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: { info: (m) => logs.push(m), error: (m) => logs.push(`ERROR ${m}`) },
  });
}

function request(method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> {
  return restconfRequest(service!.url, method, p, body, cookie);
}

/** Every response body the test saw, to check no password ever appears. */
const responses: string[] = [];
async function call(method: string, p: string, body?: unknown) {
  const r = await request(method, p, body);
  responses.push(r.text);
  return r;
}

/** The RPCs the plugin logged since `mark` (index into logs), for the node. */
function rpcsSince(mark: number, node = 'NC1'): string[] {
  return logs.slice(mark).filter((l) => l.includes(`${node}: rpc `));
}

/** running as the device has it, read by the test's own session. */
async function running(filter = ''): Promise<string> {
  return raw!.rpc(`<get-config><source><running/></source>${filter}</get-config>`);
}

const netconfInput = (nodeId: string, extra: Record<string, unknown> = {}) => ({
  input: {
    'node-id': nodeId,
    netconf: {
      'netconf-node-topology:host': PEER.host,
      'netconf-node-topology:port': PEER.port,
      'netconf-node-topology:username': PEER.username,
      'netconf-node-topology:password': PEER.password,
      'netconf-node-topology:between-attempts-timeout': 200,
      'netconf-node-topology:keepalive-delay': 2,
      ...extra,
    },
  },
});

async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 150));
  }
  return false;
}

const ACTION_MODEL = `module acme-ports {
  yang-version 1.1;
  namespace "urn:acme:ports";
  prefix ap;
  container ports {
    list port {
      key name;
      leaf name { type string; }
      leaf speed { type uint32; }
      action bounce {
        input { leaf hold { type uint8; } }
        output { leaf bounced { type string; } }
      }
    }
  }
}`;

test.before(async () => {
  if (skip) return;
  // always a fresh netconfd: it crashes (double free) when one process serves get-schema of ietf-netconf twice
  await netconfPeer(PEER, 'restart');
  raw = await openRawNetconf(PEER);
  await raw.rpc(`<create-subscription xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"/>`);
  sim = await startNetconfSimulator({
    yang: ACTION_MODEL,
    username: 'sim',
    password: SIM_PASSWORD,
    config: '<ports xmlns="urn:acme:ports"><port><name>p1</name><speed>1000</speed></port></ports>',
    operations: {
      '/ports/port/bounce': (c) =>
        `<bounced xmlns="urn:acme:ports">${c.keys[0]?.name ?? '?'} after ${c.input.children.find((x) => x.name === 'hold')?.text ?? 0}s</bounced>`,
    },
  });
  fs.writeFileSync(
    pluginsJson,
    JSON.stringify({ watch: false, plugins: [{ path: path.join(REPO, 'plugins/netconf'), enabled: true, config: { logRpcs: true } }] }),
  );
  await start();
});

test.after.always(async () => {
  await service?.stop();
  await sim?.close();
  await raw?.close();
  if (!skip) await netconfPeer(PEER, 'stop').catch(() => undefined);
});

it('install-node: 26 modules downloaded into the data folder cache and compiled; status and capabilities', async (t) => {
  const r = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('NC1', { 'netconf-node-topology:notification-stream': 'NETCONF' }),
  );
  t.is(r.status, 204, r.text);
  const node = await call('GET', `${TOPO}/node=NC1?content=nonconfig`);
  t.is(node.status, 200, node.text);
  const entry = node.json['network-topology:node'][0];
  t.is(entry['netconf-node-topology:connection-status'], 'connected');
  t.regex(entry['netconf-node-topology:connected-message'], /base:1\.1/);
  const caps: string[] = entry['netconf-node-topology:available-capabilities']['available-capability'].map((c: any) => c.capability);
  t.is(caps.filter((c) => c.includes('?module=')).length, 26, caps.join('\n'));
  t.true(caps.includes('urn:ietf:params:netconf:capability:candidate:1.0'));
  t.is(entry['netconf-node-topology:unavailable-capabilities'], undefined, 'every module compiled');
  // the cache defaults to the service's data folder (PluginApi.dataDir)
  const cacheRoot = path.join(dataDir, 'netconf-schema-cache');
  const sets = fs.readdirSync(cacheRoot);
  t.is(sets.length, 1, 'one module set');
  t.is(fs.readdirSync(path.join(cacheRoot, sets[0]!)).filter((f) => f.endsWith('.yang')).length, 26);
  t.true(
    logs.some((l) => /NC1: connected, 26 modules \(downloaded\)/.test(l)),
    logs.join('\n'),
  );
});

it('GET ietf-interfaces and ietf-system state: content=nonconfig sends <get> with a subtree filter', async (t) => {
  const mark = logs.length;
  const lo = await call('GET', `${MOUNT}/ietf-interfaces:interfaces-state/interface=lo?content=nonconfig`);
  t.is(lo.status, 200, lo.text);
  const entry = lo.json['ietf-interfaces:interface'][0];
  t.is(entry.name, 'lo');
  t.truthy(entry.statistics, lo.text.slice(0, 300));
  const clock = await call('GET', `${MOUNT}/ietf-system:system-state/clock?content=nonconfig`);
  t.is(clock.status, 200, clock.text);
  t.regex(clock.json['ietf-system:clock']['current-datetime'], /^\d{4}-\d\d-\d\dT/);
  const sent = rpcsSince(mark);
  t.is(sent.length, 2, sent.join('\n'));
  t.regex(
    sent[0]!,
    /<get><filter type="subtree"><interfaces-state xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>lo<\/name><\/interface><\/interfaces-state><\/filter><\/get>/,
  );
  t.regex(
    sent[1]!,
    /<get><filter type="subtree"><system-state xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><clock\/><\/system-state><\/filter><\/get>/,
  );
});

it('fields becomes the subtree filter: only what was asked crosses the wire', async (t) => {
  const mark = logs.length;
  const r = await call('GET', `${MOUNT}/ietf-interfaces:interfaces-state/interface=lo?content=nonconfig&fields=oper-status;ietf-ip:ipv4`);
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json, {
    'ietf-interfaces:interface': [{ name: 'lo', 'oper-status': 'unknown', 'ietf-ip:ipv4': { address: [{ ip: '127.0.0.1' }] } }],
  });
  const sent = rpcsSince(mark);
  t.is(sent.length, 1);
  t.regex(sent[0]!, /<interface><name>lo<\/name><oper-status\/><ipv4 xmlns="urn:ietf:params:xml:ns:yang:ietf-ip"\/><\/interface>/);
  t.notRegex(sent[0]!, /statistics/);
});

it('PUT, PATCH and DELETE on candidate + commit, each checked with a separate get-config of running', async (t) => {
  const iface = `${MOUNT}/ietf-interfaces:interfaces/interface=rtest0`;
  const mark = logs.length;
  const put = await call('PUT', iface, {
    'ietf-interfaces:interface': [
      {
        name: 'rtest0',
        type: 'iana-if-type:ethernetCsmacd',
        description: 'by rosetta',
        'ietf-ip:ipv4': { address: [{ ip: '192.0.2.1', 'prefix-length': 24 }] },
      },
    ],
  });
  t.is(put.status, 201, put.text);
  const sent = rpcsSince(mark).join('\n');
  t.regex(
    sent,
    /<lock><target><candidate\/><\/target><\/lock>\n[^\n]*rpc \d+ <get-config><source><candidate\/><\/source>[^\n]*\n[^\n]*rpc \d+ <edit-config>/,
    'the target is probed on candidate under the lock, before the edit (201 or 204)',
  );
  t.regex(
    sent,
    /<lock><target><candidate\/><\/target><\/lock>[\s\S]*<edit-config><target><candidate\/><\/target>[\s\S]*nc:operation="replace"[\s\S]*<commit\/>[\s\S]*<unlock>/,
  );
  let cfg = await running();
  t.regex(cfg, /<name>rtest0<\/name>/);
  t.regex(cfg, /<description>by rosetta<\/description>/);
  t.regex(cfg, /<ip>192\.0\.2\.1<\/ip>/);

  const read = await call('GET', `${iface}?content=config`);
  t.is(read.status, 200, read.text);
  t.is(read.json['ietf-interfaces:interface'][0].type, 'iana-if-type:ethernetCsmacd');
  t.is(read.json['ietf-interfaces:interface'][0].description, 'by rosetta');

  const patch = await call('PATCH', iface, { 'ietf-interfaces:interface': [{ name: 'rtest0', description: 'patched' }] });
  t.is(patch.status, 200, patch.text);
  cfg = await running();
  t.regex(cfg, /<description>patched<\/description>/);
  t.regex(cfg, /<ip>192\.0\.2\.1<\/ip>/, 'PATCH merges: the address stays');

  // the device itself decides existence: a PUT of what exists is 204 (its probe read travels with the
  // edit), a POST of it is 409 data-exists and changes nothing
  const again = await call('PUT', `${iface}/description`, { 'ietf-interfaces:description': 'patched' });
  t.is(again.status, 204, again.text);
  const dup = await call('POST', `${MOUNT}/ietf-interfaces:interfaces`, {
    'ietf-interfaces:interface': [{ name: 'rtest0', type: 'iana-if-type:ethernetCsmacd' }],
  });
  t.is(dup.status, 409, dup.text);
  t.is(dup.json.errors.error[0]['error-tag'], 'data-exists');
  t.regex(await running(), /<description>patched<\/description>/);

  const sys = await call('PATCH', `${MOUNT}/ietf-system:system`, {
    'ietf-system:system': { contact: 'noc@example.net', location: 'lab 3' },
  });
  t.is(sys.status, 200, sys.text);
  t.regex(await running(), /<contact>noc@example\.net<\/contact>/);

  const delDescr = await call('DELETE', `${iface}/description`);
  t.is(delDescr.status, 204, delDescr.text);
  cfg = await running();
  t.notRegex(cfg, /patched/);
  t.regex(cfg, /<name>rtest0<\/name>/);
  const del = await call('DELETE', iface);
  t.is(del.status, 204, del.text);
  t.notRegex(await running(), /rtest0/);
  t.is((await call('DELETE', iface)).status, 404, 'deleting what is gone is data-missing');
  t.is((await call('DELETE', `${MOUNT}/ietf-system:system/contact`)).status, 204);
  t.notRegex(await running(), /noc@example/);
});

it('leaf-list entries ([.=value] paths) in reads and deletes', async (t) => {
  const dns = `${MOUNT}/ietf-system:system/dns-resolver`;
  const put = await call('PUT', dns, { 'ietf-system:dns-resolver': { search: ['a.example', 'b.example'] } });
  t.true(put.status === 201 || put.status === 204, put.text);
  t.regex(await running(), /<search>a\.example<\/search>\s*<search>b\.example<\/search>/);
  const mark = logs.length;
  const one = await call('GET', `${dns}/search=b.example?content=config`);
  t.is(one.status, 200, one.text);
  t.deepEqual(one.json, { 'ietf-system:search': ['b.example'] });
  t.regex(rpcsSince(mark).join('\n'), /<dns-resolver><search>b\.example<\/search><\/dns-resolver>/, 'the entry is a content-match node');
  const del = await call('DELETE', `${dns}/search=a.example`);
  t.is(del.status, 204, del.text);
  const cfg = await running();
  t.notRegex(cfg, /a\.example/);
  t.regex(cfg, /<search>b\.example<\/search>/);
  t.is((await call('DELETE', dns)).status, 204);
  t.notRegex(await running(), /b\.example/);
});

it("the device's rpc-error becomes a RESTCONF error with its tag, path and message; nothing is left in candidate", async (t) => {
  // Rosetta's own checks pass (type is not mandatory to the data layer's edit), netconfd refuses it
  const r = await call('PUT', `${MOUNT}/ietf-interfaces:interfaces/interface=rbad0`, {
    'ietf-interfaces:interface': [{ name: 'rbad0', description: 'no type' }],
  });
  t.true(r.status >= 400, r.text);
  const error = r.json.errors.error[0];
  t.is(error['error-tag'], 'data-missing', r.text);
  t.regex(error['error-path'], /if:type/);
  t.truthy(error['error-message']);
  t.notRegex(await running(), /rbad0/);
  const candidate = await raw!.rpc('<get-config><source><candidate/></source></get-config>');
  t.notRegex(candidate, /rbad0/, 'discard-changes after the failed edit');
});

it('content=all merges get-config (candidate) with the state from get', async (t) => {
  const put = await call('PUT', `${MOUNT}/ietf-system:system/location`, { 'ietf-system:location': 'rack 9' });
  t.true(put.status === 201 || put.status === 204, put.text);
  const mark = logs.length;
  const all = await call('GET', `${MOUNT}/ietf-system:system?content=all`);
  t.is(all.status, 200, all.text);
  t.is(all.json['ietf-system:system'].location, 'rack 9');
  const sent = rpcsSince(mark).join('\n');
  t.regex(sent, /<get-config><source><candidate\/><\/source>/);
  t.regex(sent, /<get>/);
  const state = await call('GET', `${MOUNT}/ietf-system:system-state?content=all`);
  t.is(state.status, 200, state.text);
  t.truthy(state.json['ietf-system:system-state'].clock);
  const whole = await call('GET', `${MOUNT}?content=all`);
  t.is(whole.status, 200, whole.text);
  t.is(whole.json['ietf-restconf:data']['ietf-system:system'].location, 'rack 9');
  t.truthy(whole.json['ietf-restconf:data']['ietf-interfaces:interfaces-state']);
  await call('DELETE', `${MOUNT}/ietf-system:system/location`);
});

it("the node's OpenAPI document validates; a GET and a PUT built from it succeed on netconfd", async (t) => {
  const res = await call('GET', '/rests/openapi.json?node=topology-netconf/NC1');
  t.is(res.status, 200, res.text.slice(0, 500));
  const doc = res.json;
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  const paths = Object.keys(doc.paths);
  const state = `${MOUNT}/ietf-interfaces:interfaces-state/interface={name}`;
  const entry = `${MOUNT}/ietf-interfaces:interfaces/interface={name}`;
  t.true(paths.includes(state), 'the device state has its path');
  t.true(
    paths.includes(`${NODES}/topology=uniconfig/node=NC1/uniconfig-topology:configuration/ietf-system:system`),
    'and the uniconfig copy',
  );

  const lo = await call('GET', `${state.replace('{name}', 'lo')}?content=nonconfig`);
  t.is(lo.status, 200, lo.text);
  t.is(lo.json['ietf-interfaces:interface'][0].name, 'lo');

  const put = builtWrite(doc, entry, 'put', { name: 'rdoc0' });
  const written = await call('PUT', put.path, put.body);
  t.is(written.status, 201, written.text);
  t.regex(await running(), /<name>rdoc0<\/name>/);
  t.is((await call('DELETE', put.path)).status, 204);
  t.notRegex(await running(), /rdoc0/);
});

it('a commit by another session arrives as a netconf-config-change notification, logged for the node and published on NETCONF and NETCONF-NC1', async (t) => {
  const received: StreamEvent[] = [];
  const sink = { deliver: (e: StreamEvent) => received.push(e) > 0, end: () => undefined };
  const subscriptions = [service!.events.subscribe('NETCONF', {}, sink), service!.events.subscribe('NETCONF-NC1', {}, sink)];
  t.teardown(() => {
    for (const s of subscriptions) s.close();
  });
  await raw!.rpc(
    '<edit-config><target><candidate/></target><config><system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><contact>other session</contact></system></config></edit-config>',
  );
  await raw!.rpc('<commit/>');
  t.true(
    await eventually(async () => logs.some((l) => /NC1: notification netconf-config-change at \d{4}-/.test(l)), 10_000),
    logs.slice(-10).join('\n'),
  );
  // an earlier test's own edits may still be arriving as notifications: this commit's are the ones on ietf-system
  const ours = (stream: string) => received.find((e) => e.stream === stream && JSON.stringify(e.content).includes('ietf-system:system'));
  t.true(
    await eventually(async () => ours('NETCONF-NC1') !== undefined && ours('NETCONF') !== undefined, 10_000),
    JSON.stringify(received),
  );
  const own = ours('NETCONF-NC1')!;
  const change = own.content['ietf-netconf-notifications:netconf-config-change'] as Record<string, unknown>;
  t.truthy(change, JSON.stringify(own.content));
  t.truthy(change['changed-by'], JSON.stringify(change));
  t.regex(JSON.stringify(change.edit), /ietf-system:system/);
  t.regex(own.xml ?? '', /^<netconf-config-change xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-notifications"/);
  const wrapped = ours('NETCONF')!;
  t.deepEqual(wrapped.content, {
    'rosetta-events:device-notification': { 'topology-id': 'topology-netconf', 'node-id': 'NC1', notification: own.content },
  });
  t.is(wrapped.eventTime, own.eventTime, "the device's eventTime");
  await raw!.rpc(
    '<edit-config><target><candidate/></target><config><system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><contact xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="remove"/></system></config></edit-config>',
  );
  await raw!.rpc('<commit/>');
});

it('an action against the SDK simulator installed as a second node', async (t) => {
  const r = await call('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'SIM1',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': sim!.port,
        'netconf-node-topology:username': 'sim',
        'netconf-node-topology:password': SIM_PASSWORD,
      },
    },
  });
  t.is(r.status, 204, r.text);
  const action = await call('POST', `${TOPO}/node=SIM1/yang-ext:mount/acme-ports:ports/port=p1/bounce`, {
    'acme-ports:input': { hold: 3 },
  });
  t.is(action.status, 200, action.text);
  t.deepEqual(action.json, { 'acme-ports:output': { bounced: 'p1 after 3s' } });
  const unknown = await call('POST', `${TOPO}/node=SIM1/yang-ext:mount/acme-ports:ports/port=p1/explode`, { 'acme-ports:input': {} });
  t.is(unknown.status, 404, unknown.text);
});

it("host keys: the node shows the key netconfd's sshd presented (as ssh-keygen -lf prints it); another pinned key is refused before login; trust-on-first-use stores the key presented", async (t) => {
  const fingerprints = fs
    .readdirSync(PEER.state)
    .filter((f) => /^ssh_host_\w+_key\.pub$/.test(f))
    .map((f) => execFileSync('ssh-keygen', ['-lf', path.join(PEER.state, f)], { encoding: 'utf8' }).split(' ')[1]!);
  const node = await call('GET', `${TOPO}/node=NC1?content=nonconfig`);
  const shown = node.json['network-topology:node'][0]['netconf-node-topology:host-key-fingerprint'];
  t.true(fingerprints.includes(shown), `${shown} among ${fingerprints.join(', ')}`);
  const other = `SHA256:${'B'.repeat(43)}`;
  const refused = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('IMPOSTOR', { 'netconf-node-topology:host-key': other }),
  );
  t.is(refused.status, 502, refused.text);
  t.true(refused.json.errors.error[0]['error-message'].includes(`presented host key ${shown}, not the pinned ${other}`), refused.text);
  t.is((await call('GET', `${TOPO}/node=IMPOSTOR`)).status, 404);
  const malformed = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('BADKEY', { 'netconf-node-topology:host-key': 'SHA256:short' }),
  );
  t.is(malformed.status, 400, malformed.text);

  // trust-on-first-use: the key presented at install becomes the node's stored host-key
  const tofu = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('TOFU', { 'netconf-node-topology:host-key-verification': 'trust-on-first-use' }),
  );
  t.is(tofu.status, 204, tofu.text);
  const stored = await call('GET', `${TOPO}/node=TOFU?content=config`);
  t.is(stored.json['network-topology:node'][0]['netconf-node-topology:host-key'], shown, stored.text);
  const un = await call('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'TOFU', 'connection-type': 'netconf' },
  });
  t.is(un.status, 204, un.text);
  const plainTcp = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('TOFU-TCP', {
      'netconf-node-topology:tcp-only': true,
      'netconf-node-topology:host-key-verification': 'trust-on-first-use',
    }),
  );
  t.is(plainTcp.status, 400, plainTcp.text);
  t.regex(plainTcp.text, /host-key-verification: a plain TCP session/);
});

it('bad devices: wrong credentials, no hello, malformed XML, a broken chunk each give a clear 502; the service keeps serving', async (t) => {
  const wrong = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('BAD-AUTH', { 'netconf-node-topology:password': 'not-the-password' }),
  );
  t.is(wrong.status, 502, wrong.text);
  t.regex(wrong.json.errors.error[0]['error-message'], /authentication/i);
  const modes = [
    ['no-hello', /hello/i],
    ['malformed-xml', /malformed|not well-formed|xml/i],
    ['broken-chunk', /chunk|fram/i],
  ] as const;
  for (const [misbehave, reason] of modes) {
    const bad = await startNetconfSimulator({ yang: ACTION_MODEL, misbehave });
    try {
      const r = await call('POST', '/rests/operations/connection-manager:install-node', {
        input: {
          'node-id': `BAD-${misbehave}`,
          netconf: {
            'netconf-node-topology:host': '127.0.0.1',
            'netconf-node-topology:port': bad.port,
            'netconf-node-topology:username': 'x',
            'netconf-node-topology:password': 'y',
            'netconf-node-topology:initial-connection-timeout': 1500,
            'netconf-node-topology:request-transaction-timeout': 1500,
          },
        },
      });
      t.is(r.status, 502, `${misbehave}: ${r.text}`);
      t.regex(r.json.errors.error[0]['error-message'], reason, misbehave);
      t.is((await call('GET', `${TOPO}/node=BAD-${misbehave}`)).status, 404, 'nothing left half-installed');
    } finally {
      await bad.close();
    }
  }
  const still = await call('GET', `${MOUNT}/ietf-system:system-state/clock?content=nonconfig`);
  t.is(still.status, 200, still.text);
});

it('a module that does not compile is an unavailable capability with the reason; the rest of the device works', async (t) => {
  // the same module set from a cache where one module's text is broken: the schema is compiled without it
  const cacheRoot = path.join(dataDir, 'netconf-schema-cache');
  const set = fs.readdirSync(cacheRoot).find((d) => fs.readdirSync(path.join(cacheRoot, d)).some((f) => f.startsWith('yuma123-system')))!;
  const broken = path.join(dir, 'broken-cache');
  fs.cpSync(path.join(cacheRoot, set), path.join(broken, set), { recursive: true });
  const victim = fs.readdirSync(path.join(broken, set)).find((f) => f.startsWith('yuma123-system'))!;
  fs.writeFileSync(
    path.join(broken, set, victim),
    'module yuma123-system { namespace "urn:x"; prefix ys; leaf broken { type no-such-type; } }\n',
  );
  const r = await call(
    'POST',
    '/rests/operations/connection-manager:install-node',
    netconfInput('NC2', { 'netconf-node-topology:schema-cache-directory': broken }),
  );
  t.is(r.status, 204, r.text);
  const node = await call('GET', `${TOPO}/node=NC2?content=nonconfig`);
  const unavailable = node.json['network-topology:node'][0]['netconf-node-topology:unavailable-capabilities']['unavailable-capability'];
  t.is(unavailable.length, 1, node.text);
  t.regex(unavailable[0].capability, /^yuma123-system/);
  t.regex(unavailable[0]['failure-reason'], /does not compile: .*no-such-type/);
  const clock = await call('GET', `${TOPO}/node=NC2/yang-ext:mount/ietf-system:system-state/clock?content=nonconfig`);
  t.is(clock.status, 200, clock.text);
  t.is(
    (
      await call('POST', '/rests/operations/connection-manager:uninstall-node', {
        input: { 'node-id': 'NC2', 'connection-type': 'netconf' },
      })
    ).status,
    204,
  );
});

it('the device restarts: the node reconnects and reads work again', async (t) => {
  await netconfPeer(PEER, 'restart');
  // the raw session died with the device: open another one for the later checks
  raw = await openRawNetconf(PEER);
  const back = await eventually(async () => {
    const r = await request('GET', `${MOUNT}/ietf-system:system-state/clock?content=nonconfig`);
    return r.status === 200;
  });
  t.true(back, logs.slice(-10).join('\n'));
  t.true(logs.some((l) => /NC1: session lost/.test(l)));
  t.true(logs.some((l) => /NC1: reconnected/.test(l)));
  const node = await call('GET', `${TOPO}/node=NC1?content=nonconfig`);
  t.is(node.json['network-topology:node'][0]['netconf-node-topology:connection-status'], 'connected');
});

it('installed nodes survive a service restart', async (t) => {
  await service!.stop();
  await start();
  t.true(
    await eventually(async () => (await request('GET', `${MOUNT}/ietf-system:system-state/clock?content=nonconfig`)).status === 200),
    logs.slice(-10).join('\n'),
  );
  t.true(
    logs.some((l) => /NC1: connected, 26 modules \(from the cache\)/.test(l)),
    'the restored node reads its schemas from the cache',
  );
  const sim1 = await call('GET', `${TOPO}/node=SIM1/yang-ext:mount/acme-ports:ports?content=config`);
  t.true(sim1.status === 200 || sim1.status === 502, sim1.text);
});

it('uninstall-node closes the sessions and removes the nodes', async (t) => {
  for (const node of ['NC1', 'SIM1']) {
    const r = await call('POST', '/rests/operations/connection-manager:uninstall-node', {
      input: { 'node-id': node, 'connection-type': 'netconf' },
    });
    t.is(r.status, 204, r.text);
  }
  t.is((await call('GET', `${TOPO}/node=NC1`)).status, 404);
  t.is((await call('GET', `${MOUNT}/ietf-system:system-state?content=nonconfig`)).status, 404);
});

it('passwords never appear in clear text: responses, logs, persisted files', async (t) => {
  const secrets = [PEER.password, SIM_PASSWORD, 'not-the-password'];
  for (const secret of secrets) {
    t.false(
      responses.some((r) => r.includes(secret)),
      `a response holds ${secret}`,
    );
    t.false(
      logs.some((l) => l.includes(secret)),
      `a log line holds ${secret}`,
    );
  }
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(dataDir);
  t.true(files.length > 0);
  for (const f of files) {
    const text = fs.readFileSync(f).toString('latin1');
    for (const secret of secrets) t.false(text.includes(secret), `${f} holds ${secret}`);
  }
});

/**
 * The uniconfig topology end to end against the real FRR 8.4.4 peer (CLI, leased through the SDK's
 * acquireFrrPeer) and a real yuma123 netconfd (test/peers/netconf-device.sh, its own port and state
 * folder so it runs beside e2e-netconf), through the real service with the repository's plugins:
 * - install-node fills intended and actual of both nodes;
 * - a transaction edits both, calculate-diff and dryrun-commit show the change (nothing sent), commit
 *   puts it on both devices (checked on the devices themselves: vtysh, a raw NETCONF session);
 * - a change to one leaf of one interface on netconfd is sent as that one edit: every other interface
 *   and system leaf, those added by hand included, stays as it was (a separate get-config), and the
 *   dry run's RPCs are, text for text, what commit sent (the plugin's RPC trace);
 * - a commit across FRR and netconfd where netconfd refuses leaves both devices exactly as before;
 * - a hand change on FRR (vtysh on the device): checked-commit 409, sync-from-network picks it up;
 * - two transactions on one node: the second commit is refused;
 * - a restart in the middle of an open transaction loses nothing that was committed.
 * Skipped loudly when FRR or netconfd cannot run here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig, type ServiceConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import {
  acquireFrrPeer,
  frrPeerLogin,
  frrPeerUnavailable,
  openRawNetconf,
  type FrrPeerLease,
  type RawNetconfSession,
} from '@rosetta/sdk/testing';
import { type Answer, netconfPeer, netconfdUnavailable, restconfRequest, writeRepositoryPlugins } from './e2e-support';

const NC = { host: '127.0.0.1', port: 10863, username: 'ncuser', password: 'ncpass', state: '/tmp/rosetta-e2e-uniconfig-netconf' };
const FRR = frrPeerLogin();
const TOPO = '/rests/data/network-topology:network-topology/topology=uniconfig';
const OPS = '/rests/operations';
const FRR_IFACE = (name: string) => `${TOPO}/node=FRR1/configuration/rosetta-openconfig-interfaces:interfaces/interface=${name}`;
const NC_LOCATION = `${TOPO}/node=NC1/configuration/ietf-system:system/location`;

const skip = frrPeerUnavailable() ?? netconfdUnavailable();
if (skip) console.warn(`\n*** e2e-uniconfig: SKIPPING the real-device tests: ${skip} ***\n`);
const test = anyTest.serial as TestFn;
const it = skip ? test.skip : test;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-uniconfig-'));
let config: ServiceConfig;
let service: RunningService | undefined;
let frr: FrrPeerLease | undefined;
let raw: RawNetconfSession | undefined;
const logs: string[] = [];

async function start(): Promise<void> {
  service = await startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: { info: (m) => logs.push(m), error: (m) => logs.push(`ERROR ${m}`) },
  });
}

function request(method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> {
  return restconfRequest(service!.url, method, p, body, cookie);
}

async function transaction(): Promise<string> {
  const r = await request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  if (r.status !== 201) throw new Error(`create-transaction: ${r.status} ${r.text}`);
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

const putDescription = (iface: string, text: string, cookie?: string) =>
  request('PUT', `${FRR_IFACE(iface)}/config`, { 'rosetta-openconfig-interfaces:config': { name: iface, description: text } }, cookie);
const putLocation = (text: string, cookie?: string) => request('PUT', NC_LOCATION, { 'ietf-system:location': text }, cookie);
const ncRunning = () => raw!.rpc('<get-config><source><running/></source></get-config>');
const NC_IFACE = (name: string) => `${TOPO}/node=NC1/configuration/ietf-interfaces:interfaces/interface=${name}`;
const ncInterface = (name: string, description: string) => ({
  'ietf-interfaces:interface': [{ name, type: 'iana-if-type:ethernetCsmacd', description }],
});

/** The RPC bodies the NETCONF plugin sent to NC1 since `mark` (its logRpcs trace), reads left out. */
function ncSentSince(mark: number): string[] {
  return logs
    .slice(mark)
    .flatMap((l) => /NC1: rpc \S+ (.*)$/s.exec(l)?.[1] ?? [])
    .filter((b) => !/^<get/.test(b));
}

/** Sends `body` then commit on the test's own NETCONF session (a change made on the device by hand). */
async function ncByHand(body: string): Promise<void> {
  const edit = await raw!.rpc(`<edit-config><target><candidate/></target><config>${body}</config></edit-config>`);
  if (!/<ok\/>/.test(edit)) throw new Error(`edit by hand: ${edit}`);
  const commit = await raw!.rpc('<commit/>');
  if (!/<ok\/>/.test(commit)) throw new Error(`commit by hand: ${commit}`);
}

anyTest.before(async () => {
  if (skip) return;
  frr = await acquireFrrPeer({ who: 'test/e2e-uniconfig' });
  await netconfPeer(NC, 'start');
  raw = await openRawNetconf(NC);
  // the NETCONF plugin traces every RPC it sends, so a test can compare what commit sent with the dry run
  const plugins = writeRepositoryPlugins(dir, (p) => (p === 'plugins/netconf' ? { logRpcs: true } : undefined));
  config = resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins }, dir);
  await start();
});

anyTest.after.always(async () => {
  await service?.stop();
  await raw?.close();
  if (!skip) await netconfPeer(NC, 'stop').catch(() => undefined);
  await frr?.release();
});

it('install-node fills the intended and actual configuration of a CLI and a NETCONF node', async (t) => {
  const cli = await request('POST', `${OPS}/connection-manager:install-node`, {
    input: {
      'node-id': 'FRR1',
      cli: {
        'cli-topology:host': FRR.host,
        'cli-topology:port': FRR.port,
        'cli-topology:transport-type': 'ssh',
        'cli-topology:device-type': 'frr',
        'cli-topology:device-version': '8.4.4',
        'cli-topology:username': FRR.username,
        'cli-topology:password': FRR.password,
      },
    },
  });
  t.is(cli.status, 204, cli.text);
  const nc = await request('POST', `${OPS}/connection-manager:install-node`, {
    input: {
      'node-id': 'NC1',
      netconf: {
        'netconf-node-topology:host': NC.host,
        'netconf-node-topology:port': NC.port,
        'netconf-node-topology:username': NC.username,
        'netconf-node-topology:password': NC.password,
      },
    },
  });
  t.is(nc.status, 204, nc.text);
  for (const node of ['FRR1', 'NC1']) {
    const intended = await request('GET', `${TOPO}/node=${node}/configuration?content=config`);
    const actual = await request('GET', `${TOPO}/node=${node}/configuration?content=nonconfig`);
    t.is(intended.status, 200, intended.text);
    t.deepEqual(intended.json, actual.json);
    t.true(Object.keys(intended.json['uniconfig-topology:configuration']).length > 0, intended.text);
  }
  // what NC1's configuration holds is what the device's running datastore holds, checked on the device
  const ncConfig = (await request('GET', `${TOPO}/node=NC1/configuration`)).json['uniconfig-topology:configuration'];
  const running = await ncRunning();
  for (const member of Object.keys(ncConfig)) t.regex(running, new RegExp(`<${member.split(':')[1]}[ >]`), member);
});

it('edit + calculate-diff + dryrun + commit: the change shows up on both devices', async (t) => {
  const cookie = await transaction();
  t.is((await putDescription('uc0', 'uniconfig e2e', cookie)).status, 201);
  t.true([201, 204].includes((await putLocation('uniconfig rack', cookie)).status));
  const diff = await request('POST', `${OPS}/uniconfig-manager:calculate-diff`, { input: {} }, cookie);
  t.is(diff.status, 200, diff.text);
  const results = diff.json['uniconfig-manager:output']['node-results']['node-result'];
  t.deepEqual(
    results.map((r: any) => r['node-id']),
    ['FRR1', 'NC1'],
  );
  t.regex(JSON.stringify(results[0]['created-data']), /uc0/);
  t.regex(JSON.stringify(results[1]), /location/);
  const dry = await request('POST', `${OPS}/dryrun-manager:dryrun-commit`, { input: {} }, cookie);
  t.is(dry.status, 200, dry.text);
  const [cliDry, ncDry] = dry.json['dryrun-manager:output']['node-results']['node-result'];
  t.true(cliDry.command.includes('interface uc0'), cliDry.command.join('\n'));
  t.true(cliDry.command.some((c: string) => c.includes('description uniconfig e2e')));
  t.regex(ncDry.command.join('\n'), /<edit-config>.*<location>uniconfig rack<\/location>/s);
  t.notRegex(frr!.runningConfig(), /uniconfig e2e/, 'dry run sent nothing');
  t.notRegex(await ncRunning(), /uniconfig rack/);
  const commit = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, cookie);
  t.is(commit.status, 204, commit.text);
  t.regex(frr!.runningConfig(), /interface uc0\n description uniconfig e2e/);
  t.regex(await ncRunning(), /<location>uniconfig rack<\/location>/);
  const actual = await request('GET', `${FRR_IFACE('uc0')}/config/description?content=nonconfig`);
  t.is(actual.json['rosetta-openconfig-interfaces:description'], 'uniconfig e2e');
});

it('a change to one leaf of one interface on netconfd touches nothing else; the dry run is what commit sends', async (t) => {
  for (const name of ['ucA', 'ucB']) {
    const put = await request('PUT', NC_IFACE(name), ncInterface(name, `${name} first`));
    t.is(put.status, 201, put.text);
  }
  const IF_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
  await ncByHand(
    `<interfaces xmlns="${IF_NS}"><interface><name>ucHand</name><type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><description>by hand</description></interface></interfaces>` +
      '<system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><contact>hand contact</contact></system>',
  );
  const cookie = await transaction();
  t.is((await request('PUT', `${NC_IFACE('ucA')}/description`, { 'ietf-interfaces:description': 'ucA second' }, cookie)).status, 204);
  const dry = await request('POST', `${OPS}/dryrun-manager:dryrun-commit`, { input: { 'target-nodes': { node: ['NC1'] } } }, cookie);
  t.is(dry.status, 200, dry.text);
  const commands: string[] = dry.json['dryrun-manager:output']['node-results']['node-result'][0].command;
  t.deepEqual(
    commands,
    [
      '<lock><target><candidate/></target></lock>',
      // netconfd offers :rollback-on-error, so the plugin asks for it
      `<edit-config><target><candidate/></target><error-option>rollback-on-error</error-option><config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="${IF_NS}"><interface><name>ucA</name>` +
        '<description xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="replace">ucA second</description></interface></interfaces></config></edit-config>',
      '<commit/>',
      '<unlock><target><candidate/></target></unlock>',
    ],
    'one edit, at the leaf that changed',
  );
  const before = await ncRunning();
  const mark = logs.length;
  const commit = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, cookie);
  t.is(commit.status, 204, commit.text);
  t.deepEqual(ncSentSince(mark), commands, 'commit sent exactly the dry run');
  const after = await ncRunning();
  t.regex(after, /<name>ucA<\/name>[\s\S]*?<description>ucA second<\/description>/);
  // every other interface and every system leaf, read on the device itself, is as it was
  // last-modified is the commit's own time stamp (a different second whenever the commit crosses one)
  const without = (xml: string) =>
    xml
      .replace(/message-id="\d+"/, '')
      .replace(/\s*last-modified="[^"]*"/, '')
      .replace(/<description>ucA (first|second)<\/description>/, '');
  t.is(without(after), without(before));
  t.regex(after, /<name>ucB<\/name>[\s\S]*?<description>ucB first<\/description>/);
  t.regex(after, /<name>ucHand<\/name>[\s\S]*?<description>by hand<\/description>/);
  t.regex(after, /<contact>hand contact<\/contact>/);
  t.regex(after, /<location>uniconfig rack<\/location>/);
  // the hand changes go again, and the service re-reads the device, so later tests start in sync
  await ncByHand(
    `<interfaces xmlns="${IF_NS}"><interface xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="remove"><name>ucHand</name></interface></interfaces>` +
      '<system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><contact xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="remove"/></system>',
  );
  t.is((await request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ['NC1'] } } })).status, 200);
  const inSync = await request('POST', `${OPS}/uniconfig-manager:is-in-sync`, { input: { 'target-nodes': { node: ['NC1'] } } });
  t.true(
    inSync.json['uniconfig-manager:output']['node-results']['node-result'][0]['is-in-sync'],
    `${inSync.text}\n${await ncRunning()}\n${(await request('GET', `${TOPO}/node=NC1/configuration?content=nonconfig`)).text}`,
  );
});

it('a commit across FRR and netconfd where netconfd refuses leaves both devices exactly as before', async (t) => {
  const cookie = await transaction();
  t.is((await putDescription('uc0', 'must roll back', cookie)).status, 204);
  t.is((await putLocation('must roll back too', cookie)).status, 204);
  // netconfd refuses the edit: the test's own NETCONF session holds the locks the southbound needs
  for (const target of ['candidate', 'running']) t.regex(await raw!.rpc(`<lock><target><${target}/></target></lock>`), /<ok\/>/);
  const frrBefore = frr!.runningConfig();
  const ncBefore = await ncRunning();
  const commit = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: { 'target-nodes': { node: ['FRR1', 'NC1'] } } }, cookie);
  for (const target of ['candidate', 'running']) await raw!.rpc(`<unlock><target><${target}/></target></unlock>`);
  t.is(commit.status, 500, commit.text);
  t.deepEqual(
    commit.json.errors.error.map((e: any) => e['error-info']),
    [
      { 'node-id': 'FRR1', 'configuration-status': 'complete', 'rollback-status': 'complete' },
      { 'node-id': 'NC1', 'configuration-status': 'fail', 'rollback-status': 'complete' },
    ],
  );
  t.is(frr!.runningConfig(), frrBefore);
  t.is((await ncRunning()).replace(/message-id="\d+"/, ''), ncBefore.replace(/message-id="\d+"/, ''));
  const intended = await request('GET', `${FRR_IFACE('uc0')}/config/description`);
  t.is(intended.json['rosetta-openconfig-interfaces:description'], 'uniconfig e2e');
});

it('a hand change on the device: checked-commit 409, sync-from-network picks it up', async (t) => {
  const cookie = await transaction();
  t.is((await putLocation('checked rack', cookie)).status, 204);
  t.is((await putDescription('uc0', 'checked', cookie)).status, 204);
  frr!.configure(['interface uc0', ' description changed by hand']);
  const checked = await request('POST', `${OPS}/uniconfig-manager:checked-commit`, { input: {} }, cookie);
  t.is(checked.status, 409, checked.text);
  t.regex(frr!.runningConfig(), /description changed by hand/);
  t.notRegex(await ncRunning(), /checked rack/, 'nothing committed anywhere');
  const inSync = await request('POST', `${OPS}/uniconfig-manager:is-in-sync`, { input: {} });
  t.deepEqual(
    inSync.json['uniconfig-manager:output']['node-results']['node-result'].map((r: any) => [r['node-id'], r['is-in-sync']]),
    [
      ['FRR1', false],
      ['NC1', true],
    ],
  );
  const sync = await request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ['FRR1'] } } });
  t.is(sync.status, 200, sync.text);
  const actual = await request('GET', `${FRR_IFACE('uc0')}/config/description?content=nonconfig`);
  t.is(actual.json['rosetta-openconfig-interfaces:description'], 'changed by hand');
});

it('two transactions on one node: the second commit is refused and changes nothing', async (t) => {
  const a = await transaction();
  const b = await transaction();
  t.is((await putLocation('from a', a)).status, 204);
  t.is((await putLocation('from b', b)).status, 204);
  t.is((await request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, a)).status, 204);
  const second = await request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, b);
  t.is(second.status, 409, second.text);
  t.regex(await ncRunning(), /<location>from a<\/location>/);
  t.notRegex(await ncRunning(), /from b/);
});

it('a restart in the middle of an open transaction loses nothing that was committed', async (t) => {
  const cookie = await transaction();
  t.is((await putLocation('never committed', cookie)).status, 204);
  const immediate = await putDescription('uc1', 'immediate before restart');
  t.is(immediate.status, 201, immediate.text);
  t.regex(frr!.runningConfig(), /interface uc1\n description immediate before restart/);
  await service!.stop();
  await start();
  const end = Date.now() + 45_000;
  let read: Answer;
  do {
    read = await request('GET', `${FRR_IFACE('uc1')}/config/description`);
    if (read.status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  } while (Date.now() < end);
  t.is(read.json?.['rosetta-openconfig-interfaces:description'], 'immediate before restart', read.text);
  const actual = await request('GET', `${FRR_IFACE('uc1')}/config/description?content=nonconfig`);
  t.is(actual.json['rosetta-openconfig-interfaces:description'], 'immediate before restart');
  const location = await request('GET', NC_LOCATION);
  t.is(location.json?.['ietf-system:location'], 'from a', location.text);
  t.is((await request('GET', NC_LOCATION, undefined, cookie)).status, 422, 'the open transaction is gone');
  t.notRegex(await ncRunning(), /never committed/);
});

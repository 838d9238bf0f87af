/**
 * The uniconfig topology over the NETCONF southbound against the SDK's NETCONF simulator: install
 * fills intended and actual from get-config (a node in sync holds one object for both); query parameters on both datastores; YANG Patch and plain
 * writes inside a transaction; calculate-diff's created/updated/deleted paths; the dry run's
 * edit-config RPCs (nothing sent) equal, text for text, to the RPCs commit sends (the plugin's RPC
 * trace); commits send per-change edits, so a change to one leaf leaves configuration the service does
 * not know about untouched on the device; reads of the whole topology or a node in a transaction show
 * its view; a device that refuses (its candidate locked by another
 * session) leaves device and stores as they were.
 */
import test from 'ava';
import { openRawNetconf, startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import * as path from 'node:path';
import { NodeStore } from '../../src/uniconfig';
import { REPO, startMountService, type MountService } from '../mount/fixture';

const MODEL = `module acme-router {
  yang-version 1.1;
  namespace "urn:acme:router";
  prefix ar;
  container system {
    leaf hostname { type string; }
    leaf location { type string; }
  }
  container interfaces {
    list interface {
      key name;
      leaf name { type string; }
      leaf description { type string; }
      leaf mtu { type uint16 { range "64..9000"; } }
    }
  }
}`;

const CONF = '/rests/data/network-topology:network-topology/topology=uniconfig/node=N1/configuration';
const OPS = '/rests/operations';
let device: SimulatedNetconfDevice;
let s: MountService;

const NC_NS = 'xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"';

/** The RPC bodies the plugin sent to N1 since `mark` (its logRpcs trace), without reads. */
function sentSince(mark: number): string[] {
  return s.logs
    .slice(mark)
    .flatMap((l) => /N1: rpc \S+ (.*)$/s.exec(l)?.[1] ?? [])
    .filter((b) => !/^<get/.test(b));
}

async function transaction(): Promise<string> {
  const r = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

test.before(async () => {
  device = await startNetconfSimulator({
    yang: MODEL,
    username: 'admin',
    password: 'pw',
    config:
      '<system xmlns="urn:acme:router"><hostname>n1</hostname></system>' +
      '<interfaces xmlns="urn:acme:router"><interface><name>ge0</name><description>first</description><mtu>1500</mtu></interface></interfaces>',
  });
  const plugins = [{ path: path.join(REPO, 'plugins/netconf'), config: { logRpcs: true } }];
  s = await startMountService(plugins);
  const r = await s.request('POST', `${OPS}/connection-manager:install-node`, {
    input: {
      'node-id': 'N1',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': device.port,
        'netconf-node-topology:username': 'admin',
        'netconf-node-topology:password': 'pw',
      },
    },
  });
  if (r.status !== 204) throw new Error(`install: ${r.status} ${r.text}`);
});

test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

test.serial('install fills both datastores; query parameters work on each', async (t) => {
  for (const content of ['config', 'nonconfig']) {
    const r = await s.request('GET', `${CONF}?content=${content}`);
    t.deepEqual(
      r.json,
      {
        'uniconfig-topology:configuration': {
          'acme-router:system': { hostname: 'n1' },
          'acme-router:interfaces': { interface: [{ name: 'ge0', description: 'first', mtu: 1500 }] },
        },
      },
      content,
    );
  }
  const fields = await s.request('GET', `${CONF}/acme-router:interfaces?content=nonconfig&fields=interface(name;mtu)`);
  t.deepEqual(fields.json, { 'acme-router:interfaces': { interface: [{ name: 'ge0', mtu: 1500 }] } });
  const depth = await s.request('GET', `${CONF}/acme-router:interfaces/interface=ge0?depth=1`);
  t.deepEqual(depth.json, { 'acme-router:interface': [{ name: 'ge0' }] });
  const head = await s.request('HEAD', `${CONF}/acme-router:system`);
  t.is(head.status, 200);
});

test.serial('a node in sync keeps one configuration object for intended and actual after sync-from-network', async (t) => {
  const store = new NodeStore({ schema: s.service.schema, datastores: s.service.datastores }, s.dataDir);
  const r = await s.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, {
    input: { 'target-nodes': { node: ['N1'] } },
  });
  t.is(r.status, 200, r.text);
  const intended = store.json('config', 'N1');
  t.truthy(intended);
  // the device answered what the service already held: the new actual is the intended object, not a copy of it
  t.is(store.json('operational', 'N1'), intended);
});

test.serial('YANG Patch and plain writes in a transaction; diff paths; dry run equals what commit sends', async (t) => {
  const cookie = await transaction();
  const patch = await s.request(
    'PATCH',
    `${CONF}/acme-router:interfaces`,
    JSON.stringify({
      'ietf-yang-patch:yang-patch': {
        'patch-id': 'p1',
        edit: [
          {
            'edit-id': 'e1',
            operation: 'create',
            target: '/interface=ge1',
            value: { 'acme-router:interface': [{ name: 'ge1', mtu: 9000 }] },
          },
          {
            'edit-id': 'e2',
            operation: 'merge',
            target: '/interface=ge0',
            value: { 'acme-router:interface': [{ name: 'ge0', mtu: 1400 }] },
          },
        ],
      },
    }),
    { 'content-type': 'application/yang-patch+json', cookie },
  );
  t.is(patch.status, 200, patch.text);
  t.is((await s.request('DELETE', `${CONF}/acme-router:system/hostname`, undefined, { cookie })).status, 204);
  t.is((await s.request('GET', `${CONF}/acme-router:interfaces/interface=ge1`)).status, 404, 'not visible outside the transaction');

  const diff = await s.request('POST', `${OPS}/uniconfig-manager:calculate-diff`, { input: {} }, { cookie });
  t.is(diff.status, 200, diff.text);
  const node = diff.json['uniconfig-manager:output']['node-results']['node-result'][0];
  t.deepEqual(
    node['created-data'].map((c: any) => c.path),
    ["/acme-router:interfaces/interface[name='ge1']"],
  );
  t.deepEqual(
    node['updated-data'].map((c: any) => [c.path, c['data-actual'], c['data-intended']]),
    [["/acme-router:interfaces/interface[name='ge0']/mtu", '{"acme-router:mtu":1500}', '{"acme-router:mtu":1400}']],
  );
  t.deepEqual(
    node['deleted-data'].map((c: any) => c.path),
    ['/acme-router:system/hostname'],
  );

  const sentBefore = device.operationLog.length;
  const dry = await s.request('POST', `${OPS}/dryrun-manager:dryrun-commit`, { input: {} }, { cookie });
  t.is(dry.status, 200, dry.text);
  const commands: string[] = dry.json['dryrun-manager:output']['node-results']['node-result'][0].command;
  // each change at its own path: hostname removed, ge0's mtu replaced, ge1 created; description and the rest untouched
  t.deepEqual(commands, [
    '<lock><target><candidate/></target></lock>',
    '<edit-config><target><candidate/></target><config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">' +
      `<system xmlns="urn:acme:router"><hostname ${NC_NS} nc:operation="remove"/></system>` +
      `<interfaces xmlns="urn:acme:router"><interface><name>ge0</name><mtu ${NC_NS} nc:operation="replace">1400</mtu></interface>` +
      `<interface ${NC_NS} nc:operation="replace"><name>ge1</name><mtu>9000</mtu></interface></interfaces></config></edit-config>`,
    '<commit/>',
    '<unlock><target><candidate/></target></unlock>',
  ]);
  t.false(device.operationLog.slice(sentBefore).includes('edit-config'), 'the dry run sent nothing');

  const mark = device.operationLog.length;
  const logMark = s.logs.length;
  const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie });
  t.is(commit.status, 204, commit.text);
  t.deepEqual(
    device.operationLog.slice(mark).filter((o) => ['lock', 'edit-config', 'commit', 'unlock'].includes(o)),
    ['lock', 'edit-config', 'commit', 'unlock'],
  );
  // the two changed top-level containers are read back under the lock, sent with the commit: no read after the write
  t.deepEqual(
    device.operationLog.slice(mark).filter((o) => o !== 'get'),
    ['lock', 'edit-config', 'commit', 'get-config', 'get-config', 'unlock'],
  );
  t.deepEqual(sentSince(logMark), commands, 'commit sent exactly what the dry run showed');
  const running = device.runningXml();
  t.regex(running, /<name>ge1<\/name><mtu>9000<\/mtu>/);
  t.regex(running, /<mtu>1400<\/mtu>/);
  t.notRegex(running, /<hostname>/);
  const actual = await s.request('GET', `${CONF}/acme-router:interfaces/interface=ge1?content=nonconfig`);
  t.is(actual.json['acme-router:interface'][0].mtu, 9000);
});

test.serial('PUT and PATCH of configuration itself take the configuration wrapper (JSON and XML)', async (t) => {
  const cookie = await transaction();
  const put = await s.request(
    'PUT',
    CONF,
    { 'uniconfig-topology:configuration': { 'acme-router:system': { hostname: 'whole' } } },
    { cookie },
  );
  t.is(put.status, 204, put.text);
  t.deepEqual((await s.request('GET', CONF, undefined, { cookie })).json, {
    'uniconfig-topology:configuration': { 'acme-router:system': { hostname: 'whole' } },
  });
  // a member given twice inside the wrapper is refused before the wrapper is dropped (the last one was kept)
  const twice = await s.request(
    'PUT',
    CONF,
    '{"uniconfig-topology:configuration":{"acme-router:system":{"hostname":"first","hostname":"second"}}}',
    { cookie },
  );
  t.is(twice.status, 400, twice.text);
  t.is(twice.json.errors.error[0]['error-tag'], 'malformed-message');
  t.regex(
    twice.json.errors.error[0]['error-message'],
    /"hostname" appears twice in one object, at \/uniconfig-topology:configuration\/acme-router:system\/hostname/,
  );
  t.is((await s.request('GET', `${CONF}/acme-router:system/hostname`, undefined, { cookie })).json['acme-router:hostname'], 'whole');
  const patch = await s.request('PATCH', CONF, { configuration: { 'acme-router:system': { location: 'patched' } } }, { cookie });
  t.is(patch.status, 200, patch.text);
  t.deepEqual((await s.request('GET', `${CONF}/acme-router:system`, undefined, { cookie })).json, {
    'acme-router:system': { hostname: 'whole', location: 'patched' },
  });
  const xml = await s.request(
    'PUT',
    CONF,
    '<?xml version="1.0"?><configuration xmlns="urn:rosetta:params:xml:ns:yang:uniconfig-topology"><system xmlns="urn:acme:router"><hostname>x</hostname></system></configuration>',
    { cookie, 'content-type': 'application/yang-data+xml' },
  );
  t.is(xml.status, 204, xml.text);
  t.deepEqual((await s.request('GET', `${CONF}/acme-router:system`, undefined, { cookie })).json, {
    'acme-router:system': { hostname: 'x' },
  });
  // inner elements relying on prefixes (and a default namespace) declared on the wrapper only
  const prefixed = await s.request(
    'PUT',
    CONF,
    '<uc:configuration xmlns:uc="urn:rosetta:params:xml:ns:yang:uniconfig-topology" xmlns:ar="urn:acme:router">' +
      '<ar:system><ar:hostname>p</ar:hostname></ar:system><!-- a > comment --><ar:interfaces><ar:interface><ar:name>x1</ar:name></ar:interface></ar:interfaces></uc:configuration>',
    { cookie, 'content-type': 'application/yang-data+xml' },
  );
  t.is(prefixed.status, 204, prefixed.text);
  t.deepEqual((await s.request('GET', CONF, undefined, { cookie })).json, {
    'uniconfig-topology:configuration': {
      'acme-router:system': { hostname: 'p' },
      'acme-router:interfaces': { interface: [{ name: 'x1' }] },
    },
  });
  const defaulted = await s.request(
    'PATCH',
    CONF,
    '<uc:configuration xmlns:uc="urn:rosetta:params:xml:ns:yang:uniconfig-topology" xmlns="urn:acme:router">' +
      '<system><location>default-ns</location></system></uc:configuration>',
    { cookie, 'content-type': 'application/yang-data+xml' },
  );
  t.is(defaulted.status, 200, defaulted.text);
  t.deepEqual((await s.request('GET', `${CONF}/acme-router:system`, undefined, { cookie })).json, {
    'acme-router:system': { hostname: 'p', location: 'default-ns' },
  });
  const undeclared = await s.request(
    'PUT',
    CONF,
    '<configuration xmlns="urn:rosetta:params:xml:ns:yang:uniconfig-topology"><ar:system/></configuration>',
    { cookie, 'content-type': 'application/yang-data+xml' },
  );
  t.is(undeclared.status, 400, undeclared.text);
  const bad = await s.request('PUT', CONF, { 'uniconfig-topology:configuration': { 'acme-router:nosuch': {} } }, { cookie });
  t.is(bad.status, 400, bad.text);
  t.is((await s.request('POST', `${OPS}/uniconfig-manager:close-transaction`, undefined, { cookie })).status, 204);
  t.regex(device.runningXml(), /<name>ge1<\/name>/, 'nothing of the closed transaction reached the device');
});

test.serial('a refused immediate write leaves the device and both datastores as they were', async (t) => {
  const other = await openRawNetconf({ host: '127.0.0.1', port: device.port, username: 'admin', password: 'pw' });
  try {
    t.regex(await other.rpc('<lock><target><candidate/></target></lock>'), /<ok\/>/);
    const before = device.runningXml();
    const r = await s.request('PUT', `${CONF}/acme-router:system/location`, { 'acme-router:location': 'lab' });
    t.true(r.status >= 400, r.text);
    t.is(r.json.errors.error[0]['error-tag'], 'lock-denied', r.text);
    t.is(device.runningXml(), before);
    t.is((await s.request('GET', `${CONF}/acme-router:system/location`)).status, 404);
    t.is((await s.request('GET', `${CONF}/acme-router:system/location?content=nonconfig`)).status, 404);
  } finally {
    await other.close();
  }
  const again = await s.request('PUT', `${CONF}/acme-router:system/location`, { 'acme-router:location': 'lab' });
  t.is(again.status, 201, again.text);
  t.regex(device.runningXml(), /<location>lab<\/location>/);
});

test.serial('a change to one leaf of one interface leaves every other interface and system leaf untouched on the device', async (t) => {
  // configuration the service does not know about: added on the device by hand
  const other = await openRawNetconf({ host: '127.0.0.1', port: device.port, username: 'admin', password: 'pw' });
  try {
    t.regex(
      await other.rpc(
        '<edit-config><target><candidate/></target><config><system xmlns="urn:acme:router"><hostname>by-hand</hostname></system>' +
          '<interfaces xmlns="urn:acme:router"><interface><name>hand9</name><mtu>1280</mtu></interface></interfaces></config></edit-config>',
      ),
      /<ok\/>/,
    );
    t.regex(await other.rpc('<commit/>'), /<ok\/>/);
    const logMark = s.logs.length;
    const put = await s.request('PUT', `${CONF}/acme-router:interfaces/interface=ge0/description`, {
      'acme-router:description': 'one leaf',
    });
    t.is(put.status, 204, put.text);
    t.deepEqual(sentSince(logMark), [
      '<lock><target><candidate/></target></lock>',
      '<edit-config><target><candidate/></target><config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="urn:acme:router">' +
        `<interface><name>ge0</name><description ${NC_NS} nc:operation="replace">one leaf</description></interface></interfaces></config></edit-config>`,
      '<commit/>',
      '<unlock><target><candidate/></target></unlock>',
    ]);
    const running = await other.rpc('<get-config><source><running/></source></get-config>');
    t.regex(
      running,
      /<system xmlns="urn:acme:router"><location>lab<\/location><hostname>by-hand<\/hostname><\/system>/,
      'system leaves untouched',
    );
    t.regex(running, /<interface><name>ge0<\/name><description>one leaf<\/description><mtu>1400<\/mtu><\/interface>/);
    t.regex(running, /<interface><name>ge1<\/name><mtu>9000<\/mtu><\/interface>/, 'the other interface the service knows untouched');
    t.regex(running, /<interface><name>hand9<\/name><mtu>1280<\/mtu><\/interface>/, 'the interface added by hand untouched');
  } finally {
    await other.close();
  }
});

test.serial(
  "reads of the whole topology and of a node carry the transaction cookie: that transaction's view, nothing stored",
  async (t) => {
    const TOPOLOGY = '/rests/data/network-topology:network-topology/topology=uniconfig';
    const locationIn = (json: any, node = 'N1') => {
      const topology =
        json['network-topology:topology']?.[0] ??
        json['network-topology:network-topology']?.topology.find((x: any) => x['topology-id'] === 'uniconfig');
      const nodes = topology?.node ?? json['network-topology:node'];
      return nodes.find((n: any) => n['node-id'] === node)['uniconfig-topology:configuration']['acme-router:system']?.location;
    };
    const cookie = await transaction();
    t.is((await s.request('PUT', `${CONF}/acme-router:system/location`, { 'acme-router:location': 'tx view' }, { cookie })).status, 204);
    for (const path of [`${TOPOLOGY}/node=N1`, TOPOLOGY, '/rests/data/network-topology:network-topology']) {
      const inTx = await s.request('GET', `${path}?content=config`, undefined, { cookie });
      t.is(inTx.status, 200, inTx.text);
      t.is(locationIn(inTx.json), 'tx view', path);
      const outside = await s.request('GET', `${path}?content=config`);
      t.is(locationIn(outside.json), 'lab', `${path} without the cookie: as stored`);
    }
    // the default content (all) shows the intended configuration too (without the cookie, the actual one wins the merge)
    const all = await s.request('GET', `${TOPOLOGY}/node=N1`, undefined, { cookie });
    t.is(locationIn(all.json), 'tx view', all.text);
    t.false(/hand9/.test(all.text), 'the intended interfaces, not the actual ones');
    const whole = await s.request('GET', TOPOLOGY, undefined, { cookie });
    t.is(locationIn(whole.json), 'tx view');
    t.is(
      (await s.request('GET', `${TOPOLOGY}?content=nonconfig`, undefined, { cookie })).status,
      (await s.request('GET', `${TOPOLOGY}?content=nonconfig`)).status,
      'nonconfig as without the cookie',
    );
    const fields = await s.request('GET', `${TOPOLOGY}/node=N1?content=config&fields=node-id`, undefined, { cookie });
    t.deepEqual(fields.json, { 'network-topology:node': [{ 'node-id': 'N1' }] });
    const xml = await s.request('GET', `${TOPOLOGY}/node=N1?content=config`, undefined, { cookie, accept: 'application/yang-data+xml' });
    t.regex(xml.text, /<location>tx view<\/location>/);
    t.is((await s.request('HEAD', `${TOPOLOGY}/node=N1`, undefined, { cookie })).status, 200);
    t.is((await s.request('GET', `${TOPOLOGY}/node=nosuch`, undefined, { cookie })).status, 404);
    // garbage or unknown cookies: 422 as on configuration paths
    for (const bad of ['UNICONFIGTXID=garbage', 'UNICONFIGTXID=3f2b8c1e-9a4d-4e7f-8b21-0c5d6e7f8a9b']) {
      const r = await s.request('GET', TOPOLOGY, undefined, { cookie: bad });
      t.is(r.status, 422, `${bad}: ${r.text}`);
      t.is(r.json.errors.error[0]['error-tag'], 'invalid-transaction');
    }
    t.regex(device.runningXml(), /<location>lab<\/location>/, 'nothing sent');
    t.is((await s.request('POST', `${OPS}/uniconfig-manager:close-transaction`, undefined, { cookie })).status, 204);
    t.is((await s.request('GET', TOPOLOGY, undefined, { cookie })).status, 422, 'a closed transaction is invalid here too');
    t.is(locationIn((await s.request('GET', `${TOPOLOGY}?content=config`)).json), 'lab');
  },
);

test.serial(
  'DELETE of configuration itself: in a transaction it empties the view only; immediately it empties the device and both datastores',
  async (t) => {
    const cookie = await transaction();
    const inTx = await s.request('DELETE', CONF, undefined, { cookie });
    t.is(inTx.status, 204, inTx.text);
    t.deepEqual((await s.request('GET', CONF, undefined, { cookie })).json, { 'uniconfig-topology:configuration': {} });
    t.is((await s.request('GET', `${CONF}/acme-router:system`)).status, 200, 'outside the transaction nothing changed');
    t.regex(device.runningXml(), /<location>lab<\/location>/);
    t.is((await s.request('POST', `${OPS}/uniconfig-manager:close-transaction`, undefined, { cookie })).status, 204);

    const now = await s.request('DELETE', CONF);
    t.is(now.status, 204, now.text);
    t.notRegex(device.runningXml(), /<system|<interfaces/);
    t.deepEqual((await s.request('GET', CONF)).json, { 'uniconfig-topology:configuration': {} });
    t.deepEqual((await s.request('GET', `${CONF}?content=nonconfig`)).json, { 'uniconfig-topology:configuration': {} });
    const again = await s.request('DELETE', CONF);
    t.is(again.status, 404, `deleting an empty configuration is data-missing, as DELETE of absent data is: ${again.text}`);
  },
);

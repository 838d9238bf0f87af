/**
 * The node list of a topology with a few hundred nodes: paging, jsonb-filter on connection status and
 * fetch=count answer what the full listing holds, and a page computes the status of its own nodes only.
 * The nodes come from a southbound plugin written here that connects to nothing (instantly), so hundreds
 * install in a few seconds; it counts the nodes whose status it renders, which is the work a page must
 * not spend on the rest of the fleet.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { type MountService, REPO, startMountService } from './fixture';

const NODES = 240;
const TOPOLOGY = '/rests/data/network-topology:network-topology/topology=topology-netconf';
const UNIFIED = '/rests/data/network-topology:network-topology/topology=unified';

/** Status renders so far, counted by the plugin (it runs in this process). */
const rendered = (): number => (globalThis as { fakeNetconfRendered?: number }).fakeNetconfRendered ?? 0;

/**
 * A southbound with the NETCONF topology's module that connects to nothing: a node whose host is
 * `lost.example` reports `connecting`, one on `refused.example` `unable-to-connect`, every other one
 * `connected`.
 */
const plugin = `module.exports = { rosettaPlugin: 1, setup({ hooks }) {
  const M = 'netconf-node-topology';
  const descriptor = { protocol: 'netconf', installContainer: 'netconf', topology: 'topology-netconf', settingsModule: M,
    models: 'translation-units', dryRun: { operation: 'x:dry-run', input: 'edits', output: 'rpcs' },
    renderStatus: (n) => {
      globalThis.fakeNetconfRendered = (globalThis.fakeNetconfRendered ?? 0) + 1;
      return { [M + ':connection-status']: n.status, [M + ':connected-message']: n.message,
        [M + ':available-capabilities']: { 'available-capability': (n.connection?.capabilities ?? []).map((c) => ({ capability: c })) } };
    },
    rollbackOf: () => ({ status: 'unknown', detail: 'fake' }) };
  hooks.device.southbounds.tap('fake-netconf', (registered) => [...registered, descriptor]);
  hooks.device.connect.for('netconf').tapPromise('fake-netconf', async ({ settings }) => {
    const status = settings.host === 'lost.example' ? 'connecting' : settings.host === 'refused.example' ? 'unable-to-connect' : 'connected';
    return { message: 'fake session', capabilities: ['urn:ietf:params:netconf:base:1.1', 'urn:example:' + status], status: () => status, close: async () => undefined };
  });
  hooks.device.read.for('netconf').tapPromise('fake-netconf', async () => ({}));
} };`;

function writePlugin(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-listing-plugin-'));
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'plugin-fake-netconf',
      version: '0.1.0',
      main: 'index.js',
      rosetta: { kind: 'southbound', entry: 'index.js', yang: 'yang', protocol: 'netconf' },
    }),
  );
  fs.writeFileSync(path.join(dir, 'index.js'), plugin);
  const topology = path.join(REPO, 'plugins/netconf/yang/topology');
  fs.mkdirSync(path.join(dir, 'yang/topology'), { recursive: true });
  for (const f of fs.readdirSync(topology)) fs.copyFileSync(path.join(topology, f), path.join(dir, 'yang/topology', f));
  return dir;
}

/** Node ids installed in a shuffled order, so install order (the configuration's) is not node-id order. */
function nodeIds(): string[] {
  const ids = Array.from({ length: NODES }, (_, i) => `n${String(i).padStart(4, '0')}`);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

function hostOf(i: number): string {
  return i % 10 === 3 ? 'lost.example' : i % 10 === 7 ? 'refused.example' : '127.0.0.1';
}

let s: MountService;
let pluginDir: string;

test.before(async () => {
  pluginDir = writePlugin();
  s = await startMountService([{ path: pluginDir }]);
  const ids = nodeIds();
  for (let i = 0; i < ids.length; i += 16) {
    const batch = ids.slice(i, i + 16).map((id, k) =>
      s.request('POST', '/rests/operations/connection-manager:install-node', {
        input: {
          'node-id': id,
          netconf: {
            'netconf-node-topology:host': hostOf(i + k),
            'netconf-node-topology:username': 'u',
            'netconf-node-topology:password': 'p',
          },
        },
      }),
    );
    for (const r of await Promise.all(batch)) if (r.status !== 204) throw new Error(`install: ${r.status} ${r.text}`);
  }
});

test.after.always(async () => {
  await s?.stop();
  if (pluginDir !== undefined) fs.rmSync(pluginDir, { recursive: true, force: true });
});

/** GETs `p` and answers its JSON body, counting the status renders it took. */
async function read(p: string): Promise<{ status: number; json: any; text: string; renders: number }> {
  const before = rendered();
  const r = await s.request('GET', p);
  return { status: r.status, json: r.json, text: r.text, renders: rendered() - before };
}

const filter = (status: string) => `jsonb-filter=${encodeURIComponent(`{@/netconf-node-topology:connection-status} == "${status}"`)}`;

test.serial('a page of the node list is the same window of the full listing, and renders only its own nodes', async (t) => {
  const full = await read(`${TOPOLOGY}/node`);
  t.is(full.status, 200, full.text);
  const all = full.json['network-topology:node'];
  t.is(all.length, NODES);
  t.is(full.renders, NODES, 'the full listing renders every node once');
  const page = await read(`${TOPOLOGY}/node?offset=100&limit=20`);
  t.is(page.status, 200, page.text);
  t.deepEqual(page.json['network-topology:node'], all.slice(100, 120));
  t.is(page.renders, 20, 'a page renders the status of its 20 nodes only');
  const tail = await read(`${TOPOLOGY}/node?offset=${NODES - 5}`);
  t.deepEqual(tail.json['network-topology:node'], all.slice(NODES - 5));
  t.is(tail.renders, 5);
  const past = await read(`${TOPOLOGY}/node?offset=${NODES + 10}&limit=3`);
  t.is(past.renders, 0);
  t.true(past.status === 200 || past.status === 404, past.text);
  const one = await read(`${TOPOLOGY}/node=${all[17]['node-id']}`);
  t.deepEqual(one.json['network-topology:node'], [all[17]]);
  t.is(one.renders, 1, 'one node renders that node');
});

test.serial('the unified topology and content=nonconfig page the same way', async (t) => {
  const full = (await read(`${UNIFIED}/node`)).json['network-topology:node'];
  t.is(full.length, NODES);
  t.deepEqual((await read(`${UNIFIED}/node?offset=37&limit=11`)).json['network-topology:node'], full.slice(37, 48));
  const state = (await read(`${TOPOLOGY}/node?content=nonconfig`)).json['network-topology:node'];
  t.deepEqual((await read(`${TOPOLOGY}/node?content=nonconfig&offset=200&limit=30`)).json['network-topology:node'], state.slice(200, 230));
  const config = (await read(`${TOPOLOGY}/node?content=config`)).json['network-topology:node'];
  const page = await read(`${TOPOLOGY}/node?content=config&offset=3&limit=4`);
  t.deepEqual(page.json['network-topology:node'], config.slice(3, 7));
  t.is(page.renders, 0, 'configuration alone renders no status');
});

test.serial('fetch=count counts the nodes without rendering their status; with a filter it counts the matches', async (t) => {
  const count = await read(`${TOPOLOGY}/node?fetch=count`);
  t.is(count.status, 200, count.text);
  t.is(count.json, NODES);
  t.is(count.renders, 0);
  t.is((await read(`${TOPOLOGY}/node?fetch=count&offset=230&limit=50`)).json, 10);
  t.is((await read(`${UNIFIED}/node?fetch=count`)).json, NODES);
  const expected = nodeIds().filter((_, i) => hostOf(i) === 'lost.example').length;
  t.is((await read(`${TOPOLOGY}/node?fetch=count&${filter('connecting')}`)).json, expected);
});

test.serial('jsonb-filter on connection-status keeps exactly the nodes in that state, and pages over them', async (t) => {
  const all = (await read(`${TOPOLOGY}/node`)).json['network-topology:node'];
  for (const status of ['connected', 'connecting', 'unable-to-connect']) {
    const expected = all.filter((n: any) => n['netconf-node-topology:connection-status'] === status);
    t.true(expected.length > 0);
    const got = await read(`${TOPOLOGY}/node?${filter(status)}`);
    t.is(got.status, 200, got.text);
    t.deepEqual(got.json['network-topology:node'], expected, status);
    const paged = await read(`${TOPOLOGY}/node?${filter(status)}&offset=2&limit=5`);
    t.deepEqual(paged.json['network-topology:node'], expected.slice(2, 7), status);
  }
  const ids = nodeIds();
  const lost = ids.filter((_, i) => hostOf(i) === 'lost.example').sort();
  const unified = await read(
    `${UNIFIED}/node?jsonb-filter=${encodeURIComponent('{@/unified-topology:connection-status} == "connecting"')}`,
  );
  t.deepEqual(unified.json['network-topology:node'].map((n: any) => n['node-id']).sort(), lost);
});

/** GETs `p` with node's HTTP client: the body, its headers and how many pieces it arrived in. */
function getRaw(p: string, accept: string): Promise<{ status: number; headers: Record<string, unknown>; body: string; pieces: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${s.service.url}${p}`, { headers: { Accept: accept } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8'), pieces: parts.length }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

test.serial('a full listing is written in pieces as it is encoded, and is the same text as its pages joined', async (t) => {
  const pages = async (accept: string) => {
    const out: string[] = [];
    for (let offset = 0; offset < NODES; offset += 40) {
      const page = await getRaw(`${TOPOLOGY}/node?offset=${offset}&limit=40`, accept);
      t.is(page.status, 200);
      t.truthy(page.headers['content-length'], 'a page is small: sent whole, with its length');
      out.push(page.body);
    }
    return out;
  };
  const json = await getRaw(`${TOPOLOGY}/node`, 'application/yang-data+json');
  t.is(json.status, 200);
  t.is(json.headers['content-length'], undefined, 'no length: the body is written as it is encoded');
  t.is(json.headers['transfer-encoding'], 'chunked');
  t.true(json.pieces > 1, `${json.pieces} pieces`);
  const entries = (await pages('application/yang-data+json')).flatMap((b) => JSON.parse(b)['network-topology:node']);
  t.deepEqual(JSON.parse(json.body), { 'network-topology:node': entries });

  const xml = await getRaw(`${TOPOLOGY}/node`, 'application/yang-data+xml');
  t.is(xml.status, 200);
  t.is(xml.headers['transfer-encoding'], 'chunked');
  t.is(xml.body, (await pages('application/yang-data+xml')).join(''), 'a list in XML is its entries one after another');
  t.true(xml.body.startsWith('<node xmlns='), xml.body.slice(0, 100));
});

test.serial('other requests are answered while a full listing computes its nodes’ status', async (t) => {
  const before = rendered();
  const seen: number[] = [];
  let listed = false;
  const listing = getRaw(`${TOPOLOGY}/node`, 'application/yang-data+json').then((r) => {
    listed = true;
    return r;
  });
  const agent = new http.Agent({ keepAlive: false });
  const probe = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${s.service.url}/rests/operations`, { agent }, (res) => {
          res.resume();
          res.on('end', () => {
            seen.push(rendered() - before);
            resolve();
          });
        })
        .on('error', reject);
    });
  while (!listed) await probe();
  const full = await listing;
  t.is(JSON.parse(full.body)['network-topology:node'].length, NODES);
  t.is(rendered() - before, NODES);
  t.true(
    seen.some((n) => n > 0 && n < NODES),
    `a request was answered between the listing's first and last status renders (renders seen: ${seen.join(', ')})`,
  );
});

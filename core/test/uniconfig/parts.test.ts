/**
 * The uniconfig layer's pure parts on real inputs: the UNICONFIGTXID cookie reader (well-formed,
 * absent, garbage, repeated, huge), which request paths reach a node's configuration (bare and
 * prefixed `configuration`, key delimiter, other topologies), the top-level edits a push sends, and the
 * calculate-diff report (created/updated/deleted/reordered, int64 and leaf-list values) over the data
 * tests' schema (ietf-interfaces, ietf-system and the data-kinds module).
 */
import test from 'ava';
import { diffTrees } from '../../src/data/diff';
import { applyEdits } from '../../src/data/edit';
import { decodeJson } from '../../src/data/json-decode';
import type { DataRoot } from '../../src/data/tree';
import { RestconfError } from '../../src/restconf/errors';
import { configurationPath, diffReport, topLevelEdits, transactionCookie, TransactionRegistry } from '../../src/uniconfig';
import { MAX_OPEN_TRANSACTIONS } from '../../src/uniconfig/transactions';
import { schema } from '../data/fixture';

const ID = '3f2b8c1e-9a4d-4e7f-8b21-0c5d6e7f8a9b';

function status(work: () => unknown): number | undefined {
  try { work(); return undefined; } catch (e) { return e instanceof RestconfError ? e.status : -1; }
}

test('the transaction cookie: found among others, absent, or 422 for anything that is not one UUID', (t) => {
  t.is(transactionCookie(`a=1; UNICONFIGTXID=${ID}; b=2`), ID);
  t.is(transactionCookie(`UNICONFIGTXID="${ID}"`), ID);
  t.is(transactionCookie(undefined), undefined);
  t.is(transactionCookie('session=abc; theme=dark'), undefined);
  for (const bad of ['UNICONFIGTXID=', 'UNICONFIGTXID=garbage', `UNICONFIGTXID=${ID}x`, `UNICONFIGTXID=${ID}; UNICONFIGTXID=${ID}`, `UNICONFIGTXID=${'%00'.repeat(3000)}`]) {
    t.is(status(() => transactionCookie(bad)), 422, bad.slice(0, 40));
  }
  const huge = `UNICONFIGTXID=${ID}; ${'x=y; '.repeat(200_000)}`;
  const start = process.hrtime.bigint();
  t.is(status(() => transactionCookie(huge)), 422);
  t.true(Number(process.hrtime.bigint() - start) / 1e6 < 200, 'a huge header is refused without reading it all');
});

test('open transactions are bounded; a dropped or expired one is no longer found', async (t) => {
  const registry = new TransactionRegistry({ info: () => undefined });
  const first = registry.create();
  for (let i = 1; i < MAX_OPEN_TRANSACTIONS; i++) registry.create();
  t.is(status(() => registry.create()), 409);
  t.is(registry.fromCookieHeader(`UNICONFIGTXID=${first.id}`), first);
  registry.drop(first);
  t.is(status(() => registry.fromCookieHeader(`UNICONFIGTXID=${first.id}`)), 422);
  registry.closeAll();
  t.is(registry.size, 0);
  const short = registry.create(1);
  await new Promise((r) => setTimeout(r, 1100));
  t.is(status(() => registry.fromCookieHeader(`UNICONFIGTXID=${short.id}`)), 422);
});

test('configuration paths: bare or prefixed, the key delimiter honoured, anything else passes on', (t) => {
  const base = '/network-topology:network-topology/topology=uniconfig/node=R1';
  t.deepEqual(configurationPath(`${base}/configuration`, '%22'), { nodeId: 'R1', rest: '' });
  t.deepEqual(configurationPath(`${base}/configuration/`, '%22'), { nodeId: 'R1', rest: '' });
  t.deepEqual(configurationPath(`${base}/uniconfig-topology:configuration/acme:x/y=1`, '%22'), { nodeId: 'R1', rest: '/acme:x/y=1' });
  t.deepEqual(configurationPath('/network-topology:network-topology/topology=%22uniconfig%22/node=%22a/b%22/configuration/m:c', '%22'), { nodeId: 'a/b', rest: '/m:c' });
  t.deepEqual(configurationPath('/network-topology:network-topology/topology=uniconfig/node=R%201/configuration', '%22'), { nodeId: 'R 1', rest: '' });
  t.is(configurationPath(`${base}`, '%22'), undefined);
  t.is(configurationPath('/network-topology:network-topology/topology=cli/node=R1/configuration', '%22'), undefined);
  t.is(configurationPath(`${base}/other:configuration`, '%22'), undefined);
  t.is(configurationPath(`${base}/configurationx`, '%22'), undefined);
  t.is(configurationPath('/network-topology:network-topology/topology=uniconfig/node/configuration', '%22'), undefined);
  t.is(configurationPath(`${base}/configuration%2Fx`, '%22'), undefined, 'a bad URI is left to the ordinary route');
});

const before = {
  'data-kinds:kinds': { big: '9007199254740993', tags: ['a', 'b', 'c'], numbers: [1, 2], rule: [{ name: 'r1' }, { name: 'r2' }, { name: 'r3' }], route: [{ prefix: '10.0.0.0/8', metric: 1 }] },
  'ietf-system:system': { hostname: 'h1' },
};
const after = {
  'data-kinds:kinds': { big: '9007199254740994', tags: ['c', 'a', 'b'], numbers: [2, 3], rule: [{ name: 'r3' }, { name: 'r1' }, { name: 'r2' }], route: [{ prefix: '10.0.0.0/8', metric: 1, 'next-hop': 'x' }, { prefix: '11.0.0.0/8', metric: 2 }] },
  'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', type: 'iana-if-type:ethernetCsmacd' }] },
};

test('a push replaces the top-level nodes that changed and removes the ones that are gone', (t) => {
  const ctx = schema();
  const a = decodeJson(before, ctx).root;
  const b = decodeJson(after, ctx).root;
  const { edits } = topLevelEdits(a, b);
  t.deepEqual(edits.map((e) => [e.operation, e.path]).sort(), [['remove', '/ietf-system:system'], ['replace', '/data-kinds:kinds'], ['replace', '/ietf-interfaces:interfaces']]);
  t.deepEqual(edits.find((e) => e.path === '/ietf-interfaces:interfaces')!.value, { 'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', type: 'iana-if-type:ethernetCsmacd' }] } });
  t.deepEqual(topLevelEdits(a, decodeJson(before, ctx).root).edits, [], 'equal content (not the same objects) sends nothing');
});

test('calculate-diff report: created, updated (both values), deleted, reordered with paths', (t) => {
  const ctx = schema();
  const report = diffReport(decodeJson(before, ctx).root, decodeJson(after, ctx).root) as Record<string, Array<Record<string, string>>>;
  const paths = (k: string) => (report[k] ?? []).map((x) => x['path']);
  t.deepEqual(paths('created-data').sort(), [
    "/data-kinds:kinds/numbers[.='3']", "/data-kinds:kinds/route[prefix='10.0.0.0/8'][metric='1']/next-hop", "/data-kinds:kinds/route[prefix='11.0.0.0/8'][metric='2']", '/ietf-interfaces:interfaces',
  ].sort());
  t.deepEqual(paths('deleted-data').sort(), ["/data-kinds:kinds/numbers[.='1']", '/ietf-system:system'].sort());
  const big = report['updated-data']!.find((u) => u['path'] === '/data-kinds:kinds/big')!;
  t.deepEqual([JSON.parse(big['data-actual']!), JSON.parse(big['data-intended']!)], [{ 'data-kinds:big': '9007199254740993' }, { 'data-kinds:big': '9007199254740994' }]);
  t.deepEqual(JSON.parse(report['deleted-data']!.find((d) => d['path']!.includes('numbers'))!['data']!), { 'data-kinds:numbers': [1] });
  const reordered = Object.fromEntries(report['reordered-lists']!.map((r) => [r['path'], [JSON.parse(r['actual-list-keys']!), JSON.parse(r['intended-list-keys']!)]]));
  t.deepEqual(Object.keys(reordered).sort(), ['/data-kinds:kinds/rule', '/data-kinds:kinds/tags']);
  t.deepEqual(reordered['/data-kinds:kinds/tags'], [['a', 'b', 'c'], ['c', 'a', 'b']]);
  t.is(reordered['/data-kinds:kinds/rule']![1].length, 3);
  t.deepEqual(diffReport(decodeJson(before, ctx).root, decodeJson(before, ctx).root), {}, 'equal content, not shared objects');
});

test('calculate-diff report of 10,000 list entries: the same paths as the data layer diff, shared entries skipped, fast', (t) => {
  const ctx = schema();
  const N = 10_000;
  const iface = (i: number, description: string) => ({ name: `e${i}`, type: 'iana-if-type:ethernetCsmacd', description });
  const actual = decodeJson({ 'ietf-interfaces:interfaces': { interface: Array.from({ length: N }, (_, i) => iface(i, `d${i}`)) } }, ctx).root;
  const cases: Array<[string, DataRoot]> = [
    ['every entry changed', applyEdits(actual, [{ operation: 'merge', target: [], value: decodeJson({ 'ietf-interfaces:interfaces': { interface: Array.from({ length: N }, (_, i) => ({ name: `e${i}`, description: `changed ${i}` })) } }, ctx).root }], ctx)],
    ['100 changed (the rest shared)', applyEdits(actual, [{ operation: 'merge', target: [], value: decodeJson({ 'ietf-interfaces:interfaces': { interface: Array.from({ length: 100 }, (_, k) => ({ name: `e${k * 100}`, description: `changed ${k}` })) } }, ctx).root }], ctx)],
    ['entries created and deleted, order changed', decodeJson({ 'ietf-interfaces:interfaces': { interface: [
      ...Array.from({ length: N - 10 }, (_, i) => iface(N - 1 - i, i % 2 === 0 ? `d${N - 1 - i}` : 'odd')), ...Array.from({ length: 10 }, (_, i) => iface(N + i, 'new')),
    ] } }, ctx).root],
  ];
  for (const [what, intended] of cases) {
    const start = process.hrtime.bigint();
    const report = diffReport(actual, intended) as Record<string, Array<Record<string, string>>>;
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const expected = new Map<string, string[]>();
    for (const c of diffTrees(actual, intended)) {
      const group = { created: 'created-data', updated: 'updated-data', deleted: 'deleted-data', reordered: 'reordered-lists' }[c.type];
      expected.set(group, [...(expected.get(group) ?? []), c.path]);
    }
    for (const group of ['created-data', 'updated-data', 'deleted-data', 'reordered-lists']) {
      t.deepEqual((report[group] ?? []).map((x) => x['path']), expected.get(group) ?? [], `${what}: ${group}`);
    }
    t.true(ms < 400, `${what}: ${ms.toFixed(1)} ms`);
  }
  const all = diffReport(actual, cases[0]![1]) as Record<string, Array<Record<string, string>>>;
  t.is(all['updated-data']!.length, N);
  t.deepEqual(all['updated-data']![7], { path: "/ietf-interfaces:interfaces/interface[name='e7']/description", 'data-actual': '{"ietf-interfaces:description":"d7"}', 'data-intended': '{"ietf-interfaces:description":"changed 7"}' });
});

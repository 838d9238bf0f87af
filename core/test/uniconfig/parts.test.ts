/**
 * The uniconfig layer's pure parts on real inputs: the UNICONFIGTXID cookie reader (well-formed,
 * absent, garbage, repeated, huge), which request paths reach a node's configuration (bare and
 * prefixed `configuration`, key delimiter, other topologies), the per-change edits a push sends, and the
 * calculate-diff report (created/updated/deleted/reordered, int64 and leaf-list values) over the data
 * tests' schema (ietf-interfaces, ietf-system and the data-kinds module).
 */
import test from 'ava';
import { diffTrees } from '../../src/data/diff';
import { applyEdits } from '../../src/data/edit';
import { decodeJson } from '../../src/data/json-decode';
import type { DataRoot } from '../../src/data/tree';
import { RestconfError } from '../../src/restconf/errors';
import { changeEdits, configurationPath, diffReport, transactionCookie, TransactionRegistry } from '../../src/uniconfig';
import { claimsRequest, topologyViewPath } from '../../src/uniconfig/topology-view';
import { MAX_OPEN_TRANSACTIONS } from '../../src/uniconfig/transactions';
import { schema } from '../data/fixture';
import { renderInstancePath } from '../../src/yang/instance-path';

const ID = '3f2b8c1e-9a4d-4e7f-8b21-0c5d6e7f8a9b';

function status(work: () => unknown): number | undefined {
  try {
    work();
    return undefined;
  } catch (e) {
    return e instanceof RestconfError ? e.status : -1;
  }
}

test('the transaction cookie: found among others, absent, or 422 for anything that is not one UUID', (t) => {
  t.is(transactionCookie(`a=1; UNICONFIGTXID=${ID}; b=2`), ID);
  t.is(transactionCookie(`UNICONFIGTXID="${ID}"`), ID);
  t.is(transactionCookie(undefined), undefined);
  t.is(transactionCookie('session=abc; theme=dark'), undefined);
  for (const bad of [
    'UNICONFIGTXID=',
    'UNICONFIGTXID=garbage',
    `UNICONFIGTXID=${ID}x`,
    `UNICONFIGTXID=${ID}; UNICONFIGTXID=${ID}`,
    `UNICONFIGTXID=${'%00'.repeat(3000)}`,
  ]) {
    t.is(
      status(() => transactionCookie(bad)),
      422,
      bad.slice(0, 40),
    );
  }
  const huge = `UNICONFIGTXID=${ID}; ${'x=y; '.repeat(200_000)}`;
  const start = process.hrtime.bigint();
  t.is(
    status(() => transactionCookie(huge)),
    422,
  );
  t.true(Number(process.hrtime.bigint() - start) / 1e6 < 200, 'a huge header is refused without reading it all');
});

test('open transactions are bounded; a dropped or expired one is no longer found', async (t) => {
  const registry = new TransactionRegistry({ info: () => undefined });
  const first = registry.create();
  for (let i = 1; i < MAX_OPEN_TRANSACTIONS; i++) registry.create();
  t.is(
    status(() => registry.create()),
    409,
  );
  t.is(registry.fromCookieHeader(`UNICONFIGTXID=${first.id}`), first);
  registry.drop(first);
  t.is(
    status(() => registry.fromCookieHeader(`UNICONFIGTXID=${first.id}`)),
    422,
  );
  registry.closeAll();
  t.is(registry.size, 0);
  const short = registry.create(1);
  await new Promise((r) => setTimeout(r, 1100));
  t.is(
    status(() => registry.fromCookieHeader(`UNICONFIGTXID=${short.id}`)),
    422,
  );
});

test('configuration paths: bare or prefixed, the key delimiter honoured, anything else passes on', (t) => {
  const base = '/network-topology:network-topology/topology=uniconfig/node=R1';
  t.deepEqual(configurationPath(`${base}/configuration`, '%22'), { nodeId: 'R1', rest: '' });
  t.deepEqual(configurationPath(`${base}/configuration/`, '%22'), { nodeId: 'R1', rest: '' });
  t.deepEqual(configurationPath(`${base}/uniconfig-topology:configuration/acme:x/y=1`, '%22'), { nodeId: 'R1', rest: '/acme:x/y=1' });
  t.deepEqual(configurationPath('/network-topology:network-topology/topology=%22uniconfig%22/node=%22a/b%22/configuration/m:c', '%22'), {
    nodeId: 'a/b',
    rest: '/m:c',
  });
  t.deepEqual(configurationPath('/network-topology:network-topology/topology=uniconfig/node=R%201/configuration', '%22'), {
    nodeId: 'R 1',
    rest: '',
  });
  t.is(configurationPath(`${base}`, '%22'), undefined);
  t.is(configurationPath('/network-topology:network-topology/topology=cli/node=R1/configuration', '%22'), undefined);
  t.is(configurationPath(`${base}/other:configuration`, '%22'), undefined);
  t.is(configurationPath(`${base}/configurationx`, '%22'), undefined);
  t.is(configurationPath('/network-topology:network-topology/topology=uniconfig/node/configuration', '%22'), undefined);
  t.is(configurationPath(`${base}/configuration%2Fx`, '%22'), undefined, 'a bad URI is left to the ordinary route');
});

test('topology reads a transaction answers: network-topology, topology=uniconfig, one node; only GET/HEAD with the cookie leave the direct path', (t) => {
  const top = '/network-topology:network-topology';
  for (const p of [top, `${top}/topology=uniconfig`, `${top}/topology=uniconfig/node=R1`, `${top}/topology=uniconfig/node=a%20b`])
    t.true(topologyViewPath(p, ','), p);
  for (const p of [
    `${top}/topology=cli`,
    `${top}/topology=uniconfig/node=R1/node-id`,
    `${top}/topology=uniconfig/node=R1,x`,
    '/ietf-system:system',
    `${top}/topology=uniconfig/node=%`,
  ]) {
    t.false(topologyViewPath(p, ','), p);
  }
  const req = (method: string, cookie?: string) =>
    ({ method, headers: cookie === undefined ? {} : { cookie } }) as unknown as import('node:http').IncomingMessage;
  const node = `${top}/topology=uniconfig/node=R1`;
  t.true(claimsRequest(node, ',', req('GET', `UNICONFIGTXID=${ID}`)));
  t.true(claimsRequest(node, ',', req('HEAD', 'UNICONFIGTXID=garbage')), 'a bad cookie is answered (422) by the layer');
  t.false(claimsRequest(node, ',', req('GET')), 'no cookie: the direct path');
  t.false(claimsRequest(node, ',', req('PUT', `UNICONFIGTXID=${ID}`)), "writes of the topology are not the layer's");
  t.true(claimsRequest(`${node}/configuration`, ',', req('PUT')), 'a configuration path always is');
  t.false(claimsRequest('/ietf-system:system', ',', req('GET', `UNICONFIGTXID=${ID}`)));
});

const before = {
  'data-kinds:kinds': {
    big: '9007199254740993',
    tags: ['a', 'b', 'c'],
    numbers: [1, 2],
    rule: [{ name: 'r1' }, { name: 'r2' }, { name: 'r3' }],
    route: [{ prefix: '10.0.0.0/8', metric: 1 }],
  },
  'ietf-system:system': { hostname: 'h1' },
};
const after = {
  'data-kinds:kinds': {
    big: '9007199254740994',
    tags: ['c', 'a', 'b'],
    numbers: [2, 3],
    rule: [{ name: 'r3' }, { name: 'r1' }, { name: 'r2' }],
    route: [
      { prefix: '10.0.0.0/8', metric: 1, 'next-hop': 'x' },
      { prefix: '11.0.0.0/8', metric: 2 },
    ],
  },
  'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', type: 'iana-if-type:ethernetCsmacd' }] },
};

const ops = (edits: ReturnType<typeof changeEdits>) => edits.map((e) => [e.operation, renderInstancePath(e.path), e.value]);

test('a push sends each change at its own path: leaves replaced, entries and values added or removed, nothing else', (t) => {
  const ctx = schema();
  const kinds = {
    big: '1',
    numbers: [1, 2],
    route: [
      { prefix: '10.0.0.0/8', metric: 1, 'next-hop': 'a' },
      { prefix: '12.0.0.0/8', metric: 3 },
    ],
    rule: [{ name: 'r1' }, { name: 'r2' }],
  };
  const a = decodeJson({ 'data-kinds:kinds': kinds, 'ietf-system:system': { hostname: 'h1', contact: 'c' } }, ctx).root;
  const b = decodeJson(
    {
      'data-kinds:kinds': {
        ...kinds,
        big: '2',
        numbers: [2, 3],
        route: [
          { prefix: '10.0.0.0/8', metric: 1 },
          { prefix: '11.0.0.0/8', metric: 2, 'next-hop': 'b' },
        ],
        rule: [{ name: 'r1', match: { port: 80 } }, { name: 'r2' }],
      },
      'ietf-system:system': { hostname: 'h1' },
      'ietf-interfaces:interfaces': {
        interface: [
          { name: 'eth0', type: 'iana-if-type:ethernetCsmacd' },
          { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' },
        ],
      },
    },
    ctx,
  ).root;
  t.deepEqual(ops(changeEdits(a, b)), [
    ['remove', '/ietf-system:system/contact', undefined], // the tree's order: module ietf-system first
    ['replace', '/data-kinds:kinds/big', { 'data-kinds:big': '2' }],
    ['remove', "/data-kinds:kinds/numbers[.='1']", undefined],
    ['merge', "/data-kinds:kinds/numbers[.='3']", { 'data-kinds:numbers': [3] }],
    ['remove', "/data-kinds:kinds/route[prefix='10.0.0.0/8'][metric='1']/next-hop", undefined],
    ['remove', "/data-kinds:kinds/route[prefix='12.0.0.0/8'][metric='3']", undefined],
    [
      'replace',
      "/data-kinds:kinds/route[prefix='11.0.0.0/8'][metric='2']",
      { 'data-kinds:route': [{ prefix: '11.0.0.0/8', metric: 2, 'next-hop': 'b' }] },
    ],
    ['replace', "/data-kinds:kinds/rule[name='r1']/match", { 'data-kinds:match': { port: 80 } }],
    [
      'replace',
      '/ietf-interfaces:interfaces',
      {
        'ietf-interfaces:interfaces': {
          interface: [
            { name: 'eth0', type: 'iana-if-type:ethernetCsmacd' },
            { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' },
          ],
        },
      },
    ],
  ]);
  t.deepEqual(
    changeEdits(a, decodeJson({ 'data-kinds:kinds': kinds, 'ietf-system:system': { hostname: 'h1', contact: 'c' } }, ctx).root),
    [],
    'equal content (not the same objects) sends nothing',
  );
  t.true(
    ops(changeEdits(b, a)).some(([op, path]) => op === 'remove' && path === '/ietf-interfaces:interfaces'),
    'a vanished container: removed',
  );
  // a created or vanished list: one edit per entry, each naming its keys
  const withRules = decodeJson({ 'data-kinds:kinds': { ...kinds, rule: [{ name: 'r1' }, { name: 'r2' }] } }, ctx).root;
  const noRules = decodeJson({ 'data-kinds:kinds': { big: '1' } }, ctx).root;
  const created = changeEdits(noRules, withRules).filter((e) => renderInstancePath(e.path).includes('rule'));
  t.deepEqual(ops(created), [
    ['replace', "/data-kinds:kinds/rule[name='r1']", { 'data-kinds:rule': [{ name: 'r1' }] }],
    ['replace', "/data-kinds:kinds/rule[name='r2']", { 'data-kinds:rule': [{ name: 'r2' }] }],
  ]);
  t.deepEqual(ops(changeEdits(withRules, noRules).filter((e) => renderInstancePath(e.path).includes('rule'))), [
    ['remove', "/data-kinds:kinds/rule[name='r1']", undefined],
    ['remove', "/data-kinds:kinds/rule[name='r2']", undefined],
  ]);
});

test('a push states a new order of an ordered-by-user list or leaf-list by replacing its parent whole', (t) => {
  const ctx = schema();
  const a = decodeJson({ 'data-kinds:kinds': { big: '1', tags: ['a', 'b'], rule: [{ name: 'r1' }, { name: 'r2' }] } }, ctx).root;
  const rules = decodeJson({ 'data-kinds:kinds': { big: '1', tags: ['a', 'b'], rule: [{ name: 'r2' }, { name: 'r1' }] } }, ctx).root;
  t.deepEqual(ops(changeEdits(a, rules)), [
    ['replace', '/data-kinds:kinds', { 'data-kinds:kinds': { big: '1', tags: ['a', 'b'], rule: [{ name: 'r2' }, { name: 'r1' }] } }],
  ]);
  const tags = decodeJson({ 'data-kinds:kinds': { big: '1', tags: ['b', 'a', 'c'], rule: [{ name: 'r1' }, { name: 'r2' }] } }, ctx).root;
  t.deepEqual(
    ops(changeEdits(a, tags)).map(([op, path]) => [op, path]),
    [['replace', '/data-kinds:kinds']],
  );
  const added = decodeJson(
    { 'data-kinds:kinds': { big: '1', tags: ['a', 'b', 'c'], rule: [{ name: 'r1' }, { name: 'r2' }, { name: 'r0' }] } },
    ctx,
  ).root;
  t.deepEqual(
    ops(changeEdits(a, added)).map(([op, path]) => [op, path]),
    [
      ['merge', "/data-kinds:kinds/tags[.='c']"],
      ['replace', "/data-kinds:kinds/rule[name='r0']"],
    ],
    'entries added at the end keep the order of the others: no replace of the parent',
  );
});

test('per-change edits are linear: 10,000 entries decoded apart (nothing shared), one leaf changed', (t) => {
  const ctx = schema();
  const interfaces = Array.from({ length: 10_000 }, (_, i) => ({
    name: `eth${i}`,
    type: 'iana-if-type:ethernetCsmacd',
    description: `d${i}`,
  }));
  const a = decodeJson({ 'ietf-interfaces:interfaces': { interface: interfaces } }, ctx).root;
  const changed = decodeJson(
    { 'ietf-interfaces:interfaces': { interface: interfaces.map((x, i) => (i === 5000 ? { ...x, description: 'new' } : x)) } },
    ctx,
  ).root;
  const start = process.hrtime.bigint();
  const edits = changeEdits(a, changed);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  t.deepEqual(ops(edits), [
    ['replace', "/ietf-interfaces:interfaces/interface[name='eth5000']/description", { 'ietf-interfaces:description': 'new' }],
  ]);
  t.log(`one change among 10,000 entries: ${ms.toFixed(1)} ms`);
});

test('calculate-diff report: created, updated (both values), deleted, reordered with paths', (t) => {
  const ctx = schema();
  const report = diffReport(decodeJson(before, ctx).root, decodeJson(after, ctx).root) as Record<string, Array<Record<string, string>>>;
  const paths = (k: string) => (report[k] ?? []).map((x) => x['path']);
  t.deepEqual(
    paths('created-data').sort(),
    [
      "/data-kinds:kinds/numbers[.='3']",
      "/data-kinds:kinds/route[prefix='10.0.0.0/8'][metric='1']/next-hop",
      "/data-kinds:kinds/route[prefix='11.0.0.0/8'][metric='2']",
      '/ietf-interfaces:interfaces',
    ].sort(),
  );
  t.deepEqual(paths('deleted-data').sort(), ["/data-kinds:kinds/numbers[.='1']", '/ietf-system:system'].sort());
  const big = report['updated-data']!.find((u) => u['path'] === '/data-kinds:kinds/big')!;
  t.deepEqual(
    [JSON.parse(big['data-actual']!), JSON.parse(big['data-intended']!)],
    [{ 'data-kinds:big': '9007199254740993' }, { 'data-kinds:big': '9007199254740994' }],
  );
  t.deepEqual(JSON.parse(report['deleted-data']!.find((d) => d['path']!.includes('numbers'))!['data']!), { 'data-kinds:numbers': [1] });
  const reordered = Object.fromEntries(
    report['reordered-lists']!.map((r) => [r['path'], [JSON.parse(r['actual-list-keys']!), JSON.parse(r['intended-list-keys']!)]]),
  );
  t.deepEqual(Object.keys(reordered).sort(), ['/data-kinds:kinds/rule', '/data-kinds:kinds/tags']);
  t.deepEqual(reordered['/data-kinds:kinds/tags'], [
    ['a', 'b', 'c'],
    ['c', 'a', 'b'],
  ]);
  t.is(reordered['/data-kinds:kinds/rule']![1].length, 3);
  t.deepEqual(diffReport(decodeJson(before, ctx).root, decodeJson(before, ctx).root), {}, 'equal content, not shared objects');
});

test('calculate-diff report of 10,000 list entries: the same paths as the data layer diff, shared entries skipped', (t) => {
  const ctx = schema();
  const N = 10_000;
  const iface = (i: number, description: string) => ({ name: `e${i}`, type: 'iana-if-type:ethernetCsmacd', description });
  const actual = decodeJson(
    { 'ietf-interfaces:interfaces': { interface: Array.from({ length: N }, (_, i) => iface(i, `d${i}`)) } },
    ctx,
  ).root;
  const cases: Array<[string, DataRoot]> = [
    [
      'every entry changed',
      applyEdits(
        actual,
        [
          {
            operation: 'merge',
            target: [],
            value: decodeJson(
              {
                'ietf-interfaces:interfaces': {
                  interface: Array.from({ length: N }, (_, i) => ({ name: `e${i}`, description: `changed ${i}` })),
                },
              },
              ctx,
            ).root,
          },
        ],
        ctx,
      ),
    ],
    [
      '100 changed (the rest shared)',
      applyEdits(
        actual,
        [
          {
            operation: 'merge',
            target: [],
            value: decodeJson(
              {
                'ietf-interfaces:interfaces': {
                  interface: Array.from({ length: 100 }, (_, k) => ({ name: `e${k * 100}`, description: `changed ${k}` })),
                },
              },
              ctx,
            ).root,
          },
        ],
        ctx,
      ),
    ],
    [
      'entries created and deleted, order changed',
      decodeJson(
        {
          'ietf-interfaces:interfaces': {
            interface: [
              ...Array.from({ length: N - 10 }, (_, i) => iface(N - 1 - i, i % 2 === 0 ? `d${N - 1 - i}` : 'odd')),
              ...Array.from({ length: 10 }, (_, i) => iface(N + i, 'new')),
            ],
          },
        },
        ctx,
      ).root,
    ],
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
      t.deepEqual(
        (report[group] ?? []).map((x) => x['path']),
        expected.get(group) ?? [],
        `${what}: ${group}`,
      );
    }
    t.log(`${what}: ${ms.toFixed(1)} ms`);
  }
  const all = diffReport(actual, cases[0]![1]) as Record<string, Array<Record<string, string>>>;
  t.is(all['updated-data']!.length, N);
  t.deepEqual(all['updated-data']![7], {
    path: "/ietf-interfaces:interfaces/interface[name='e7']/description",
    'data-actual': '{"ietf-interfaces:description":"d7"}',
    'data-intended': '{"ietf-interfaces:description":"changed 7"}',
  });
});

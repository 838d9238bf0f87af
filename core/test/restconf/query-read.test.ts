/**
 * applyReadQuery on real trees (ietf-interfaces + ietf-ip, example-jukebox, rc-extra) built with the
 * JSON codec, output checked through encodeJson: content, with-defaults, depth, fields, sortby,
 * offset/limit, fetch=count, hideEmptyDataNodes, hideAttributes, and their order.
 */
import test from 'ava';
import { encodeJson } from '../../src/data/json-encode';
import type { DataNode, DataRoot } from '../../src/data/tree';
import { RestconfError } from '../../src/restconf/errors';
import { applyReadQuery, parseQuery, type ReadTarget } from '../../src/restconf/query';
import { parseDataPath } from '../../src/restconf/uri';
import type { SchemaNode } from '../../src/yang/schema';
import { ietfSchema, tree } from './fixture';

const IFACES = {
  'ietf-interfaces:interfaces': {
    interface: [
      {
        name: 'eth0',
        type: 'iana-if-type:ethernetCsmacd',
        enabled: true,
        description: 'uplink',
        'oper-status': 'up',
        'ietf-ip:ipv4': { mtu: 1500, address: [{ ip: '10.0.0.1', 'prefix-length': 24 }] },
      },
      { name: 'eth1', type: 'iana-if-type:ethernetCsmacd', enabled: false, 'oper-status': 'down', 'ietf-ip:ipv4': { mtu: 9000 } },
      { name: 'lo0', type: 'iana-if-type:softwareLoopback', description: 'loopback', 'oper-status': 'up' },
      { name: 'eth2', type: 'iana-if-type:ethernetCsmacd', 'oper-status': 'testing', 'ietf-ip:ipv4': { mtu: 576 } },
    ],
  },
};

const ctx = ietfSchema();
const uri = { keyDelimiter: '%22' };

/** The data at a URI target, as a GET handler would hand it over. */
function at(root: DataRoot, path: string): { data: ReadTarget; schema: SchemaNode | undefined } {
  const parsed = parseDataPath(path, ctx, uri);
  let data: ReadTarget = root;
  for (const step of parsed.steps) {
    const children: readonly DataNode[] = (data as { children: DataNode[] }).children;
    const node = children.find((c) => c.schema === step.schema)!;
    if (node.kind === 'list' && step.keys !== undefined)
      data = node.entries.find((e) => (e.children[0] as { value: unknown }).value === step.keys![0])!;
    else data = node;
  }
  return { data, schema: parsed.target };
}

async function get(root: DataRoot, path: string, query: string): Promise<unknown> {
  const { data, schema } = at(root, path);
  const result = await applyReadQuery(data, schema, parseQuery(query, 'GET'), ctx, root);
  if (result.kind === 'count') return result.count;
  return result.data === undefined ? undefined : JSON.parse(encodeJson(result.data));
}

async function rejects(t: import('ava').ExecutionContext, root: DataRoot, path: string, query: string, param: string): Promise<void> {
  const err = (await t.throwsAsync(() => get(root, path, query), { instanceOf: RestconfError })) as RestconfError;
  t.is(err.status, 400);
  t.true(err.message.includes(`'${param}'`), err.message);
}

const ifaces = tree(ctx, IFACES);

test('input trees are never changed', async (t) => {
  const before = encodeJson(ifaces);
  await get(
    ifaces,
    '/ietf-interfaces:interfaces/interface',
    'content=config&with-defaults=report-all-tagged&fields=name;ietf-ip:ipv4&depth=2&sortby=name(desc)&offset=1&limit=2&hideEmptyDataNodes=true&hideAttributes=true',
  );
  await get(ifaces, '/ietf-interfaces:interfaces', 'with-defaults=trim');
  t.is(encodeJson(ifaces), before);
});

test('content: config, nonconfig, all', async (t) => {
  const config = (await get(ifaces, '/ietf-interfaces:interfaces/interface=eth1', 'content=config')) as Record<
    string,
    Record<string, unknown>[]
  >;
  t.deepEqual(config, {
    'ietf-interfaces:interface': [{ name: 'eth1', type: 'iana-if-type:ethernetCsmacd', enabled: false, 'ietf-ip:ipv4': { mtu: 9000 } }],
  });
  const state = await get(ifaces, '/ietf-interfaces:interfaces/interface=eth1', 'content=nonconfig');
  t.deepEqual(state, { 'ietf-interfaces:interface': [{ name: 'eth1', 'oper-status': 'down' }] });
  const all = (await get(ifaces, '/ietf-interfaces:interfaces/interface=eth1', 'content=all')) as Record<string, Record<string, unknown>[]>;
  t.is(all['ietf-interfaces:interface']![0]!['oper-status'], 'down');
  t.is(all['ietf-interfaces:interface']![0]!['enabled'], false);
  // a state leaf as the target disappears under content=config
  t.is(await get(ifaces, '/ietf-interfaces:interfaces/interface=eth1/oper-status', 'content=config'), undefined);
  t.deepEqual(await get(ifaces, '/ietf-interfaces:interfaces/interface=eth1/oper-status', 'content=nonconfig'), {
    'ietf-interfaces:oper-status': 'down',
  });
  // at the root: jukebox has no state data here, so nonconfig leaves only interfaces' state
  const root = tree(ctx, { ...IFACES, 'example-jukebox:jukebox': { playlist: [{ name: 'p' }] } });
  const rootState = (await get(root, '', 'content=nonconfig')) as Record<string, unknown>;
  t.deepEqual(Object.keys(rootState), ['ietf-interfaces:interfaces']);
});

test('with-defaults: report-all, trim, explicit, report-all-tagged', async (t) => {
  // ietf-interfaces: enabled defaults to true; ietf-ip ipv4: enabled true, forwarding false
  const explicit = await get(ifaces, '/ietf-interfaces:interfaces/interface=lo0', 'content=config&with-defaults=explicit');
  t.deepEqual(explicit, { 'ietf-interfaces:interface': [{ name: 'lo0', description: 'loopback', type: 'iana-if-type:softwareLoopback' }] });
  const all = (await get(ifaces, '/ietf-interfaces:interfaces/interface=eth2', 'content=config&with-defaults=report-all')) as Record<
    string,
    Record<string, unknown>[]
  >;
  const eth2 = all['ietf-interfaces:interface']![0]!;
  t.is(eth2['enabled'], true);
  t.deepEqual(eth2['ietf-ip:ipv4'], { enabled: true, forwarding: false, mtu: 576 });
  // the added defaults are in schema order (enabled after type... as the tree keeps it)
  t.deepEqual(Object.keys(eth2), ['name', 'type', 'enabled', 'ietf-ip:ipv4']);
  const tagged = (await get(
    ifaces,
    '/ietf-interfaces:interfaces/interface=eth0',
    'content=config&with-defaults=report-all-tagged',
  )) as Record<string, Record<string, unknown>[]>;
  const eth0 = tagged['ietf-interfaces:interface']![0]!;
  // enabled=true is stored but equals its default: tagged too
  t.deepEqual(eth0['enabled'], { '@': { 'ietf-netconf-with-defaults:default': true }, '#': true });
  t.deepEqual((eth0['ietf-ip:ipv4'] as Record<string, unknown>)['forwarding'], {
    '@': { 'ietf-netconf-with-defaults:default': true },
    '#': false,
  });
  t.is((eth0['ietf-ip:ipv4'] as Record<string, unknown>)['mtu'], 1500);
  const trim = (await get(ifaces, '/ietf-interfaces:interfaces/interface=eth0', 'with-defaults=trim')) as Record<
    string,
    Record<string, unknown>[]
  >;
  t.false('enabled' in trim['ietf-interfaces:interface']![0]!);
  t.is(trim['ietf-interfaces:interface']![0]!['description'], 'uplink');
  // eth1 has enabled=false, not the default: kept by trim
  const trim1 = (await get(ifaces, '/ietf-interfaces:interfaces/interface=eth1', 'with-defaults=trim')) as Record<
    string,
    Record<string, unknown>[]
  >;
  t.is(trim1['ietf-interfaces:interface']![0]!['enabled'], false);
});

test('with-defaults: choices, leaf-list defaults, absent non-presence containers', async (t) => {
  const box = tree(ctx, { 'rc-extra:box': { name: 'b' } });
  const all = await get(box, '/rc-extra:box', 'with-defaults=report-all');
  t.deepEqual(all, { 'rc-extra:box': { name: 'b', level: 5, dflt: [1, 2], 'auto-speed': 1000, inner: { deep: 'd' } } });
  // data in the manual case: the default case's default is not added
  const manual = (await get(tree(ctx, { 'rc-extra:box': { 'manual-speed': 10 } }), '/rc-extra:box', 'with-defaults=report-all')) as Record<
    string,
    Record<string, unknown>
  >;
  t.false('auto-speed' in manual['rc-extra:box']!);
  t.is(manual['rc-extra:box']!['manual-speed'], 10);
  // trim: values equal to defaults go, and a container left empty goes with them
  const stored = tree(ctx, { 'rc-extra:box': { level: 5, dflt: [1, 2], inner: { deep: 'd' }, name: 'x' } });
  t.deepEqual(await get(stored, '/rc-extra:box', 'with-defaults=trim'), { 'rc-extra:box': { name: 'x' } });
  const tagged = (await get(stored, '/rc-extra:box', 'with-defaults=report-all-tagged')) as Record<string, Record<string, unknown>>;
  t.deepEqual(tagged['rc-extra:box']!['dflt'], { '@': { 'ietf-netconf-with-defaults:default': true }, '#': [1, 2] });
  // state defaults are not added under content=config (stats has none; level is config)
  t.deepEqual(await get(box, '/rc-extra:box', 'content=nonconfig&with-defaults=report-all'), undefined);
});

test('depth counts levels from the target; entries keep their keys', async (t) => {
  const jb = tree(ctx, {
    'example-jukebox:jukebox': {
      library: { artist: [{ name: 'A', album: [{ name: 'X', year: 2000 }] }] },
      playlist: [{ name: 'p', description: 'd' }],
      player: { gap: '0.5' },
    },
  });
  t.deepEqual(await get(jb, '/example-jukebox:jukebox', 'depth=1'), { 'example-jukebox:jukebox': {} });
  t.deepEqual(await get(jb, '/example-jukebox:jukebox', 'depth=2'), {
    'example-jukebox:jukebox': { library: {}, playlist: [{ name: 'p' }], player: {} },
  });
  t.deepEqual(await get(jb, '/example-jukebox:jukebox', 'depth=3'), {
    'example-jukebox:jukebox': {
      library: { artist: [{ name: 'A' }] },
      playlist: [{ name: 'p', description: 'd' }],
      player: { gap: '0.5' },
    },
  });
  t.deepEqual(await get(jb, '/example-jukebox:jukebox', 'depth=unbounded'), await get(jb, '/example-jukebox:jukebox', ''));
  t.deepEqual(await get(jb, '', 'depth=1'), { 'example-jukebox:jukebox': {} });
});

test('fields: siblings, descent, sub-selection, the chain rule, unknown names', async (t) => {
  const list = '/ietf-interfaces:interfaces/interface';
  t.deepEqual(await get(ifaces, `${list}=eth0`, 'fields=description;ietf-ip:ipv4/mtu'), {
    'ietf-interfaces:interface': [{ name: 'eth0', description: 'uplink', 'ietf-ip:ipv4': { mtu: 1500 } }],
  });
  // a/b;c selects a/b and a/c: after ipv4/mtu, 'address' is a sibling of mtu
  t.deepEqual(await get(ifaces, `${list}=eth0`, 'fields=ietf-ip:ipv4/mtu;address(ip)'), {
    'ietf-interfaces:interface': [{ name: 'eth0', 'ietf-ip:ipv4': { mtu: 1500, address: [{ ip: '10.0.0.1' }] } }],
  });
  // p1/f1;p2/f2 with p1, p2 siblings: p2 is looked up under p1 and is not there
  await rejects(t, ifaces, `${list}=eth0`, 'fields=ietf-ip:ipv4/mtu;description', 'fields');
  // parentheses keep the chain inside them
  t.deepEqual(await get(ifaces, '/ietf-interfaces:interfaces', 'fields=interface(name;ietf-ip:ipv4(mtu))'), {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'eth0', 'ietf-ip:ipv4': { mtu: 1500 } },
        { name: 'eth1', 'ietf-ip:ipv4': { mtu: 9000 } },
        { name: 'lo0' },
        { name: 'eth2', 'ietf-ip:ipv4': { mtu: 576 } },
      ],
    },
  });
  // on a whole list, fields apply to each entry; keys stay
  t.deepEqual(await get(ifaces, list, 'fields=description'), {
    'ietf-interfaces:interface': [
      { name: 'eth0', description: 'uplink' },
      { name: 'eth1' },
      { name: 'lo0', description: 'loopback' },
      { name: 'eth2' },
    ],
  });
  // at the root names are module-qualified
  t.deepEqual(
    Object.keys((await get(tree(ctx, { ...IFACES, 'example-jukebox:jukebox': {} }), '', 'fields=example-jukebox:jukebox')) as object),
    ['example-jukebox:jukebox'],
  );
  await rejects(t, ifaces, '', 'fields=interfaces', 'fields');
  await rejects(t, ifaces, list, 'fields=nonsense', 'fields');
  await rejects(t, ifaces, list, 'fields=description(x)', 'fields');
  await rejects(t, ifaces, `${list}=eth0/description`, 'fields=x', 'fields');
});

test('sortby: several keys, desc, module-qualified leaves, union order', async (t) => {
  const list = '/ietf-interfaces:interfaces/interface';
  const names = async (q: string): Promise<string[]> =>
    ((await get(ifaces, list, q)) as Record<string, Array<{ name: string }>>)['ietf-interfaces:interface']!.map((e) => e.name);
  t.deepEqual(await names('sortby=name'), ['eth0', 'eth1', 'eth2', 'lo0']);
  t.deepEqual(await names('sortby=name(desc)'), ['lo0', 'eth2', 'eth1', 'eth0']);
  // entries without ipv4/mtu (lo0) come first ascending: no value sorts before any value
  t.deepEqual(await names('sortby=ietf-ip:ipv4/mtu'), ['lo0', 'eth2', 'eth0', 'eth1']);
  t.deepEqual(await names('sortby=ietf-ip:ipv4/mtu(desc)'), ['eth1', 'eth0', 'eth2', 'lo0']);
  // the augment prefix may be left out where only one child carries the name (as in URIs and fields)
  t.deepEqual(await names('sortby=ipv4/mtu(desc)'), ['eth1', 'eth0', 'eth2', 'lo0']);
  t.deepEqual(await names('sortby=type(desc);name(desc)'), ['lo0', 'eth2', 'eth1', 'eth0']);
  t.deepEqual(await names('sortby=oper-status;name'), ['eth1', 'eth2', 'eth0', 'lo0']); // enum names as strings: down, testing, up
  // union: no value, empty, boolean, numeric, then strings
  const box = tree(ctx, {
    'rc-extra:box': {
      pair: [
        { a: 's', b: 1, v: 'x' },
        { a: 'n', b: 2 },
        { a: 'e', b: 3 },
        { a: 'b', b: 4 },
        { a: 'i', b: 5 },
      ],
    },
  });
  // v is a string leaf; use 'a' for a deterministic check with an absent value in the middle
  const sorted = ((await get(box, '/rc-extra:box/pair', 'sortby=v;b(desc)')) as Record<string, Array<{ a: string }>>)['rc-extra:pair']!.map(
    (e) => e.a,
  );
  t.deepEqual(sorted, ['i', 'b', 'e', 'n', 's']);
  await rejects(t, ifaces, list, 'sortby=nonsense', 'sortby');
  await rejects(t, ifaces, list, 'sortby=ietf-ip:ipv4', 'sortby');
  await rejects(t, ifaces, '/ietf-interfaces:interfaces', 'sortby=name', 'sortby');
  await rejects(t, ifaces, `${list}=eth0`, 'sortby=name', 'sortby');
});

test('sortby on a union leaf: no value, empty, boolean, numeric, then strings', async (t) => {
  const pairs = tree(ctx, {
    'rc-extra:box': {
      pair: [
        { a: 'str', b: 1, u: 'abc' },
        { a: 'num', b: 2, u: 10 },
        { a: 'none', b: 3 },
        { a: 'empty', b: 4, u: [null] },
        { a: 'bool', b: 5, u: true },
        { a: 'neg', b: 6, u: -3 },
        { a: 'false', b: 7, u: false },
        { a: 'numtext', b: 8, u: '7x' },
      ],
    },
  });
  const order = async (q: string): Promise<string[]> =>
    ((await get(pairs, '/rc-extra:box/pair', q)) as Record<string, Array<{ a: string }>>)['rc-extra:pair']!.map((e) => e.a);
  t.deepEqual(await order('sortby=u'), ['none', 'empty', 'false', 'bool', 'neg', 'num', 'numtext', 'str']);
  t.deepEqual(await order('sortby=u(desc)'), ['str', 'numtext', 'num', 'neg', 'bool', 'false', 'empty', 'none']);
  // two keys: numeric b breaks no tie here, a (string) orders code units (upper case first)
  t.deepEqual((await order('sortby=b(desc)')).slice(0, 2), ['numtext', 'false']);
});

test('offset, limit and fetch=count', async (t) => {
  const list = '/ietf-interfaces:interfaces/interface';
  const names = async (q: string): Promise<string[]> =>
    ((await get(ifaces, list, q)) as Record<string, Array<{ name: string }>>)['ietf-interfaces:interface']!.map((e) => e.name);
  t.deepEqual(await names('offset=1&limit=2'), ['eth1', 'lo0']);
  t.deepEqual(await names('sortby=name&offset=1&limit=2'), ['eth1', 'eth2']);
  t.deepEqual(await names('offset=3'), ['eth2']);
  t.deepEqual(await names('limit=1'), ['eth0']);
  t.deepEqual(await names('offset=10'), []);
  t.deepEqual(await names('limit=0'), []);
  t.is(await get(ifaces, list, 'fetch=count'), 4);
  t.is(await get(ifaces, list, 'fetch=count&offset=1&limit=2'), 2);
  t.is(await get(ifaces, list, 'fetch=count&offset=3&limit=5'), 1);
  t.is(await get(ifaces, list, `fetch=count&jsonb-filter=${encodeURIComponent('{@/enabled} == true')}`), 1);
  // a container holding one list counts the list's entries
  t.is(await get(ifaces, '/ietf-interfaces:interfaces', 'fetch=count'), 4);
  // an entry counts its child nodes
  t.is(await get(ifaces, `${list}=lo0`, 'fetch=count'), 4);
  t.is(await get(ifaces, `${list}=lo0`, 'fetch=count&content=config'), 3);
  await rejects(t, ifaces, '/ietf-interfaces:interfaces', 'offset=1', 'offset');
  await rejects(t, ifaces, `${list}=eth0`, 'limit=1', 'limit');
});

test('hideEmptyDataNodes and hideAttributes', async (t) => {
  const box = tree(ctx, { 'rc-extra:box': { inner: {}, flag: {}, name: 'n', plain: [] } });
  t.deepEqual(await get(box, '/rc-extra:box', 'hideEmptyDataNodes=true'), { 'rc-extra:box': { name: 'n' } });
  t.deepEqual(await get(box, '/rc-extra:box', 'hideEmptyDataNodes=false'), { 'rc-extra:box': { name: 'n', inner: {}, flag: {} } });
  const tagged = await get(ifaces, '/ietf-interfaces:interfaces/interface=eth0/enabled', 'with-defaults=report-all-tagged');
  t.deepEqual(tagged, { 'ietf-interfaces:enabled': { '@': { 'ietf-netconf-with-defaults:default': true }, '#': true } });
  t.deepEqual(
    await get(ifaces, '/ietf-interfaces:interfaces/interface=eth0/enabled', 'with-defaults=report-all-tagged&hideAttributes=true'),
    {
      'ietf-interfaces:enabled': true,
    },
  );
});

test('jsonb-filter needs a list target', async (t) => {
  await rejects(t, ifaces, '/ietf-interfaces:interfaces', `jsonb-filter=${encodeURIComponent('{@/name} == "x"')}`, 'jsonb-filter');
  await rejects(t, ifaces, '', `jsonb-filter=${encodeURIComponent('{@/name} == "x"')}`, 'jsonb-filter');
});

/**
 * jsonb-filter evaluated per list entry on real trees: comparisons on every value kind, && || !,
 * like_regex (with flags, and a pattern that would backtrack exponentially in a JS RegExp),
 * starts with, exists, is unknown, relative and absolute paths, and its composition with the
 * other list parameters.
 */
import test from 'ava';
import { encodeJson } from '../../src/data/json-encode';
import type { ListNode } from '../../src/data/tree';
import { applyReadQuery, parseQuery } from '../../src/restconf/query';
import { filterEntries } from '../../src/restconf/query/jsonb-filter';
import { parseJsonbFilter } from '../../src/restconf/query/jsonb-filter-parse';
import { parseDataPath } from '../../src/restconf/uri';
import { ietfSchema, tree } from './fixture';
import { JSONB_INTERFACES, JSONB_PAIRS } from './jsonb-fixture';
import { cpuStopwatch } from '../cpu-time';

const ctx = ietfSchema();
const root = tree(ctx, {
  'ietf-interfaces:interfaces': { interface: JSONB_INTERFACES },
  'example-jukebox:jukebox': { player: { gap: '1.5' }, playlist: [{ name: 'eth1' }] },
  'rc-extra:box': { pair: JSONB_PAIRS },
});
const interfaces = (root.children[0] as { children: ListNode[] }).children[0]!;
const pairs = (root.children.find((c) => c.schema.name === 'box') as { children: ListNode[] }).children.find((c) => c.kind === 'list')!;

async function names(list: ListNode, filter: string, key = 'name'): Promise<string[]> {
  return (await filterEntries(list, parseJsonbFilter(filter), root)).entries.map((e) =>
    String((e.children.find((c) => c.schema.name === key) as { value: unknown }).value),
  );
}

test('comparisons on booleans, numbers, strings, identityrefs', async (t) => {
  t.deepEqual(await names(interfaces, '{@/enabled} == true'), ['eth0']);
  t.deepEqual(await names(interfaces, '{@/enabled} != true'), ['eth1']); // absent enabled: no pair, false
  t.deepEqual(await names(interfaces, '{@/ietf-ip:ipv4/mtu} > 1500'), ['eth1']);
  t.deepEqual(await names(interfaces, '{@/ipv4/mtu} >= 1500'), ['eth0', 'eth1']);
  t.deepEqual(await names(interfaces, '{@/ipv4/mtu} < 1500.5'), ['eth0']);
  t.deepEqual(await names(interfaces, '{@/ipv4/mtu} <> 1500'), ['eth1']);
  t.deepEqual(await names(interfaces, '{@/ipv4/mtu} <= 1.5e3'), ['eth0']);
  t.deepEqual(await names(interfaces, "{@/name} == 'lo0'"), ['lo0']);
  t.deepEqual(await names(interfaces, '{@/name} > "eth1"'), ['lo0', 'eth2']);
  t.deepEqual(await names(interfaces, '{@/type} == "iana-if-type:softwareLoopback"'), ['lo0']);
  // a string compared with a number is unknown, so not kept, and `is unknown` sees it
  t.deepEqual(await names(interfaces, '{@/name} == 1'), []);
  t.deepEqual(await names(interfaces, '({@/name} == 1) is unknown'), ['eth0', 'eth1', 'lo0', 'eth2']);
  // existential over a nested list
  t.deepEqual(await names(interfaces, '{@/ipv4/address/prefix-length} == 16'), ['eth0']);
  t.deepEqual(await names(interfaces, '{@/ipv4/address/ip} == "10.0.0.1"'), ['eth0']);
});

test('empty, union and numeric leaves', async (t) => {
  t.deepEqual(await names(pairs, '{@/u} == null', 'a'), ['x']);
  // as PostgreSQL: null <= null holds; null against a non-null value is false (not unknown) except for !=
  t.deepEqual(await names(pairs, '{@/u} <= null', 'a'), ['x']);
  t.deepEqual(await names(pairs, '({@/u} < null) is unknown', 'a'), []);
  t.deepEqual(await names(pairs, '{@/u} != null', 'a'), ['y', 'z']);
  t.deepEqual(await names(pairs, '{@/u} == true', 'a'), ['y']);
  t.deepEqual(await names(pairs, '{@/u} starts with "te"', 'a'), ['z']);
  t.deepEqual(await names(pairs, '{@/b} < 0', 'a'), ['y']);
  t.deepEqual(await names(pairs, '{@/b} == -2.0', 'a'), ['y']);
});

test('&&, ||, ! with three-valued logic', async (t) => {
  t.deepEqual(await names(interfaces, '{@/enabled} == true || {@/ipv4/mtu} == 9000'), ['eth0', 'eth1']);
  t.deepEqual(await names(interfaces, '{@/type} == "iana-if-type:ethernetCsmacd" && !({@/enabled} == false)'), ['eth0', 'eth2']);
  t.deepEqual(await names(interfaces, '!({@/name} == 1)'), []); // !unknown is unknown
  t.deepEqual(await names(interfaces, '{@/name} == 1 || {@/name} == "lo0"'), ['lo0']);
  t.deepEqual(await names(interfaces, '{@/name} == 1 && {@/name} == "nope"'), []);
  t.deepEqual(await names(interfaces, '({@/name} == 1 && {@/name} == "nope") is unknown'), []); // unknown && false is false
  t.deepEqual(await names(interfaces, '({@/name} == 1 || {@/name} == "nope") is unknown'), ['eth0', 'eth1', 'lo0', 'eth2']);
  t.deepEqual(await names(interfaces, '(({@/enabled} == true))'), ['eth0']);
});

test('like_regex, starts with, exists', async (t) => {
  t.deepEqual(await names(interfaces, '{@/name} like_regex "^eth[0-1]$"'), ['eth0', 'eth1']);
  t.deepEqual(await names(interfaces, '{@/description} like_regex "core"'), ['eth0']);
  t.deepEqual(await names(interfaces, '{@/description} like_regex "CORE"'), []);
  t.deepEqual(await names(interfaces, '{@/description} like_regex "UPLINK" flag "i"'), ['eth0']);
  t.deepEqual(await names(interfaces, '{@/description} like_regex "\\\\d"'), []);
  t.deepEqual(await names(interfaces, '{@/description} like_regex "a.b" flag "q"'), []);
  t.deepEqual(await names(interfaces, '{@/name} starts with "eth"'), ['eth0', 'eth1', 'eth2']);
  t.deepEqual(await names(interfaces, 'exists({@/description})'), ['eth0', 'lo0', 'eth2']);
  t.deepEqual(await names(interfaces, '!exists({@/ipv4})'), ['lo0', 'eth2']);
  t.deepEqual(await names(interfaces, 'exists({@/ipv4/address})'), ['eth0']);
  // (a+)+$ backtracks exponentially in a JS RegExp on eth2's description; the linear matcher does not
  const cpuMs = cpuStopwatch();
  t.deepEqual(await names(interfaces, '{@/description} like_regex "^(a+)+$"'), []);
  const ms = cpuMs();
  t.true(ms < 500, `${ms.toFixed(0)} ms of CPU`);
});

test('absolute paths read the datastore root', async (t) => {
  t.deepEqual(await names(interfaces, '{$/example-jukebox:jukebox/player/gap} > 1'), ['eth0', 'eth1', 'lo0', 'eth2']);
  t.deepEqual(await names(interfaces, '{$/example-jukebox:jukebox/player/gap} > 1.5'), []);
  // entry value against an absolute sequence: names of playlists
  t.deepEqual(await names(interfaces, '{@/name} == {$/example-jukebox:jukebox/playlist/name}'), ['eth1']);
  t.deepEqual(await names(interfaces, 'exists({$/example-jukebox:nothing})'), []);
});

test('composed with sortby, offset, limit and fetch=count through applyReadQuery', async (t) => {
  const target = parseDataPath('/ietf-interfaces:interfaces/interface', ctx, { keyDelimiter: '%22' }).target;
  const q = async (query: string): Promise<unknown> => {
    const r = await applyReadQuery(interfaces, target, parseQuery(query, 'GET'), ctx, root);
    return r.kind === 'count' ? r.count : JSON.parse(encodeJson(r.data!))['ietf-interfaces:interface'].map((e: { name: string }) => e.name);
  };
  const f = encodeURIComponent('{@/type} == "iana-if-type:ethernetCsmacd"');
  t.deepEqual(await q(`jsonb-filter=${f}`), ['eth0', 'eth1', 'eth2']);
  t.deepEqual(await q(`jsonb-filter=${f}&sortby=name(desc)`), ['eth2', 'eth1', 'eth0']);
  t.deepEqual(await q(`jsonb-filter=${f}&sortby=name(desc)&offset=1&limit=1`), ['eth1']);
  t.is(await q(`jsonb-filter=${f}&fetch=count`), 3);
  t.is(await q(`jsonb-filter=${f}&fetch=count&offset=2`), 1);
});

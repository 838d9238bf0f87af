/**
 * XPath evaluation (yang/xpath evaluate/functions) over hand-built data trees shaped like ietf-interfaces:
 * paths, node-set comparisons, identityref matching, XPath 1.0 arithmetic and strings, the YANG
 * functions, faults returned rather than thrown, and indexed key predicates at 100,000 entries.
 */
import test from 'ava';
import { XNode, evaluateXPath, stringValue, type XValue, XPathSession } from '../../src/yang/xpath';
import type { Identity, LeafSchema, YangType } from '../../src/yang/schema';
import {
  container,
  dContainer,
  dLeaf,
  dLeafList,
  dList,
  dRoot,
  fixtureContext,
  fixtureModule,
  leaf,
  leafList,
  leafrefType,
  list,
  stringType,
  uint32Type,
  xp,
} from './xpath-fixture';
import { cpuStopwatch } from '../cpu-time';

// A model shaped like ietf-interfaces + an OpenConfig-style identityref.
const ifm = fixtureModule('ietf-interfaces', 'if', { ianaift: 'iana-if-type' });
const iana = fixtureModule('iana-if-type', 'ianaift');
const ifaceType = (name: string): Identity => ({ name, module: iana, bases: [], derived: new Set(), ifFeatures: [], status: 'current' });
const baseType = ifaceType('iana-interface-type');
const ethernet = ifaceType('ethernetCsmacd');
const softLoop = ifaceType('softwareLoopback');
(baseType.derived as Set<Identity>).add(ethernet).add(softLoop);
(iana.identities as Map<string, Identity>).set(baseType.name, baseType).set(ethernet.name, ethernet).set(softLoop.name, softLoop);
const identityType: YangType = { builtin: 'identityref', name: 'identityref', patterns: [], identityBases: [baseType] };
const enumType: YangType = {
  builtin: 'enumeration',
  name: 'enumeration',
  patterns: [],
  enums: [
    { name: 'up', value: 1, status: 'current', ifFeatures: [] },
    { name: 'down', value: 2, status: 'current', ifFeatures: [] },
  ],
};
const bitsType: YangType = {
  builtin: 'bits',
  name: 'bits',
  patterns: [],
  bits: [
    { name: 'a', position: 0, status: 'current', ifFeatures: [] },
    { name: 'b', position: 1, status: 'current', ifFeatures: [] },
  ],
};
const sName = leaf('name', ifm);
const sType = leaf('type', ifm, identityType);
const sMtu = leaf('mtu', ifm, uint32Type);
const sOper = leaf('oper-status', ifm, enumType);
const sFlags = leaf('flags', ifm, bitsType);
const sAddr = leafList('address', ifm, stringType);
const sIface = list('interface', ifm, ['name'], [sName, sType, sMtu, sOper, sFlags, sAddr]);
const sLower = leaf('lower', ifm, leafrefType(xp('/if:interfaces/if:interface/if:name', ifm)));
const sIid: LeafSchema = leaf('target', ifm, {
  builtin: 'instance-identifier',
  name: 'instance-identifier',
  patterns: [],
  requireInstance: true,
});
const sRefs = container('refs', ifm, [sLower, sIid]);
const sTop = container('interfaces', ifm, [sIface, sRefs]);
const ctx = fixtureContext([ifm, iana], [sTop]);

const tree = dRoot(
  dContainer(
    sTop,
    dList(
      sIface,
      [
        dLeaf(sName, 'eth0'),
        dLeaf(sType, 'iana-if-type:ethernetCsmacd'),
        dLeaf(sMtu, 1500),
        dLeaf(sOper, 'up'),
        dLeaf(sFlags, 'a b'),
        dLeafList(sAddr, '10.0.0.1', '10.0.0.2'),
      ],
      [dLeaf(sName, 'lo'), dLeaf(sType, 'iana-if-type:softwareLoopback'), dLeaf(sMtu, 65536), dLeaf(sOper, 'down')],
      [dLeaf(sName, 'eth1'), dLeaf(sType, 'iana-if-type:ethernetCsmacd'), dLeaf(sMtu, 9000)],
    ),
    dContainer(sRefs, dLeaf(sLower, 'lo'), dLeaf(sIid, "/ietf-interfaces:interfaces/interface[name='eth1']/mtu")),
  ),
);

const root = XNode.root(tree);
const top = [...root.children()][0]!;
const eth0 = [...top.children()][0]!;
const refs = [...top.children()][3]!;
const lowerLeaf = [...refs.children()][0]!;
const iidLeaf = [...refs.children()][1]!;

function ev(src: string, at: XNode = eth0): XValue | string {
  const r = evaluateXPath(xp(src, ifm), at, ctx);
  return 'error' in r ? `error: ${r.error}` : r.value;
}
function texts(src: string, at: XNode = eth0): string[] | string {
  const v = ev(src, at);
  return Array.isArray(v) ? v.map(stringValue) : `not a node-set: ${String(v)}`;
}

test('paths walk the tree: lists, leaf-lists, parents and absolute paths', (t) => {
  t.deepEqual(texts('/if:interfaces/if:interface/if:name'), ['eth0', 'lo', 'eth1']);
  t.deepEqual(texts('../interface/name'), ['eth0', 'lo', 'eth1']);
  t.deepEqual(texts('address'), ['10.0.0.1', '10.0.0.2']);
  t.deepEqual(texts('address[2]'), ['10.0.0.2']);
  t.deepEqual(texts("address[. = '10.0.0.2']"), ['10.0.0.2']);
  t.deepEqual(texts('../interface[mtu > 1500]/name'), ['lo', 'eth1']);
  t.deepEqual(texts('../interface[last()]/name'), ['eth1']);
  t.deepEqual(texts('../interface[position() = 2]/name'), ['lo']);
  t.deepEqual(texts('../interface[name = current()/../refs/lower]/mtu'), ['65536']);
  t.deepEqual(texts('//if:name'), ['eth0', 'lo', 'eth1']);
  t.deepEqual(texts('/descendant::mtu'), ['1500', '65536', '9000']);
  t.deepEqual(texts('following-sibling::interface/name'), ['lo', 'eth1']);
  t.deepEqual(texts('../interface[3]/preceding-sibling::interface[1]/name'), ['lo']);
  t.deepEqual(texts('ancestor::*').length, 1);
  t.deepEqual(texts('name | ../interface/mtu | name'), ['eth0', '1500', '65536', '9000']);
  t.deepEqual(texts('../interface[2]/following::mtu'), ['9000']);
  t.deepEqual(texts('../interface[2]/preceding::mtu'), ['1500']);
  t.deepEqual(texts('/'), [
    "eth0iana-if-type:ethernetCsmacd1500upa b10.0.0.110.0.0.2loiana-if-type:softwareLoopback65536downeth1iana-if-type:ethernetCsmacd9000lo/ietf-interfaces:interfaces/interface[name='eth1']/mtu",
  ]);
});

test('comparisons use node-set semantics', (t) => {
  t.is(ev('mtu = 1500'), true);
  t.is(ev("mtu = '1500'"), true);
  t.is(ev('../interface/mtu = 9000'), true);
  t.is(ev('../interface/mtu != 9000'), true);
  t.is(ev('not(../interface/mtu != 9000)'), false);
  t.is(ev('../interface/mtu > 60000'), true);
  t.is(ev('nothing = nothing'), false);
  t.is(ev('nothing != 1'), false);
  t.is(ev('address = ../interface/name'), false);
  t.is(ev("address = '10.0.0.2'"), true);
  t.is(ev('mtu = true()'), true);
  t.is(ev('nothing = false()'), true);
  t.is(ev('1 = 1.0 and "a" != "b" and 2 > 1 and not(2 < 1) and "10" > "9"'), true);
  t.is(ev('true() = "x"'), true);
  t.is(ev('address != address'), true, 'two distinct values differ from each other');
  t.is(ev('name != name'), false, 'one value equals itself');
  t.is(ev('../interface/name = name'), true);
  t.is(ev('address = ../interface/address'), true);
  t.is(ev('../interface/type = ../interface[name = "lo"]/type'), true);
});

test('identityref values match by bare name, prefixed name or module name', (t) => {
  t.is(ev("type = 'ethernetCsmacd'"), true);
  t.is(ev("type = 'ianaift:ethernetCsmacd'"), true);
  t.is(ev("type = 'iana-if-type:ethernetCsmacd'"), true);
  t.is(ev("type = 'softwareLoopback'"), false);
  t.is(ev("type != 'ethernetCsmacd'"), false);
  t.deepEqual(texts("../interface[type = 'ethernetCsmacd']/name"), ['eth0', 'eth1']);
  t.is(ev("derived-from(type, 'ianaift:iana-interface-type')"), true);
  t.is(ev("derived-from(type, 'ianaift:ethernetCsmacd')"), false);
  t.is(ev("derived-from-or-self(type, 'ianaift:ethernetCsmacd')"), true);
  t.regex(String(ev("derived-from(type, 'nope:x')")), /unknown prefix/);
});

test('arithmetic, strings and numbers follow XPath 1.0', (t) => {
  t.is(ev('1 + 2 * 3 - 4 div 2 mod 3'), 5);
  t.is(ev('-mtu'), -1500);
  t.is(ev('count(../interface)'), 3);
  t.is(ev('sum(../interface/mtu)'), 1500 + 65536 + 9000);
  t.is(ev('floor(2.5) + ceiling(2.5) + round(2.5) + round(-2.5)'), 2 + 3 + 3 - 2);
  t.true(Number.isNaN(ev("number('x')") as number));
  t.is(ev('string(1 div 0)'), 'Infinity');
  t.is(ev('string(0.5)'), '0.5');
  t.is(ev('string(100)'), '100');
  t.is(ev("concat(name, '-', mtu)"), 'eth0-1500');
  t.is(ev("substring('12345', 1.5, 2.6)"), '234');
  t.is(ev("substring('12345', 0, 3)"), '12');
  t.is(ev("substring-before('a/b/c', '/')"), 'a');
  t.is(ev("substring-after('a/b/c', '/')"), 'b/c');
  t.is(ev("translate('bar', 'abc', 'ABC')"), 'BAr');
  t.is(ev("translate('--aaa--', 'abc-', 'ABC')"), 'AAA');
  t.is(ev("normalize-space('  a   b  ')"), 'a b');
  t.is(ev('string-length(name)'), 4);
  t.is(ev("starts-with(name, 'eth') and contains(name, 'h0')"), true);
  t.is(ev('local-name()'), 'interface');
  t.is(ev('name(..)'), 'ietf-interfaces:interfaces');
  t.is(ev('namespace-uri(name)'), 'urn:test:ietf-interfaces');
  t.is(ev('boolean(address) and not(nothing)'), true);
  t.is(ev('string()'), 'eth0iana-if-type:ethernetCsmacd1500upa b10.0.0.110.0.0.2');
});

test('YANG functions: current, re-match, enum-value, bit-is-set, deref', (t) => {
  t.is(ev("re-match(name, 'eth[0-9]+')"), true);
  t.is(ev("re-match('xeth0', 'eth[0-9]+')"), false, 'patterns are anchored');
  t.is(ev("re-match('1.2.3.4', '\\d+(\\.\\d+){3}')"), true);
  t.regex(String(ev("re-match('a', '(')")), /pattern "\(" is invalid/);
  t.is(ev('enum-value(oper-status)'), 1);
  t.true(Number.isNaN(ev('enum-value(nothing)') as number));
  t.is(ev("bit-is-set(flags, 'b')"), true);
  t.is(ev("bit-is-set(flags, 'c')"), false);
  t.deepEqual(texts('deref(.)/../mtu', lowerLeaf), ['65536']);
  t.deepEqual(texts('deref(../target)', lowerLeaf), ['9000']);
  t.deepEqual(texts('current()/../lower', iidLeaf), ['lo']);
});

test('faults are errors, not exceptions', (t) => {
  t.regex(String(ev('nofunc()')), /unknown function nofunc\(\)/);
  t.regex(String(ev('count()')), /count\(\) takes 1 argument, not 0/);
  t.regex(String(ev('concat("a")')), /takes at least 2 arguments/);
  t.regex(String(ev('x:name')), /prefix "x" is not declared/);
  t.regex(String(ev('$v')), /variable \$v is not defined/);
  t.regex(String(ev('"a"[1]')), /predicates can only filter a node-set/);
  t.regex(String(ev('1 | 2')), /'\|' joins node-sets only/);
  t.regex(String(ev('count(1)')), /count\(\) needs a node-set/);
  t.regex(String(ev('a[')), /invalid XPath "a\[" at offset 2/);
});

test('key predicates use an index: 100,000 lookups over 100,000 entries stay fast', (t) => {
  const n = 100000;
  const entries = Array.from({ length: n }, (_, i) => [dLeaf(sName, `if${i}`), dLeaf(sMtu, i)]);
  const big = dRoot(dContainer(sTop, dList(sIface, ...entries)));
  const bigTop = [...XNode.root(big).children()][0]!;
  const all = [...bigTop.children()];
  const session = new XPathSession();
  const expr = xp("../interface[name = concat('if', current()/mtu)]/mtu", ifm);
  const cpuMs = cpuStopwatch();
  let found = 0;
  for (const entry of all) {
    const r = evaluateXPath(expr, entry, ctx, session);
    if ('value' in r && Array.isArray(r.value) && r.value.length === 1) found++;
  }
  const ms = cpuMs();
  t.is(found, n);
  t.log(`${n} keyed lookups in ${ms.toFixed(0)} ms of CPU`);
  t.true(ms < 3000, `a scan per lookup takes minutes; ${ms.toFixed(0)} ms of CPU`);
});

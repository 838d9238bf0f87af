/**
 * Building what goes on the wire without a device: subtree filters from paths and `fields`, edit-config
 * `<config>` from edits, RPC and action requests from RFC 7951 input, settings checks.
 */
import test from 'ava';
import { parseXml } from '@rosetta/sdk';
import {
  actionXml,
  editConfigXml,
  editsFromDocuments,
  FieldsSyntaxError,
  jsonToXml,
  parseFields,
  readNodeSettings,
  rpcXml,
  subtreeFilter,
  XmlBuildError,
} from '../src';
import { compileSources, testCodec } from './support/codec';

const IF = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const IP = 'urn:ietf:params:xml:ns:yang:ietf-ip';
const NS = new Map([
  ['ietf-interfaces', IF],
  ['ietf-ip', IP],
  ['iana-if-type', 'urn:ietf:params:xml:ns:yang:iana-if-type'],
  ['ietf-system', 'urn:ietf:params:xml:ns:yang:ietf-system'],
]);

test('fields: siblings, descent, sub-selection; a/b;c selects a/b and a/c', (t) => {
  t.deepEqual(parseFields('a/b;c'), [
    {
      member: 'a',
      children: [
        { member: 'b', children: [] },
        { member: 'c', children: [] },
      ],
    },
  ]);
  t.deepEqual(parseFields('x(y;z/w);v'), [
    {
      member: 'x',
      children: [
        { member: 'y', children: [] },
        { member: 'z', children: [{ member: 'w', children: [] }] },
      ],
    },
    { member: 'v', children: [] },
  ]);
  for (const bad of ['', 'a;', 'a(b', 'a)b', 'a//b', 'a b', '(a)'])
    t.throws(() => parseFields(bad), { instanceOf: FieldsSyntaxError }, bad);
});

test('subtree filter from a path with keys: containment, content match, selection', (t) => {
  t.is(subtreeFilter('/', undefined, NS), undefined);
  t.is(
    subtreeFilter("/ietf-interfaces:interfaces/interface[name='eth0']/mtu", undefined, NS),
    `<filter type="subtree"><interfaces xmlns="${IF}"><interface><name>eth0</name><mtu/></interface></interfaces></filter>`,
  );
  t.is(
    subtreeFilter("/ietf-interfaces:interfaces/interface[name='a<b']", 'description;ietf-ip:ipv4/address', NS),
    `<filter type="subtree"><interfaces xmlns="${IF}"><interface><name>a&lt;b</name><description/><ipv4 xmlns="${IP}"><address/></ipv4></interface></interfaces></filter>`,
  );
  t.is(
    subtreeFilter('/', 'ietf-system:system(contact;location)', NS),
    '<filter type="subtree"><system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><contact/><location/></system></filter>',
  );
  parseXml(subtreeFilter("/ietf-interfaces:interfaces/interface[name='x']", 'a(b;c)', NS)!);
  t.throws(() => subtreeFilter('/nope:x', undefined, NS), { instanceOf: XmlBuildError, message: /no namespace known for module nope/ });
  t.throws(() => subtreeFilter('interfaces', undefined, NS), { instanceOf: XmlBuildError });
  t.throws(() => subtreeFilter('/', 'contact', NS), { instanceOf: XmlBuildError, message: /module-qualified/ });
});

test('edit-config: ancestors with keys first, operation on the target, edits sharing ancestors merged', (t) => {
  const xml = editConfigXml(
    [
      {
        operation: 'replace',
        path: "/ietf-interfaces:interfaces/interface[name='eth1']",
        value: {
          'ietf-interfaces:interface': [
            { type: 'iana-if-type:ethernetCsmacd', name: 'eth1', 'ietf-ip:ipv4': { address: [{ ip: '192.0.2.1', 'prefix-length': 24 }] } },
          ],
        },
      },
      { operation: 'delete', path: "/ietf-interfaces:interfaces/interface[name='eth2']" },
      { operation: 'merge', path: '/ietf-system:system/contact', value: { 'ietf-system:contact': 'noc' } },
    ],
    NS,
  );
  const root = parseXml(xml);
  t.is(root.name, 'config');
  const interfaces = root.children[0]!;
  t.is(interfaces.children.length, 2, 'both interface edits under one <interfaces>');
  const eth1 = interfaces.children[0]!;
  t.is(eth1.attrs['nc:operation'], 'replace');
  t.deepEqual(
    eth1.children.map((c) => c.name),
    ['name', 'type', 'ipv4'],
    'key first',
  );
  t.is(eth1.children[1]!.scope.get('iana-if-type'), 'urn:ietf:params:xml:ns:yang:iana-if-type', 'identityref prefix declared');
  t.is(eth1.children[2]!.ns, IP);
  t.is(eth1.children[2]!.children[0]!.children[1]!.text, '24');
  t.is(interfaces.children[1]!.attrs['nc:operation'], 'delete');
  t.is(interfaces.children[1]!.children[0]!.text, 'eth2');
  t.is(root.children[1]!.children[0]!.attrs['nc:operation'], 'merge');
  t.throws(() => editConfigXml([{ operation: 'merge', path: '/ietf-system:system/contact', value: { 'ietf-system:location': 'x' } }], NS), {
    message: /not the target/,
  });
  t.throws(() => editConfigXml([{ operation: 'create', path: '/ietf-system:system' }], NS), { message: /exactly one member/ });
});

test('JSON to XML: lists, leaf-lists, empty, numbers as text, bad input refused', (t) => {
  t.is(
    jsonToXml({ 'ietf-system:system': { 'dns-resolver': { search: ['a.example', 'b.example'] }, x: [null], n: 5, b: false } }, NS),
    '<system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><dns-resolver><search>a.example</search><search>b.example</search></dns-resolver><x/><n>5</n><b>false</b></system>',
  );
  t.throws(() => jsonToXml({ system: {} }, NS), { message: /module-qualified/ });
  t.throws(() => jsonToXml({ 'ietf-system:system': { 'bad name': 1 } }, NS), { message: /not a member name/ });
  let deep: Record<string, unknown> = {};
  const top = deep;
  for (let i = 0; i < 1000; i++) {
    const next = {};
    deep['a'] = next;
    deep = next;
  }
  t.throws(() => jsonToXml({ 'ietf-system:system': top as never }, NS), { message: /deeper than/ });
});

test('edits from before/after documents when the core gives none', (t) => {
  t.deepEqual(editsFromDocuments({ 'm:a': { x: 1 }, 'm:b': 1, 'm:c': 2 }, { 'm:a': { x: 2 }, 'm:c': 2 }), [
    { operation: 'replace', path: '/m:a', value: { 'm:a': { x: 2 } } },
    { operation: 'remove', path: '/m:b' },
  ]);
});

/** A device schema with an rpc and an action whose input holds an identityref from another module. */
const OPS = compileSources([
  {
    name: 'ops-types',
    text: `module ops-types { yang-version 1.1; namespace "urn:ex:ops-types"; prefix ot;
      identity reason; identity maintenance { base reason; } }`,
  },
  {
    name: 'ops',
    text: `module ops { yang-version 1.1; namespace "urn:ex:ops"; prefix op; import ops-types { prefix t; }
      rpc restart { input { leaf why { type identityref { base t:reason; } } leaf-list tag { type string; } } }
      rpc ping;
      container interfaces { list interface { key name; leaf name { type string; }
        action reset { input { leaf delay { type uint8; } leaf why { type identityref { base t:reason; } } } } } } }`,
  },
]);
const OPS_NS = new Map([
  ['ops', 'urn:ex:ops'],
  ['ops-types', 'urn:ex:ops-types'],
]);

test('RPC and action requests: input written from the device schema, identityrefs with their module prefix declared', (t) => {
  const codec = testCodec(OPS);
  t.is(rpcXml('ops:ping', {}, OPS_NS, codec), '<ping xmlns="urn:ex:ops"/>');
  const rpc = parseXml(rpcXml('ops:restart', { tag: ['a', 'b'], why: 'ops-types:maintenance' }, OPS_NS, codec));
  t.is(rpc.ns, 'urn:ex:ops');
  t.deepEqual(
    rpc.children.map((c) => [c.name, c.ns, c.text]),
    [
      ['why', 'urn:ex:ops', 'ot:maintenance'],
      ['tag', 'urn:ex:ops', 'a'],
      ['tag', 'urn:ex:ops', 'b'],
    ],
  );
  t.regex(rpcXml('ops:restart', { why: 'ops-types:maintenance' }, OPS_NS, codec), /<why xmlns:ot="urn:ex:ops-types">ot:maintenance<\/why>/);
  const action = parseXml(
    actionXml("/ops:interfaces/interface[name='eth0']/reset", { delay: 5, why: 'ops-types:maintenance' }, OPS_NS, codec),
  );
  t.is(action.ns, 'urn:ietf:params:xml:ns:yang:1');
  const iface = action.children[0]!.children[0]!;
  t.deepEqual(
    iface.children.map((c) => c.name),
    ['name', 'reset'],
  );
  t.is(iface.children[1]!.children[0]!.text, '5');
  t.is(iface.children[1]!.children[1]!.text, 'ot:maintenance');
  t.throws(() => actionXml('/ops:reset', {}, OPS_NS, codec), { message: /top level/ });
  // a value the schema refuses is refused before anything is sent
  t.throws(() => rpcXml('ops:restart', { why: 'ops-types:nothing' }, OPS_NS, codec));
  t.throws(() => rpcXml('ops:nope', {}, OPS_NS, codec), { message: /no operation/ });
});

test('settings: defaults, numeric strings, every bad member named', (t) => {
  const ok = readNodeSettings({ host: '127.0.0.1', port: '830', username: 'u', password: 'p' });
  t.true(ok.ok);
  if (ok.ok) {
    t.is(ok.value.port, 830);
    t.is(ok.value.maxConnectionAttempts, 1);
    t.is(ok.value.keepaliveDelay, 120);
  }
  const bad = readNodeSettings({ port: 70000, username: 'u', password: 'p', 'keepalive-delay': -1, colour: 'red' });
  t.false(bad.ok);
  if (!bad.ok) {
    t.true(bad.problems.some((p) => p.startsWith('host')));
    t.true(bad.problems.some((p) => p.startsWith('port')));
    t.true(bad.problems.some((p) => p.startsWith('keepalive-delay')));
    t.true(bad.problems.some((p) => p.startsWith('colour')));
  }
  const key = `SHA256:${'k'.repeat(43)}`;
  const pinned = readNodeSettings({ host: 'h', username: 'u', password: 'p', 'host-key': key });
  t.true(pinned.ok && pinned.value.hostKey === key);
  const tcp = readNodeSettings({ host: 'h', username: 'u', password: 'p', 'tcp-only': true, 'host-key': key });
  t.deepEqual(tcp.ok ? [] : tcp.problems, ['host-key: a plain TCP session (tcp-only) has no SSH host key to pin']);
  t.true(ok.ok && ok.value.hostKeyVerification === 'accept-any', 'any key unless asked otherwise');
  const tofu = readNodeSettings({ host: 'h', username: 'u', password: 'p', 'host-key-verification': 'trust-on-first-use' });
  t.true(tofu.ok && tofu.value.hostKeyVerification === 'trust-on-first-use');
  const tcpTofu = readNodeSettings({
    host: 'h',
    username: 'u',
    password: 'p',
    'tcp-only': true,
    'host-key-verification': 'trust-on-first-use',
  });
  t.deepEqual(tcpTofu.ok ? [] : tcpTofu.problems, ['host-key-verification: a plain TCP session (tcp-only) has no SSH host key to trust']);
});

import test from 'ava';
import { decodeJson, decodeXml, encodeJson, encodeXml, DataError, type ContainerNode, type LeafNode } from '../../src/data';
import { schema } from './fixture';

function faultOf(fn: () => unknown): { tag: string; path: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof DataError) return e.first;
    throw e;
  }
  throw new Error('no DataError thrown');
}

const IF_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const IP_NS = 'urn:ietf:params:xml:ns:yang:ietf-ip';

test('decodes XML with namespaces, prefixed identityref values and an augment', (t) => {
  const xml = `<?xml version="1.0"?>
<interfaces xmlns="${IF_NS}" xmlns:ift="urn:ietf:params:xml:ns:yang:iana-if-type">
  <interface>
    <description>up &amp; &#65;way</description>
    <name>eth0</name>
    <type>ift:ethernetCsmacd</type>
    <ipv4 xmlns="${IP_NS}"><mtu>1500</mtu></ipv4>
  </interface>
  <interface><name>eth1</name><type xmlns:x="urn:ietf:params:xml:ns:yang:iana-if-type">x:softwareLoopback</type></interface>
</interfaces>`;
  const { node } = decodeXml(xml, schema());
  t.deepEqual(JSON.parse(encodeJson(node!)), {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'eth0', description: 'up & Away', type: 'iana-if-type:ethernetCsmacd', 'ietf-ip:ipv4': { mtu: 1500 } },
        { name: 'eth1', type: 'iana-if-type:softwareLoopback' },
      ],
    },
  });
});

test('encodes XML: xmlns where the module changes, identityref prefixes declared, keys first', (t) => {
  const ctx = schema();
  const { node } = decodeJson(
    {
      'ietf-interfaces:interfaces': { interface: [{ type: 'iana-if-type:ethernetCsmacd', name: 'eth0', 'ietf-ip:ipv4': { mtu: 1500 } }] },
    },
    ctx,
  );
  t.is(
    encodeXml(node!, ctx),
    `<interfaces xmlns="${IF_NS}"><interface><name>eth0</name>` +
      '<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>' +
      `<ipv4 xmlns="${IP_NS}"><mtu>1500</mtu></ipv4></interface></interfaces>`,
  );
});

test('encodes runs of tags and cached elements as they are, however long, and the same again on the next document', (t) => {
  const ctx = schema();
  const entries = Array.from({ length: 3000 }, (_, i) => ({
    name: `e${i}`,
    enabled: i % 3 !== 0,
    type: i % 2 ? 'iana-if-type:ethernetCsmacd' : 'iana-if-type:softwareLoopback',
  }));
  const { node } = decodeJson({ 'ietf-interfaces:interfaces': { interface: entries } }, ctx);
  const expected =
    `<interfaces xmlns="${IF_NS}">` +
    entries
      .map(
        (e) =>
          `<interface><name>${e.name}</name>` +
          `<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:${e.type.split(':')[1]}</type>` +
          `<enabled>${e.enabled}</enabled></interface>`,
      )
      .join('') +
    '</interfaces>';
  t.is(encodeXml(node!, ctx), expected);
  t.is(encodeXml(node!, ctx), expected, 'the runs remembered from the first document');
  // 400 empty values: one run of constant pieces far past the bound on a run's length
  const kinds = decodeJson({ 'data-kinds:kinds': { tags: ['x'] } }, ctx).node as ContainerNode;
  const tags = { ...kinds.children[0]!, values: Array.from({ length: 400 }, () => '') } as (typeof kinds.children)[0];
  t.is(encodeXml({ ...kinds, children: [tags] }, ctx), `<kinds xmlns="urn:rosetta:test:data-kinds">${'<tags/>'.repeat(400)}</kinds>`);
});

test('list entries of changing shapes (leaves coming and going, attributes, keys given last, inner nodes) round-trip exactly', (t) => {
  const ctx = schema();
  let seed = 11;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const entries = Array.from({ length: 300 }, (_, i) => {
    const entry: Record<string, unknown> = {};
    if (random() < 0.3) entry['description'] = `d&<${i}>`;
    if (random() < 0.5) entry['enabled'] = random() < 0.5;
    if (random() < 0.2) entry['enabled'] = { '@': { 'ietf-origin:origin': 'ietf-origin:learned' }, '#': random() < 0.5 };
    if (random() < 0.3) entry['ietf-ip:ipv4'] = { mtu: 1280 + i };
    entry['name'] = `if${i}`; // the key last, as a client may send it
    if (random() < 0.7) entry['type'] = 'iana-if-type:ethernetCsmacd';
    return entry;
  });
  const doc = { 'ietf-interfaces:interfaces': { interface: entries } };
  const { root } = decodeJson(doc, ctx);
  const xml = encodeXml(root, ctx);
  t.deepEqual(JSON.parse(encodeJson(decodeXml(xml, ctx).root)), JSON.parse(encodeJson(root)));
  t.is(encodeXml(root, ctx), xml, 'the same text again, shapes remembered');
});

test('round trip JSON -> tree -> XML -> tree -> JSON keeps every node kind and attribute', (t) => {
  const ctx = schema();
  const doc = {
    'data-kinds:kinds': {
      '@': { note: 'top <&"> ' },
      flag: [null],
      big: '-9007199254740993',
      counter: '18446744073709551615',
      ratio: '3.1',
      small: { '@': { weight: 7 }, '#': -3 },
      mask: 'read write',
      either: 42,
      iftype: 'iana-if-type:ieee8023adLag',
      color: 'green',
      tags: [{ '@': { note: 'first' }, '#': 'b' }, 'a', 'c'],
      numbers: [5, 1],
      blob: { anything: ['1', { deep: 'x' }], 'ietf-interfaces:other': 'y' },
      route: [
        { prefix: '10.0.0.0/8', metric: 10, 'next-hop': '192.0.2.9' },
        { prefix: '10.0.0.0/8', metric: 20 },
      ],
      rule: [{ name: 'z', '@': { note: 'entry' }, match: { port: 22 } }, { name: 'a' }],
    },
    'ietf-system:system': { 'dns-resolver': { search: ['b.example', 'a.example'] }, ntp: {} },
  };
  const first = decodeJson(doc, ctx);
  const xml = encodeXml(first.root, ctx);
  t.true(xml.startsWith('<data xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf">'));
  const second = decodeXml(xml, ctx);
  t.deepEqual(JSON.parse(encodeJson(second.root)), JSON.parse(encodeJson(first.root)));
  t.deepEqual(JSON.parse(encodeJson(second.root)), doc);
});

test('leaf-lists and ordered-by user lists keep document order even when interleaved', (t) => {
  const ctx = schema();
  const xml = `<kinds xmlns="urn:rosetta:test:data-kinds"><tags>z</tags><small>1</small><tags>a</tags>
    <rule><name>b</name></rule><rule><name>a</name></rule></kinds>`;
  const out = JSON.parse(encodeJson(decodeXml(xml, ctx).root));
  t.deepEqual(out, { 'data-kinds:kinds': { small: 1, tags: ['z', 'a'], rule: [{ name: 'b' }, { name: 'a' }] } });
});

test('XML faults: unknown namespace, unknown element, bad value with path, malformed text, DOCTYPE', (t) => {
  const ctx = schema();
  t.is(faultOf(() => decodeXml('<interfaces xmlns="urn:nowhere"/>', ctx)).tag, 'unknown-namespace');
  t.is(faultOf(() => decodeXml('<interfaces/>', ctx)).tag, 'unknown-namespace');
  let f = faultOf(() => decodeXml(`<interfaces xmlns="${IF_NS}"><interface><name>e'"</name><bogus/></interface></interfaces>`, ctx));
  t.is(f.tag, 'unknown-element');
  t.is(f.path, `/ietf-interfaces:interfaces/interface[name=concat('e', "'", '"')]/ietf-interfaces:bogus`);
  f = faultOf(() => decodeXml(`<interfaces xmlns="${IF_NS}"><interface><name>e</name><type>nope:x</type></interface></interfaces>`, ctx));
  t.is(f.tag, 'invalid-value');
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='e']/type");
  f = faultOf(() => decodeXml('<a><b></a>', ctx));
  t.is(f.tag, 'malformed-message');
  t.regex(f.message, /line 1, column \d+/);
  t.is(faultOf(() => decodeXml('<!DOCTYPE a [<!ENTITY x "y">]><a/>', ctx)).tag, 'malformed-message');
  f = faultOf(() => decodeXml(`<kinds xmlns="urn:rosetta:test:data-kinds" xmlns:o="urn:nowhere" o:x="1"/>`, ctx));
  t.is(f.tag, 'unknown-namespace');
  f = faultOf(() => decodeXml(`<kinds xmlns="urn:rosetta:test:data-kinds" xmlns:dk="urn:rosetta:test:data-kinds" dk:nope="1"/>`, ctx));
  t.is(f.tag, 'unknown-attribute');
  f = faultOf(() => decodeXml(`<kinds xmlns="urn:rosetta:test:data-kinds"><small>1</small><small>2</small></kinds>`, ctx));
  t.is(f.tag, 'invalid-value');
});

test('10,000 nested XML elements are refused, not a stack overflow', (t) => {
  const ctx = schema();
  const deep = `<kinds xmlns="urn:rosetta:test:data-kinds"><blob>${'<a>'.repeat(10000)}${'</a>'.repeat(10000)}</blob></kinds>`;
  t.is(faultOf(() => decodeXml(deep, ctx)).tag, 'malformed-message');
});

test('RFC 7952 attributes in XML are attributes in their module namespace', (t) => {
  const ctx = schema();
  const { node } = decodeJson(
    { 'data-kinds:kinds': { small: { '@': { weight: 7, 'ietf-origin:origin': 'ietf-origin:learned' }, '#': 1 } } },
    ctx,
  );
  const xml = encodeXml(node!, ctx);
  t.is(
    xml,
    '<kinds xmlns="urn:rosetta:test:data-kinds"><small xmlns:dk="urn:rosetta:test:data-kinds" ' +
      'xmlns:or="urn:ietf:params:xml:ns:yang:ietf-origin" dk:weight="7" or:origin="or:learned">1</small></kinds>',
  );
  const back = decodeXml(xml, ctx).node as ContainerNode;
  t.deepEqual((back.children[0] as LeafNode).attributes, { 'data-kinds:weight': 7, 'ietf-origin:origin': 'ietf-origin:learned' });
});

test('leaves of few values (boolean, enumeration, identityref) written from the element cache stay exact: attributes, other modules, escaping', (t) => {
  const ctx = schema();
  // the same values again and again (cached whole), with attributes on some (never from the cache), and
  // ietf-ip's boolean `enabled` under ipv4 (a leaf of the same name in another module)
  const doc = {
    'ietf-interfaces:interfaces': {
      interface: Array.from({ length: 40 }, (_, i) => ({
        name: `eth${i}`,
        type: i % 2 ? 'iana-if-type:ethernetCsmacd' : 'iana-if-type:softwareLoopback',
        enabled: i % 5 === 0 ? { '@': { 'ietf-origin:origin': 'ietf-origin:learned' }, '#': i % 3 !== 0 } : i % 3 !== 0,
        'ietf-ip:ipv4': { enabled: i % 2 === 0, forwarding: true },
      })),
    },
    'data-kinds:kinds': { color: 'green', tags: ['a&b', 'c>d'] },
  };
  const root = decodeJson(doc, ctx).root;
  for (let round = 0; round < 2; round++) {
    // the second round writes from the caches the first filled
    const xml = encodeXml(root, ctx);
    t.regex(xml, /<ipv4 xmlns="urn:ietf:params:xml:ns:yang:ietf-ip"><enabled>true<\/enabled>/);
    t.regex(xml, /<enabled xmlns:or="urn:ietf:params:xml:ns:yang:ietf-origin" or:origin="or:learned">false<\/enabled>/);
    t.regex(xml, /<color>green<\/color><tags>a&amp;b<\/tags><tags>c&gt;d<\/tags>/);
    t.deepEqual(JSON.parse(encodeJson(decodeXml(xml, ctx).root)), JSON.parse(encodeJson(root)));
  }
});

test('a list entry without its key is missing-element at the entry, not a crash', (t) => {
  const e = t.throws(
    () =>
      decodeXml(
        '<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><description>d</description></interface></interfaces>',
        schema(),
      ),
    { instanceOf: DataError },
  )!;
  t.is(e.first.tag, 'missing-element');
  t.is(e.first.path, "/ietf-interfaces:interfaces/interface[name='']");
  t.regex(e.first.message, /lacks its key 'name'/);
});

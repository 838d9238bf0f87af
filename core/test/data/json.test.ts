import test from 'ava';
import { decodeJson, encodeJson, DataError, type ContainerNode, type ListNode, type LeafNode } from '../../src/data';
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

const interfaces = {
  'ietf-interfaces:interfaces': {
    interface: [
      {
        name: 'eth0',
        description: 'uplink',
        type: 'iana-if-type:ethernetCsmacd',
        enabled: true,
        'ietf-ip:ipv4': { address: [{ ip: '192.0.2.1', 'prefix-length': 24 }], mtu: 1500 },
      },
      { name: 'lo', type: 'iana-if-type:softwareLoopback' },
    ],
  },
};

test('decodes ietf-interfaces with the ietf-ip augment into typed nodes', (t) => {
  const { root, node } = decodeJson(JSON.stringify(interfaces), schema());
  t.is(root.children.length, 1);
  const top = node as ContainerNode;
  t.is(top.schema.name, 'interfaces');
  const list = top.children[0] as ListNode;
  t.is(list.kind, 'list');
  t.is(list.entries.length, 2);
  const eth0 = list.entries[0]!;
  t.deepEqual(
    eth0.children.map((c) => c.schema.name),
    ['name', 'description', 'type', 'enabled', 'ipv4'],
  );
  t.is((eth0.children[2] as LeafNode).value, 'iana-if-type:ethernetCsmacd');
  const ipv4 = eth0.children[4] as ContainerNode;
  t.is(ipv4.schema.module.name, 'ietf-ip');
  t.deepEqual(
    ipv4.children.map((c) => c.schema.name),
    ['mtu', 'address'],
  ); // schema order, not document order
});

test('round trip JSON -> tree -> JSON is RFC 7951 (module prefix only where the module changes)', (t) => {
  const ctx = schema();
  const text = encodeJson(decodeJson(interfaces, ctx).root);
  t.deepEqual(JSON.parse(text), {
    'ietf-interfaces:interfaces': {
      interface: [
        {
          name: 'eth0',
          description: 'uplink',
          type: 'iana-if-type:ethernetCsmacd',
          enabled: true,
          'ietf-ip:ipv4': { mtu: 1500, address: [{ ip: '192.0.2.1', 'prefix-length': 24 }] },
        },
        { name: 'lo', type: 'iana-if-type:softwareLoopback' },
      ],
    },
  });
});

test('64-bit integers and decimal64 are strings, empty is [null], and all kinds round trip', (t) => {
  const ctx = schema();
  const doc = {
    'data-kinds:kinds': {
      flag: [null],
      big: '-9007199254740993',
      counter: '18446744073709551615',
      ratio: '3.10',
      small: -3,
      mask: 'write read',
      either: 'text',
      iftype: 'iana-if-type:ieee8023adLag',
      color: 'green',
      tags: ['b', 'a', 'c'],
      numbers: [5, 1],
      blob: { anything: [1, { deep: true }] },
      route: [
        { prefix: '10.0.0.0/8', metric: 10, 'next-hop': '192.0.2.9' },
        { prefix: '10.0.0.0/8', metric: 20 },
      ],
      rule: [{ name: 'z', match: { port: 22 } }, { name: 'a' }],
    },
  };
  const { node } = decodeJson(doc, ctx);
  const kinds = node as ContainerNode;
  const leaf = (name: string) => (kinds.children.find((c) => c.schema.name === name) as LeafNode).value;
  t.is(leaf('flag'), null);
  t.is(leaf('big'), -9007199254740993n);
  t.is(leaf('counter'), 18446744073709551615n);
  t.is(leaf('ratio'), '3.1');
  t.is(leaf('mask'), 'read write');
  const out = JSON.parse(encodeJson(node!));
  t.deepEqual(out['data-kinds:kinds'].flag, [null]);
  t.is(out['data-kinds:kinds'].big, '-9007199254740993');
  t.is(out['data-kinds:kinds'].ratio, '3.1');
  t.deepEqual(out['data-kinds:kinds'].tags, ['b', 'a', 'c']);
  t.deepEqual(out['data-kinds:kinds'].blob, { anything: [1, { deep: true }] });
  t.deepEqual(out['data-kinds:kinds'].route[1], { prefix: '10.0.0.0/8', metric: 20 });
  t.deepEqual(
    out['data-kinds:kinds'].rule.map((r: { name: string }) => r.name),
    ['z', 'a'],
  );
  // A second round trip is stable.
  t.is(encodeJson(decodeJson(encodeJson(node!), ctx).root), encodeJson(node!));
});

test("attributes: declared annotations per docs/restconf-api.md#attributes-in-json, module left out when it is the node's", (t) => {
  const ctx = schema();
  const doc = {
    'data-kinds:kinds': {
      '@': { note: 'top', 'ietf-origin:origin': 'ietf-origin:intended' },
      small: { '@': { weight: 7 }, '#': 3 },
      tags: { '@': { note: 'all' }, '#': [{ '@': { note: 'first' }, '#': 'x' }, 'y'] },
      rule: { '@': { note: 'list' }, '#': [{ name: 'r1', '@': { note: 'entry' } }] },
    },
  };
  const { node } = decodeJson(doc, ctx);
  t.deepEqual(node!.attributes, { 'data-kinds:note': 'top', 'ietf-origin:origin': 'ietf-origin:intended' });
  t.deepEqual(JSON.parse(encodeJson(node!)), doc);
  t.deepEqual(JSON.parse(encodeJson(node!, { attributes: false })), {
    'data-kinds:kinds': { small: 3, tags: ['x', 'y'], rule: [{ name: 'r1' }] },
  });
});

test('an undeclared attribute is unknown-attribute; a badly typed one bad-attribute', (t) => {
  const ctx = schema();
  const f = faultOf(() => decodeJson({ 'data-kinds:kinds': { small: { '@': { 'data-kinds:nope': 1 }, '#': 3 } } }, ctx));
  t.is(f.tag, 'unknown-attribute');
  t.is(f.path, '/data-kinds:kinds/small');
  t.is(faultOf(() => decodeJson({ 'data-kinds:kinds': { '@': { weight: 300 } } }, ctx)).tag, 'bad-attribute');
  t.is(faultOf(() => decodeJson({ 'data-kinds:kinds': { '@': { note: 'x' } } }, ctx, { allowAttributes: false })).tag, 'unknown-attribute');
  // Names the caller allows (RESTCONF apply-tags) pass without a declaration.
  const { node } = decodeJson({ 'data-kinds:kinds': { '@': { operation: 'replace' } } }, ctx, { extraAttributes: new Set(['operation']) });
  t.deepEqual(node!.attributes, { operation: 'replace' });
});

test('errors carry the instance path and the rule', (t) => {
  const ctx = schema();
  let f = faultOf(() =>
    decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', 'ietf-ip:ipv4': { mtu: 70000 } }] } }, ctx),
  );
  t.is(f.tag, 'invalid-value');
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/mtu");
  t.regex(f.message, /70000/);
  f = faultOf(() => decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ name: "it's", bogus: 1 }] } }, ctx));
  t.is(f.tag, 'unknown-element');
  t.is(f.path, `/ietf-interfaces:interfaces/interface[name="it's"]/bogus`);
  f = faultOf(() => decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ description: 'no key' }] } }, ctx));
  t.is(f.tag, 'missing-element');
  f = faultOf(() => decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ name: 'a' }, { name: 'a' }] } }, ctx));
  t.is(f.tag, 'invalid-value');
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='a']");
  f = faultOf(() =>
    decodeJson(
      {
        'data-kinds:kinds': {
          route: [
            { prefix: 'p', metric: 1 },
            { prefix: 'p', metric: 1 },
          ],
        },
      },
      ctx,
    ),
  );
  t.is(f.path, "/data-kinds:kinds/route[prefix='p'][metric='1']");
  f = faultOf(() => decodeJson({ 'data-kinds:kinds': { numbers: [1, 1] } }, ctx));
  t.is(f.tag, 'invalid-value');
  f = faultOf(() => decodeJson({ 'data-kinds:kinds': { big: 5 } }, ctx));
  t.is(f.tag, 'invalid-value'); // int64 must be a string in RFC 7951
  f = faultOf(() => decodeJson({ nomodule: {} }, ctx));
  t.is(f.tag, 'unknown-element');
  f = faultOf(() => decodeJson({ 'data-kinds:kinds': { state: { uptime: 1 } } }, ctx, { allowState: false }));
  t.is(f.path, '/data-kinds:kinds/state');
  f = faultOf(() => decodeJson({ 'data-kinds:kinds': { small: { note: 1 } } }, ctx));
  t.is(f.tag, 'invalid-value');
});

test('malformed JSON is malformed-message with line and column', (t) => {
  const f = faultOf(() => decodeJson('{\n  "a": [1,\n  }', schema()));
  t.is(f.tag, 'malformed-message');
  t.regex(f.message, /line 3, column 3/);
  t.is(faultOf(() => decodeJson('', schema())).tag, 'malformed-message');
  t.is(faultOf(() => decodeJson('[1]', schema())).tag, 'malformed-message');
});

test('10,000 levels of nesting neither overflow nor hang: unknown-element / malformed-message', (t) => {
  const ctx = schema();
  const deep = `${'{"data-kinds:kinds":'.padEnd(0) + '{"x":'.repeat(10000)}1${'}'.repeat(10000)}}`;
  t.is(faultOf(() => decodeJson(deep, ctx)).tag, 'unknown-element');
  const deepAny = `{"data-kinds:kinds":{"blob":${'['.repeat(10000)}${']'.repeat(10000)}}}`;
  t.is(faultOf(() => decodeJson(deepAny, ctx)).tag, 'malformed-message');
});

test('a document under a RESTCONF target: members are the children of options.parent', (t) => {
  const ctx = schema();
  const interfacesSchema = decodeJson(interfaces, ctx).node!.schema;
  const { node } = decodeJson({ 'ietf-interfaces:interface': [{ name: 'eth9' }] }, ctx, {
    parent: interfacesSchema,
    parentPath: '/ietf-interfaces:interfaces',
  });
  t.is(node!.kind, 'list');
  const f = faultOf(() =>
    decodeJson({ interface: [{ name: 'eth9', mtu: 1 }] }, ctx, { parent: interfacesSchema, parentPath: '/ietf-interfaces:interfaces' }),
  );
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='eth9']/mtu");
  t.is(encodeJson((node as ListNode).entries[0]!), '{"ietf-interfaces:interface":[{"name":"eth9"}]}');
});

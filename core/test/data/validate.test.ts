/**
 * Validation with RFC 7951 JSON documents on the compact test models of core/test/models, in the
 * shape of the published ietf-interfaces, ietf-ip, ietf-system, ietf-routing and OpenConfig modules
 * (their musts, whens, mandatory choices and leafrefs). Expected faults were checked against yanglint
 * 2.1.30 (`yanglint -t config|data` on the same documents, with the published modules) where it
 * reports the same condition.
 */
import test from 'ava';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import { decodeJson } from '../../src/data/json-decode';
import { validateTree, type ValidateOptions } from '../../src/data/validate';
import type { SchemaContext } from '../../src/yang/schema';
import { MODEL_DIRS } from './fixture';

function compiled(...modules: string[]): SchemaContext {
  const ctx = compileSchema(new ModuleRepository([...MODEL_DIRS]), { modules });
  const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'));
  return ctx;
}

const ifCtx = compiled('ietf-interfaces', 'iana-if-type', 'ietf-ip');

function check(ctx: SchemaContext, doc: unknown, options: ValidateOptions = { type: 'config' }): string[] {
  const { root } = decodeJson(doc, ctx);
  return validateTree(root, ctx, options).map((f) => `${f.tag} ${f.path}${f.appTag ? ` [${f.appTag}]` : ''}: ${f.message}`);
}

const eth0 = { name: 'eth0', type: 'iana-if-type:ethernetCsmacd' };

test('a valid ietf-interfaces + ietf-ip configuration has no faults', (t) => {
  t.deepEqual(
    check(ifCtx, {
      'ietf-interfaces:interfaces': {
        interface: [
          { ...eth0, enabled: true, 'ietf-ip:ipv4': { address: [{ ip: '10.0.0.1', 'prefix-length': 24 }] } },
          { name: 'lo', type: 'iana-if-type:softwareLoopback', 'ietf-ip:ipv6': { address: [{ ip: '::1', 'prefix-length': 128 }] } },
        ],
      },
    }),
    [],
  );
});

test('a missing mandatory leaf is reported at its would-be path', (t) => {
  t.deepEqual(check(ifCtx, { 'ietf-interfaces:interfaces': { interface: [{ name: 'eth0' }] } }), [
    'missing-element /ietf-interfaces:interfaces/interface[name=\'eth0\']/type: mandatory leaf "type" is missing',
  ]);
});

test('a mandatory choice without data is missing-choice, at the entry, across a module boundary', (t) => {
  t.deepEqual(
    check(ifCtx, { 'ietf-interfaces:interfaces': { interface: [{ ...eth0, 'ietf-ip:ipv4': { address: [{ ip: '10.0.0.1' }] } }] } }),
    [
      "data-missing /ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/address[ip='10.0.0.1'] [missing-choice]: mandatory choice \"subnet\" has no data",
    ],
  );
});

test('state data is refused in a configuration but accepted as data, where its own mandatory leaves count', (t) => {
  const doc = { 'ietf-interfaces:interfaces': { interface: [{ ...eth0, 'oper-status': 'up' }] } };
  t.deepEqual(check(ifCtx, doc), [
    'invalid-value /ietf-interfaces:interfaces/interface[name=\'eth0\']/oper-status: state data node "oper-status" is not allowed in configuration data',
  ]);
  // As operational data, the state leaves that are mandatory (if-index, phys-address is optional, statistics/discontinuity-time) are required.
  const faults = check(ifCtx, doc, { type: 'data' });
  t.true(
    faults.includes('missing-element /ietf-interfaces:interfaces/interface[name=\'eth0\']/if-index: mandatory leaf "if-index" is missing'),
    faults.join('\n'),
  );
  t.true(
    faults.includes(
      'missing-element /ietf-interfaces:interfaces/interface[name=\'eth0\']/statistics/discontinuity-time: mandatory leaf "discontinuity-time" is missing',
    ),
    faults.join('\n'),
  );
});

test('leafrefs are checked only when asked, against the target instances', (t) => {
  const doc = (lower: string) => ({
    'ietf-interfaces:interfaces': {
      interface: [
        {
          ...eth0,
          'admin-status': 'up',
          'oper-status': 'up',
          'if-index': 1,
          statistics: { 'discontinuity-time': '2024-01-01T00:00:00Z' },
          'lower-layer-if': [lower],
        },
      ],
    },
  });
  t.deepEqual(check(ifCtx, doc('eth0'), { type: 'data', checkLeafrefs: true }), []);
  t.deepEqual(check(ifCtx, doc('eth9'), { type: 'data' }), []);
  t.deepEqual(check(ifCtx, doc('eth9'), { type: 'data', checkLeafrefs: true }), [
    "data-missing /ietf-interfaces:interfaces/interface[name='eth0']/lower-layer-if[.='eth9'] [instance-required]: leafref value \"eth9\" has no instance at /if:interfaces/if:interface/if:name",
  ]);
});

const sysCtx = compiled('ietf-system');

test("must with the model's error-message, and identityref compared by prefixed name", (t) => {
  const base = { 'ietf-system:system': { authentication: { 'user-authentication-order': ['ietf-system:radius'] } } };
  t.deepEqual(check(sysCtx, base), [
    "operation-failed /ietf-system:system/authentication/user-authentication-order[.='ietf-system:radius'] [must-violation]: When 'radius' is used, a RADIUS server must be configured.",
  ]);
  t.deepEqual(
    check(sysCtx, {
      'ietf-system:system': {
        authentication: { 'user-authentication-order': ['ietf-system:local-users'] },
      },
    }),
    [],
  );
  t.deepEqual(
    check(sysCtx, {
      'ietf-system:system': {
        authentication: { 'user-authentication-order': ['ietf-system:radius', 'ietf-system:local-users'] },
        radius: { server: [{ name: 'r1', udp: { address: '192.0.2.1', 'shared-secret': 's' } }] },
      },
    }),
    [],
  );
});

test('mandatory nodes inside a chosen case are required; an empty non-presence container chooses nothing', (t) => {
  // ntp server: mandatory choice transport with case udp { container udp { leaf address mandatory } }
  t.deepEqual(check(sysCtx, { 'ietf-system:system': { ntp: { server: [{ name: 's1', udp: { port: 5 } }] } } }), [
    'missing-element /ietf-system:system/ntp/server[name=\'s1\']/udp/address: mandatory leaf "address" is missing',
  ]);
  t.deepEqual(check(sysCtx, { 'ietf-system:system': { ntp: { server: [{ name: 's1', udp: {} }] } } }), [
    'data-missing /ietf-system:system/ntp/server[name=\'s1\'] [missing-choice]: mandatory choice "transport" has no data',
  ]);
  t.deepEqual(check(sysCtx, { 'ietf-system:system': { ntp: { server: [{ name: 's1' }] } } }), [
    'data-missing /ietf-system:system/ntp/server[name=\'s1\'] [missing-choice]: mandatory choice "transport" has no data',
  ]);
  t.deepEqual(check(sysCtx, { 'ietf-system:system': { ntp: { server: [{ name: 's1', udp: { address: 'ntp.example.com' } }] } } }), []);
});

test('maxErrors stops early', (t) => {
  const many = { 'ietf-interfaces:interfaces': { interface: Array.from({ length: 50 }, (_, i) => ({ name: `e${i}` })) } };
  t.is(check(ifCtx, many, { type: 'config', maxErrors: 5 }).length, 5);
  t.is(check(ifCtx, many, { type: 'config' }).length, 50);
});

test('OpenConfig: augment-level when is evaluated on the interface entry, identity compared by prefix', (t) => {
  const oc = compiled('openconfig-interfaces', 'openconfig-if-aggregate', 'openconfig-if-ethernet', 'iana-if-type');
  const lag = (type: string) => ({
    'openconfig-interfaces:interfaces': {
      interface: [
        {
          name: 'ae0',
          config: { name: 'ae0', type },
          'openconfig-if-aggregate:aggregation': { config: { 'lag-type': 'LACP' } },
        },
      ],
    },
  });
  t.deepEqual(check(oc, lag('iana-if-type:ieee8023adLag'), { type: 'config', checkLeafrefs: true }), []);
  t.deepEqual(check(oc, lag('iana-if-type:ethernetCsmacd')), [
    'unknown-element /openconfig-interfaces:interfaces/interface[name=\'ae0\']/openconfig-if-aggregate:aggregation: when condition "oc-if:config/oc-if:type = \'ianaift:ieee8023adLag\'" of "aggregation" is false, so the node must not exist',
  ]);
});

test('OpenConfig: the key leafref ../config/name must match when leafrefs are checked', (t) => {
  const oc = compiled('openconfig-interfaces', 'iana-if-type');
  const doc = {
    'openconfig-interfaces:interfaces': { interface: [{ name: 'eth0', config: { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' } }] },
  };
  t.deepEqual(check(oc, doc), []);
  t.deepEqual(check(oc, doc, { type: 'config', checkLeafrefs: true }), [
    'data-missing /openconfig-interfaces:interfaces/interface[name=\'eth0\']/name [instance-required]: leafref value "eth0" has no instance at ../config/name',
  ]);
});

const routingCtx = compiled('ietf-interfaces', 'iana-if-type', 'ietf-ip', 'ietf-routing', 'ietf-ipv4-unicast-routing');
const staticRoute = (type: string, outgoing?: string) => ({
  'ietf-routing:routing': {
    'control-plane-protocols': {
      'control-plane-protocol': [
        {
          type,
          name: 'p1',
          'static-routes': {
            'ietf-ipv4-unicast-routing:ipv4': {
              route: [
                {
                  'destination-prefix': '0.0.0.0/0',
                  'next-hop': {
                    'next-hop-address': '192.0.2.1',
                    ...(outgoing ? { 'outgoing-interface': outgoing } : {}),
                  },
                },
              ],
            },
          },
        },
      ],
    },
  },
});

test("ietf-routing: a node's own when has the node as context (../type is the protocol's type)", (t) => {
  t.deepEqual(check(routingCtx, staticRoute('ietf-routing:static')), []);
  t.deepEqual(check(routingCtx, staticRoute('ietf-routing:direct')), [
    "unknown-element /ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:direct'][name='p1']/static-routes: when condition \"derived-from-or-self(../type, 'rt:static')\" of \"static-routes\" is false, so the node must not exist",
  ]);
});

test('ietf-routing: a leafref deep in an augment is checked against the interfaces', (t) => {
  const withIf = (doc: object) => ({ ...doc, 'ietf-interfaces:interfaces': { interface: [{ ...eth0 }] } });
  t.deepEqual(check(routingCtx, withIf(staticRoute('ietf-routing:static', 'eth0')), { type: 'config', checkLeafrefs: true }), []);
  t.deepEqual(check(routingCtx, withIf(staticRoute('ietf-routing:static', 'eth3')), { type: 'config', checkLeafrefs: true }), [
    "data-missing /ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='p1']/static-routes/ietf-ipv4-unicast-routing:ipv4/route[destination-prefix='0.0.0.0/0']/next-hop/outgoing-interface [instance-required]: leafref value \"eth3\" has no instance at /if:interfaces/if:interface/if:name",
  ]);
});

test('data from two cases of one choice is refused, naming a node of each', (t) => {
  t.deepEqual(
    check(ifCtx, {
      'ietf-interfaces:interfaces': {
        interface: [{ ...eth0, 'ietf-ip:ipv4': { address: [{ ip: '10.0.0.1', 'prefix-length': 24, netmask: '255.255.255.0' }] } }],
      },
    }),
    [
      'invalid-value /ietf-interfaces:interfaces/interface[name=\'eth0\']/ietf-ip:ipv4/address[ip=\'10.0.0.1\']/netmask: node "prefix-length" of case "prefix-length" and node "netmask" of case "netmask" of choice "subnet" cannot coexist',
    ],
  );
});

test('list entries with the same key, or without a key, are refused', (t) => {
  const { root } = decodeJson(
    { 'ietf-interfaces:interfaces': { interface: [{ ...eth0 }, { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' }] } },
    ifCtx,
  );
  const list = (root.children[0] as { children: Array<{ kind: string; entries: Array<{ children: unknown[] }> }> }).children[0]!;
  list.entries.push({ ...list.entries[0]! });
  list.entries.push({ ...list.entries[1]!, children: list.entries[1]!.children.slice(1) });
  t.deepEqual(
    validateTree(root, ifCtx, { type: 'config' }).map((f) => `${f.tag} ${f.path}: ${f.message}`),
    [
      'invalid-value /ietf-interfaces:interfaces/interface[name=\'eth0\']: duplicate entry of list "interface"',
      'missing-element /ietf-interfaces:interfaces/interface: list entry lacks key leaf "name"',
    ],
  );
});

test('100,000 list entries validate in well under a second (leafrefs, whens and keys included)', (t) => {
  const n = 100000;
  const oc = compiled('openconfig-interfaces', 'openconfig-if-aggregate', 'openconfig-if-ethernet', 'openconfig-if-ip', 'iana-if-type');
  const doc = {
    'openconfig-interfaces:interfaces': {
      interface: Array.from({ length: n }, (_, i) => ({
        name: `eth${i}`,
        config: { name: `eth${i}`, type: 'iana-if-type:ethernetCsmacd', mtu: 1500 },
        'openconfig-if-ethernet:ethernet': { config: { 'auto-negotiate': true } },
      })),
    },
  };
  const { root } = decodeJson(doc, oc);
  const ietfDoc = {
    'ietf-interfaces:interfaces': {
      interface: Array.from({ length: n }, (_, i) => ({
        name: `eth${i}`,
        type: 'iana-if-type:ethernetCsmacd',
        'ietf-ip:ipv4': { address: [{ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'prefix-length': 24 }] },
      })),
    },
  };
  const ietfRoot = decodeJson(ietfDoc, ifCtx).root;
  for (const [name, ctx, tree] of [
    ['openconfig', oc, root],
    ['ietf', ifCtx, ietfRoot],
  ] as const) {
    validateTree(tree, ctx, { type: 'config', checkLeafrefs: true }); // warm up
    const start = process.hrtime.bigint();
    const faults = validateTree(tree, ctx, { type: 'config', checkLeafrefs: true });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    t.log(`${name}: ${n} entries validated in ${ms.toFixed(0)} ms`);
    t.deepEqual(faults, []);
  }
});

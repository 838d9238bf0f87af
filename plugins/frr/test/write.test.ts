/**
 * The FRR units' writers through the SDK harness: the exact commands (and undo commands) that take the
 * device from what it has (read from the recorded FRR 8.4.4 transcripts) to what a client asks for, in
 * dependency order (an instance before its protocols, `router bgp` before neighbors, deletes of children
 * before parents, one teardown command for a parent), and the changes FRR cannot take refused by path.
 */
import test, { type ExecutionContext } from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TranslationError, type JsonObject } from '@rosetta/sdk';
import { parseSessionLog, unitHarness, type UnitHarness } from '@rosetta/sdk/testing';
import plugin from '../src/index';

const ROOT = path.resolve(__dirname, '../..');
const transcript = (name: string) => parseSessionLog(fs.readFileSync(path.join(ROOT, 'transcripts', `frr-8.4.4-${name}.log`), 'utf8'));
const IF = 'rosetta-openconfig-interfaces:interfaces';
const NIS = 'rosetta-openconfig-network-instance:network-instances';
const STATIC_ID = 'rosetta-openconfig-policy-types:STATIC';
const BGP_ID = 'rosetta-openconfig-policy-types:BGP';

async function device(name: 'full' | 'empty') {
  const h = unitHarness(plugin, transcript(name));
  return { h, before: (await h.read('/', 'config'))! };
}

const instance = (doc: any, name: string) => doc[NIS]['network-instance'].find((n: any) => n.name === name);
const protocolOf = (doc: any, ni: string, id: string) => instance(doc, ni).protocols.protocol.find((p: any) => p.identifier === id);
const iface = (doc: any, name: string) => doc[IF].interface.find((i: any) => i.name === name);

function route(prefix: string, hops: Array<[string, string, number?]>): JsonObject {
  return {
    prefix,
    config: { prefix },
    'next-hops': {
      'next-hop': hops.map(([index, nh, metric]) => ({ index, config: { index, 'next-hop': nh, ...(metric ? { metric } : {}) } })),
    },
  };
}

function staticProtocol(routes: JsonObject[]): JsonObject {
  return { identifier: STATIC_ID, name: 'static', config: { identifier: STATIC_ID, name: 'static' }, 'static-routes': { static: routes } };
}

function bgpProtocol(as: number, routerId: string | undefined, neighbors: JsonObject[]): JsonObject {
  return {
    identifier: BGP_ID,
    name: 'default',
    config: { identifier: BGP_ID, name: 'default' },
    bgp: { global: { config: { as, ...(routerId ? { 'router-id': routerId } : {}) } }, neighbors: { neighbor: neighbors } },
  };
}

const neighbor = (address: string, config: JsonObject): JsonObject => ({
  'neighbor-address': address,
  config: { 'neighbor-address': address, ...config },
});

/** Each next hop alone as the first route's next hops of `after`: its write is refused with the message beside it. */
function refusesEachHop(
  t: ExecutionContext,
  h: UnitHarness,
  before: JsonObject,
  after: any,
  cases: ReadonlyArray<readonly [JsonObject, RegExp]>,
): void {
  for (const [hop, message] of cases) {
    instance(after, 'default').protocols.protocol[0]['static-routes'].static[0]['next-hops']['next-hop'] = [hop];
    t.throws(() => h.write(before, after), { message }, String(message));
  }
}

test('interfaces: create with settings and addresses, change, clear', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  after[IF] = {
    interface: [
      {
        name: 'eth9',
        config: { name: 'eth9', description: 'to R2', enabled: false },
        subinterfaces: {
          subinterface: [
            {
              index: 0,
              config: { index: 0 },
              ipv4: { addresses: { address: [{ ip: '192.0.2.9', config: { ip: '192.0.2.9', 'prefix-length': 30 } }] } },
            },
          ],
        },
      },
    ],
  };
  const create = h.write(before, after);
  t.deepEqual(create.commands, [
    'interface eth9',
    ' description to R2',
    ' shutdown',
    'exit', // the interface before its addresses
    'interface eth9',
    ' ip address 192.0.2.9/30',
    'exit',
  ]);
  // undoing the new interface clears it whole, its address included
  t.deepEqual(create.undo, ['interface eth9', ' no description', ' no shutdown', ' no ip address 192.0.2.9/30', 'exit']);

  const { h: f, before: configured } = await device('full');
  const changed: any = structuredClone(configured);
  iface(changed, 'eth7').config = { name: 'eth7', enabled: true }; // no description, no shutdown
  iface(changed, 'lo').subinterfaces.subinterface[0].ipv4.addresses.address = [
    { ip: '10.0.0.2', config: { ip: '10.0.0.2', 'prefix-length': 32 } },
    { ip: '10.0.0.3', config: { ip: '10.0.0.3', 'prefix-length': 32 } },
  ];
  t.deepEqual(f.write(configured, changed).commands, [
    'interface eth7',
    ' no description',
    ' no shutdown',
    'exit',
    'interface lo',
    ' no ip address 10.0.0.1/32',
    ' ip address 10.0.0.3/32',
    'exit',
  ]);
  // deleting an interface clears everything on it in one block (FRR cannot delete lo, and drops an empty eth7)
  const gone: any = structuredClone(configured);
  gone[IF].interface = gone[IF].interface.filter((i: any) => i.name !== 'lo');
  const del = f.write(configured, gone);
  t.deepEqual(del.commands, ['interface lo', ' no description', ' no ip address 10.0.0.1/32', ' no ip address 10.0.0.2/32', 'exit']);
  t.deepEqual(del.undo, [
    'interface lo',
    ' description loopback of R1',
    'exit',
    'interface lo',
    ' ip address 10.0.0.1/32',
    ' ip address 10.0.0.2/32',
    'exit',
  ]);
  t.deepEqual(f.write(configured, configured).commands, []);
});

test('static routes: next hops with distance and DROP, in the default instance and in a VRF; indexes cost nothing', async (t) => {
  const { h, before } = await device('full');
  const after: any = structuredClone(before);
  const statics = protocolOf(after, 'default', STATIC_ID)['static-routes'].static;
  statics.push(
    route('203.0.113.0/25', [
      ['1', '127.0.0.7'],
      ['2', 'DROP', 250],
    ]),
  );
  statics[0]['next-hops']['next-hop'][0].config.metric = 40; // 127.0.0.3: distance 20 -> 40
  statics.splice(1, 1); // 192.0.2.128/25 goes
  protocolOf(after, 'red', STATIC_ID)['static-routes'].static.push(route('203.0.113.128/25', [['a', '127.0.0.9', 1]]));
  const plan = h.write(before, after);
  t.deepEqual(plan.commands, [
    'no ip route 192.0.2.128/25 Null0',
    'no ip route 198.51.100.0/24 127.0.0.3 20',
    'ip route 198.51.100.0/24 127.0.0.3 40',
    'ip route 203.0.113.0/25 127.0.0.7',
    'ip route 203.0.113.0/25 Null0 250',
    'vrf red',
    ' ip route 203.0.113.128/25 127.0.0.9',
    'exit-vrf', // metric 1 is FRR's default: not written
  ]);
  t.deepEqual(plan.undo, [
    'vrf red',
    ' no ip route 203.0.113.128/25 127.0.0.9',
    'exit-vrf',
    'no ip route 203.0.113.0/25 127.0.0.7',
    'no ip route 203.0.113.0/25 Null0 250',
    'no ip route 198.51.100.0/24 127.0.0.3 40',
    'ip route 198.51.100.0/24 127.0.0.3 20',
    'ip route 192.0.2.128/25 Null0',
  ]);
  // the client's own indexes for the same lines: nothing to send
  const renamed: any = structuredClone(before);
  for (const hop of protocolOf(renamed, 'default', STATIC_ID)['static-routes'].static[0]['next-hops']['next-hop']) {
    hop.index = hop.config.index = `nh-${hop.index}`;
  }
  t.deepEqual(h.write(before, renamed).commands, []);
});

test('static routes through an interface: alone, with a gateway, with a distance; DROP through an interface and route keywords are refused', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  const viaInterface = (index: string, iface: string, nh?: string, metric?: number): JsonObject => ({
    index,
    config: { index, ...(nh ? { 'next-hop': nh } : {}), ...(metric ? { metric } : {}) },
    'interface-ref': { config: { interface: iface } },
  });
  const hops = [viaInterface('a', 'eth1'), viaInterface('b', 'eth2', '192.0.2.1', 20)];
  instance(after, 'default').protocols = {
    protocol: [staticProtocol([{ prefix: '10.5.0.0/16', config: { prefix: '10.5.0.0/16' }, 'next-hops': { 'next-hop': hops } }])],
  };
  const plan = h.write(before, after);
  t.deepEqual(plan.commands, ['ip route 10.5.0.0/16 eth1', 'ip route 10.5.0.0/16 192.0.2.1 eth2 20']);
  t.deepEqual(plan.undo, ['no ip route 10.5.0.0/16 eth1', 'no ip route 10.5.0.0/16 192.0.2.1 eth2 20']);
  refusesEachHop(t, h, before, after, [
    [viaInterface('c', 'eth1', 'DROP'), /DROP goes out of no interface/],
    [viaInterface('d', 'tag'), /"tag" of 10\.5\.0\.0\/16 is a word of FRR's route syntax/],
    [{ index: 'e', config: { index: 'e' } }, /needs config\/next-hop, interface-ref\/config\/interface or both/],
  ]);
});

test('route tags and REJECT: set-tag goes on every line of the route, a changed tag replaces the lines, a bad tag is refused', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  const tagged = {
    ...route('10.6.0.0/16', [
      ['1', '127.0.0.2'],
      ['2', 'REJECT', 200],
    ]),
    config: { prefix: '10.6.0.0/16', 'set-tag': 77 },
  };
  instance(after, 'default').protocols = { protocol: [staticProtocol([tagged])] };
  const plan = h.write(before, after);
  t.deepEqual(plan.commands, ['ip route 10.6.0.0/16 127.0.0.2 tag 77', 'ip route 10.6.0.0/16 reject tag 77 200']);
  t.deepEqual(plan.undo, ['no ip route 10.6.0.0/16 127.0.0.2 tag 77', 'no ip route 10.6.0.0/16 reject tag 77 200']);
  const retagged: any = structuredClone(after);
  retagged[NIS]['network-instance'][0].protocols.protocol[0]['static-routes'].static[0].config['set-tag'] = 78;
  t.deepEqual(h.write(after, retagged).commands, [
    'no ip route 10.6.0.0/16 127.0.0.2 tag 77',
    'no ip route 10.6.0.0/16 reject tag 77 200',
    'ip route 10.6.0.0/16 127.0.0.2 tag 78',
    'ip route 10.6.0.0/16 reject tag 78 200',
  ]);
  for (const [bad, message] of [
    [0, /set-tag 0 of 10\.6\.0\.0\/16 is outside 1\.\.4294967295/],
    ['x', /set-tag "x"/],
    [4294967296, /outside/],
  ] as const) {
    retagged[NIS]['network-instance'][0].protocols.protocol[0]['static-routes'].static[0].config['set-tag'] = bad;
    t.throws(() => h.write(after, retagged), { message }, String(bad));
  }
  const rejectOut = {
    ...route('10.7.0.0/16', []),
    'next-hops': {
      'next-hop': [{ index: 'r', config: { index: 'r', 'next-hop': 'REJECT' }, 'interface-ref': { config: { interface: 'eth0' } } }],
    },
  };
  instance(after, 'default').protocols = { protocol: [staticProtocol([rejectOut])] };
  t.throws(() => h.write(before, after), { message: /REJECT goes out of no interface/ });
});

test("a gateway looked up in, or an interface of, another network instance is nexthop-vrf, last on the line; a discard, or naming the route's own instance, is refused", async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  const leaked = (index: string, nh: string, instanceName: string, metric?: number): JsonObject => ({
    index,
    config: { index, 'next-hop': nh, 'nh-network-instance': instanceName, ...(metric ? { metric } : {}) },
  });
  const entry = {
    ...route('10.8.0.0/16', []),
    config: { prefix: '10.8.0.0/16', 'set-tag': 9 },
    'next-hops': { 'next-hop': [leaked('a', '192.0.2.1', 'red', 20)] },
  };
  instance(after, 'default').protocols = { protocol: [staticProtocol([entry])] };
  const plan = h.write(before, after);
  t.deepEqual(plan.commands, ['ip route 10.8.0.0/16 192.0.2.1 tag 9 20 nexthop-vrf red']);
  t.deepEqual(plan.undo, ['no ip route 10.8.0.0/16 192.0.2.1 tag 9 20 nexthop-vrf red']);
  const throughInterface = {
    index: 'c',
    config: { index: 'c', 'nh-network-instance': 'red', metric: 7 },
    'interface-ref': { config: { interface: 'eth1' } },
  };
  entry['next-hops']['next-hop'] = [throughInterface];
  t.deepEqual(h.write(before, after).commands, ['ip route 10.8.0.0/16 eth1 tag 9 7 nexthop-vrf red']);
  refusesEachHop(t, h, before, after, [
    [leaked('b', 'DROP', 'red'), /DROP is looked up in no network instance/],
    [{ ...leaked('b', 'REJECT', 'red'), 'interface-ref': { config: { interface: 'eth1' } } }, /REJECT goes out of no interface/],
    [leaked('d', '192.0.2.1', 'default'), /"default" is the route's own network instance/],
    [leaked('e', '192.0.2.1', 'red blue'), /nh-network-instance/],
  ]);
});

test('onlink (rosetta-frr-extensions) binds a gateway to an interface: last on the line, changed by removing the line and writing it anew; without both, refused', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  const hop = (config: JsonObject, iface?: string): JsonObject => ({
    index: 'a',
    config: { index: 'a', ...config },
    ...(iface ? { 'interface-ref': { config: { interface: iface } } } : {}),
  });
  const entry = {
    ...route('10.10.0.0/16', []),
    'next-hops': {
      'next-hop': [
        hop({ 'next-hop': '192.0.2.1', metric: 5, 'nh-network-instance': 'red', 'rosetta-frr-extensions:onlink': true }, 'eth1'),
      ],
    },
  };
  instance(after, 'default').protocols = { protocol: [staticProtocol([entry])] };
  const plan = h.write(before, after);
  t.deepEqual(plan.commands, ['ip route 10.10.0.0/16 192.0.2.1 eth1 5 nexthop-vrf red onlink']);
  t.deepEqual(plan.undo, ['no ip route 10.10.0.0/16 192.0.2.1 eth1 5 nexthop-vrf red onlink']);
  const off: any = structuredClone(after);
  off[NIS]['network-instance'][0].protocols.protocol[0]['static-routes'].static[0]['next-hops']['next-hop'][0].config[
    'rosetta-frr-extensions:onlink'
  ] = false;
  t.deepEqual(h.write(after, off).commands, [
    'no ip route 10.10.0.0/16 192.0.2.1 eth1 5 nexthop-vrf red onlink',
    'ip route 10.10.0.0/16 192.0.2.1 eth1 5 nexthop-vrf red',
  ]);
  refusesEachHop(t, h, before, after, [
    [hop({ 'next-hop': '192.0.2.1', 'rosetta-frr-extensions:onlink': true }), /onlink binds a gateway address to an interface/],
    [hop({ 'rosetta-frr-extensions:onlink': true }, 'eth1'), /onlink binds a gateway address to an interface/],
    [hop({ 'next-hop': 'DROP', 'rosetta-frr-extensions:onlink': true }), /onlink binds a gateway address to an interface/],
    [hop({ 'next-hop': '192.0.2.1', 'rosetta-frr-extensions:onlink': 'yes' }, 'eth1'), /onlink must be true or false/],
  ]);
});

test("a next hop's own tag (rosetta-frr-extensions:tag) goes on its line instead of the route's set-tag; two tags in one metric, or a bad tag, are refused", async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  const hop = (index: string, nh: string, tag?: unknown, metric?: number): JsonObject => ({
    index,
    config: {
      index,
      'next-hop': nh,
      ...(tag !== undefined ? { 'rosetta-frr-extensions:tag': tag as number } : {}),
      ...(metric !== undefined ? { metric } : {}),
    },
  });
  const entry = {
    ...route('10.12.0.0/16', []),
    config: { prefix: '10.12.0.0/16', 'set-tag': 5 },
    'next-hops': { 'next-hop': [hop('a', '192.0.2.1', 7, 10), hop('b', '192.0.2.2', undefined, 20)] },
  };
  instance(after, 'default').protocols = { protocol: [staticProtocol([entry])] };
  t.deepEqual(h.write(before, after).commands, ['ip route 10.12.0.0/16 192.0.2.1 tag 7 10', 'ip route 10.12.0.0/16 192.0.2.2 tag 5 20']);
  // one metric, two tags: FRR would give both lines the tag written last
  entry['next-hops']['next-hop'] = [hop('a', '192.0.2.1', 7), hop('b', '192.0.2.2')];
  t.throws(() => h.write(before, after), { message: /next hops "a" and "b" of 10\.12\.0\.0\/16 have metric 1 and different tags/ });
  entry['next-hops']['next-hop'] = [hop('a', '192.0.2.1', 5), hop('b', '192.0.2.2')];
  t.deepEqual(
    h.write(before, after).commands,
    ['ip route 10.12.0.0/16 192.0.2.1 tag 5', 'ip route 10.12.0.0/16 192.0.2.2 tag 5'],
    'the same tag twice is one tag',
  );
  refusesEachHop(
    t,
    h,
    before,
    after,
    [0, 4294967296, 'seven'].map((bad) => [hop('a', '192.0.2.1', bad), /tag .* is outside 1\.\.4294967295/] as const),
  );
});

test('static routes the device would store differently are refused with their path', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  instance(after, 'default').protocols = { protocol: [staticProtocol([route('10.1.2.0/16', [['1', '127.0.0.2']])])] };
  const err = t.throws(() => h.write(before, after), { instanceOf: TranslationError });
  t.regex(err!.message, /static\[prefix='10\.1\.2\.0\/16'\].*host bits set; the device would store 10\.1\.0\.0\/16/);
  instance(after, 'default').protocols = { protocol: [staticProtocol([route('10.1.0.0/16', [['1', 'eth0 x']])])] };
  t.throws(() => h.write(before, after), { message: /cannot be typed at the CLI/ });
  instance(after, 'default').protocols = {
    protocol: [{ ...staticProtocol([]), name: 'mine', config: { identifier: STATIC_ID, name: 'mine' } }],
  };
  t.throws(() => h.write(before, after), { message: /one STATIC instance per network instance: name it "static", not "mine"/ });
  instance(after, 'default').protocols = {
    protocol: [
      {
        identifier: 'rosetta-openconfig-policy-types:OSPF',
        name: 'default',
        config: { identifier: 'rosetta-openconfig-policy-types:OSPF', name: 'default' },
      },
    ],
  };
  t.throws(() => h.write(before, after), { message: /covers the protocols STATIC and BGP, not rosetta-openconfig-policy-types:OSPF/ });
});

test('BGP: router bgp before its neighbors; internal neighbors; changes inside the instance block', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  instance(after, 'default').protocols = {
    protocol: [
      bgpProtocol(65001, '10.0.0.1', [
        neighbor('127.0.0.2', { 'peer-as': 65002, description: 'peer two' }),
        neighbor('127.0.0.3', { enabled: false }),
      ]),
    ],
  };
  const create = h.write(before, after);
  t.deepEqual(create.commands, [
    'router bgp 65001',
    ' bgp router-id 10.0.0.1',
    'exit',
    'router bgp 65001',
    ' neighbor 127.0.0.2 remote-as 65002',
    ' neighbor 127.0.0.2 description peer two',
    'exit',
    'router bgp 65001',
    ' neighbor 127.0.0.3 remote-as internal',
    ' neighbor 127.0.0.3 shutdown',
    'exit',
  ]);
  t.deepEqual(create.undo, ['no router bgp 65001']); // the new instance goes with its neighbors

  const { h: f, before: configured } = await device('full');
  const changed: any = structuredClone(configured);
  const bgp = protocolOf(changed, 'default', BGP_ID).bgp;
  bgp.global.config['router-id'] = '10.0.0.9';
  bgp.neighbors.neighbor[0].config = { 'neighbor-address': '127.0.0.2', 'peer-as': 65012, enabled: false };
  bgp.neighbors.neighbor[1].config.enabled = true;
  protocolOf(changed, 'red', BGP_ID).bgp.neighbors.neighbor = [];
  const plan = f.write(configured, changed);
  t.deepEqual(plan.commands, [
    'router bgp 65001 vrf red',
    ' no neighbor 127.0.0.5',
    'exit',
    'router bgp 65001',
    ' bgp router-id 10.0.0.9',
    'exit',
    'router bgp 65001',
    ' neighbor 127.0.0.2 remote-as 65012',
    ' no neighbor 127.0.0.2 description',
    ' neighbor 127.0.0.2 shutdown',
    'exit',
    'router bgp 65001',
    ' no neighbor 127.0.0.3 shutdown',
    'exit',
  ]);
  t.deepEqual(plan.undo.slice(0, 3), ['router bgp 65001', ' neighbor 127.0.0.3 shutdown', 'exit']);
  t.deepEqual(plan.undo.slice(-3), ['router bgp 65001 vrf red', ' neighbor 127.0.0.5 remote-as 65005', 'exit']);

  const moved: any = structuredClone(configured);
  protocolOf(moved, 'default', BGP_ID).bgp.global.config.as = 65099;
  t.throws(() => f.write(configured, moved), { message: /the AS of a BGP instance cannot change \(65001 -> 65099\)/ });
  const noAs: any = structuredClone(before);
  instance(noAs, 'default').protocols = { protocol: [bgpProtocol(1, undefined, [neighbor('127.0.0.2', {})])] };
  delete instance(noAs, 'default').protocols.protocol[0].bgp.global;
  t.throws(() => h.write(before, noAs), { message: /the BGP instance needs global\/config\/as/ });
});

test('deleting a protocol or a VRF tears it down with one command, and the undo rebuilds all of it', async (t) => {
  const { h, before } = await device('full');
  const noBgp: any = structuredClone(before);
  instance(noBgp, 'default').protocols.protocol.splice(1, 1);
  const plan = h.write(before, noBgp);
  t.deepEqual(plan.commands, ['no router bgp 65001']);
  t.deepEqual(plan.undo, [
    'router bgp 65001',
    ' bgp router-id 10.0.0.1',
    'exit',
    'router bgp 65001',
    ' neighbor 127.0.0.3 remote-as internal',
    ' neighbor 127.0.0.3 shutdown',
    'exit',
    'router bgp 65001',
    ' neighbor 127.0.0.2 remote-as 65002',
    ' neighbor 127.0.0.2 description peer two',
    'exit',
  ]);
  t.deepEqual(plan.undoGaps, []);

  const noRed: any = structuredClone(before);
  noRed[NIS]['network-instance'] = noRed[NIS]['network-instance'].filter((n: any) => n.name !== 'red');
  const vrf = h.write(before, noRed);
  t.deepEqual(vrf.commands, ['no router bgp 65001 vrf red', 'no vrf red']); // `no vrf` drops its static routes
  t.deepEqual(vrf.undo, [
    'vrf red',
    'exit-vrf',
    'router bgp 65001 vrf red',
    ' bgp router-id 10.1.0.1',
    'exit',
    'vrf red',
    ' ip route 203.0.113.0/24 127.0.0.9 5',
    'exit-vrf',
    'router bgp 65001 vrf red',
    ' neighbor 127.0.0.5 remote-as 65005',
    'exit',
  ]);

  const noStatic: any = structuredClone(before);
  instance(noStatic, 'default').protocols.protocol.splice(0, 1);
  t.deepEqual(h.write(before, noStatic).commands, [
    'no ip route 198.51.100.0/24 127.0.0.3 20',
    'no ip route 198.51.100.0/24 127.0.0.2 30',
    'no ip route 192.0.2.128/25 Null0',
  ]);
});

test('a new VRF with static routes and BGP: the VRF first, then what lives in it', async (t) => {
  const { h, before } = await device('empty');
  const after: any = structuredClone(before);
  after[NIS]['network-instance'].push({
    name: 'blue',
    config: { name: 'blue', type: 'rosetta-openconfig-network-instance:L3VRF' },
    protocols: {
      protocol: [
        staticProtocol([route('10.20.0.0/16', [['1', '127.0.0.20']])]),
        bgpProtocol(65020, undefined, [neighbor('127.0.0.21', { 'peer-as': 65021 })]),
      ],
    },
  });
  t.deepEqual(h.write(before, after).commands, [
    'vrf blue',
    'exit-vrf',
    'vrf blue',
    ' ip route 10.20.0.0/16 127.0.0.20',
    'exit-vrf',
    'router bgp 65020 vrf blue',
    'exit',
    'router bgp 65020 vrf blue',
    ' neighbor 127.0.0.21 remote-as 65021',
    'exit',
  ]);
  const wrongType: any = structuredClone(after);
  wrongType[NIS]['network-instance'][1].config.type = 'rosetta-openconfig-network-instance:DEFAULT_INSTANCE';
  t.throws(() => h.write(before, wrongType), { message: /network instance blue is of type L3VRF on FRR, not DEFAULT_INSTANCE/ });
});

test('garbage a client could send is refused with a reason, never sent', async (t) => {
  const { h, before } = await device('empty');
  const cases: Array<[any, RegExp]> = [
    [
      { interface: [{ name: 'eth1', config: { name: 'eth1', description: 'what? really' } }] },
      /description "what\? really" cannot be typed/,
    ],
    [{ interface: [{ name: 'eth1', config: { name: 'eth2' } }] }, /config\/name "eth2" differs from the key "eth1"/],
    [{ interface: [{ name: 'eth1', subinterfaces: { subinterface: [{ index: 1, config: { index: 1 } }] } }] }, /only index 0/],
    [
      {
        interface: [
          {
            name: 'eth1',
            subinterfaces: {
              subinterface: [{ index: 0, ipv4: { addresses: { address: [{ ip: '10.0.0.1', config: { ip: '10.0.0.1' } }] } } }],
            },
          },
        ],
      },
      /needs a prefix-length/,
    ],
    [{ interface: [{ name: 'eth 1', config: { name: 'eth 1', description: 'x' } }] }, /cannot be typed at the CLI/],
  ];
  for (const [interfaces, message] of cases) {
    t.throws(() => h.write(before, { ...before, [IF]: interfaces }), { instanceOf: TranslationError, message }, String(message));
  }
});

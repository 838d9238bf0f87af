/**
 * The FRR units' readers through the SDK harness, on sessions recorded from a real FRR 8.4.4
 * (../../transcripts, made by record-transcripts.ts): what each path reads in config and state, which
 * show commands a read costs, the output valid against the units' own YANG models (yanglint and the
 * core's validator), and the error patterns matched against the messages FRR really printed.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JsonObject } from '@rosetta/sdk';
import { cpuStopwatch, parseSessionLog, unitHarness } from '@rosetta/sdk/testing';
import plugin, { FRR_ERROR_PATTERNS } from '../src/index';

const ROOT = path.resolve(__dirname, '../..');
const transcript = (name: string) => parseSessionLog(fs.readFileSync(path.join(ROOT, 'transcripts', `frr-8.4.4-${name}.log`), 'utf8'));
const full = transcript('full');
const empty = transcript('empty');
const YANG = fs.readdirSync(path.join(ROOT, 'yang')).map((f) => path.join(ROOT, 'yang', f));

const NI = '/rosetta-openconfig-network-instance:network-instances/network-instance';
const STATIC = "protocols/protocol[identifier='rosetta-openconfig-policy-types:STATIC'][name='static']";
const BGP = "protocols/protocol[identifier='rosetta-openconfig-policy-types:BGP'][name='default']";

function instances(doc: JsonObject | undefined): any[] {
  return (doc as any)['rosetta-openconfig-network-instance:network-instances']['network-instance'];
}

test('config of a configured device: interfaces, addresses, static routes, VRFs, BGP', async (t) => {
  const h = unitHarness(plugin, full);
  const doc = await h.read('/', 'config');
  t.deepEqual(h.executed, ['show running-config', 'show vrf']); // a config read asks for no state
  const ifs = (doc as any)['rosetta-openconfig-interfaces:interfaces'].interface;
  t.deepEqual(
    ifs.map((i: any) => i.name),
    ['eth7', 'lo'],
  );
  t.deepEqual(ifs[0].config, { name: 'eth7', enabled: false, description: 'uplink to core' });
  t.deepEqual(ifs[1].subinterfaces.subinterface, [
    {
      index: 0,
      config: { index: 0 },
      ipv4: {
        addresses: {
          address: [
            { ip: '10.0.0.1', config: { ip: '10.0.0.1', 'prefix-length': 32 } },
            { ip: '10.0.0.2', config: { ip: '10.0.0.2', 'prefix-length': 32 } },
          ],
        },
      },
    },
  ]);
  const nis = instances(doc);
  t.deepEqual(
    nis.map((n) => [n.name, n.config.type]),
    [
      ['default', 'rosetta-openconfig-network-instance:DEFAULT_INSTANCE'],
      ['blue', 'rosetta-openconfig-network-instance:L3VRF'], // an empty `vrf blue` only `show vrf` shows
      ['green', 'rosetta-openconfig-network-instance:L3VRF'], // only `router bgp 65001 vrf green` names it
      ['red', 'rosetta-openconfig-network-instance:L3VRF'],
    ],
  );
  const [staticDefault, bgpDefault] = nis[0].protocols.protocol;
  t.deepEqual(staticDefault['static-routes'].static, [
    {
      prefix: '198.51.100.0/24',
      config: { prefix: '198.51.100.0/24' },
      'next-hops': {
        'next-hop': [
          { index: '127.0.0.3', config: { index: '127.0.0.3', 'next-hop': '127.0.0.3', metric: 20 } },
          { index: '127.0.0.2', config: { index: '127.0.0.2', 'next-hop': '127.0.0.2', metric: 30 } },
        ],
      },
    },
    {
      prefix: '192.0.2.128/25',
      config: { prefix: '192.0.2.128/25' },
      'next-hops': {
        'next-hop': [
          { index: 'DROP', config: { index: 'DROP', 'next-hop': 'DROP' } }, // Null0
        ],
      },
    },
  ]);
  t.deepEqual(bgpDefault, {
    identifier: 'rosetta-openconfig-policy-types:BGP',
    name: 'default',
    config: { identifier: 'rosetta-openconfig-policy-types:BGP', name: 'default' },
    bgp: {
      global: { config: { as: 65001, 'router-id': '10.0.0.1' } },
      neighbors: {
        neighbor: [
          {
            'neighbor-address': '127.0.0.2',
            config: { 'neighbor-address': '127.0.0.2', enabled: true, 'peer-as': 65002, description: 'peer two' },
          },
          // `remote-as internal`: no peer-as; `neighbor X shutdown`: not enabled
          { 'neighbor-address': '127.0.0.3', config: { 'neighbor-address': '127.0.0.3', enabled: false } },
        ],
      },
    },
  });
  t.is(nis[1].protocols, undefined);
  t.deepEqual(nis[2].protocols.protocol[0].bgp, { global: { config: { as: 65001 } } });
  const red = nis[3].protocols.protocol;
  t.deepEqual(red[0]['static-routes'].static[0]['next-hops']['next-hop'][0].config, {
    index: '127.0.0.9',
    'next-hop': '127.0.0.9',
    metric: 5,
  });
  t.deepEqual(red[1].bgp.global.config, { as: 65001, 'router-id': '10.1.0.1' });
  t.deepEqual(
    red[1].bgp.neighbors.neighbor.map((n: any) => n.config),
    [{ 'neighbor-address': '127.0.0.5', enabled: true, 'peer-as': 65005 }],
  );
});

test('state: interface status from show interface json, BGP from its JSON show commands', async (t) => {
  const h = unitHarness(plugin, full);
  const doc = await h.read('/', 'nonconfig');
  t.deepEqual(h.executed, [
    'show running-config',
    'show interface json',
    'show vrf',
    'show bgp vrf all summary json',
    'show bgp vrf green json',
    'show bgp vrf all neighbors json',
  ]);
  const ifs = (doc as any)['rosetta-openconfig-interfaces:interfaces'].interface;
  t.deepEqual(ifs[0].state, {
    name: 'eth7',
    enabled: false,
    description: 'uplink to core',
    'admin-status': 'DOWN',
    'oper-status': 'NOT_PRESENT',
  });
  t.deepEqual(ifs[1].state, {
    name: 'lo',
    enabled: true,
    description: 'loopback of R1',
    ifindex: 1,
    'admin-status': 'UP',
    'oper-status': 'UP',
    mtu: 65536,
  });
  t.deepEqual(
    ifs[1].subinterfaces.subinterface[0].ipv4.addresses.address.map((a: any) => a.state),
    [
      { ip: '10.0.0.1', 'prefix-length': 32 },
      { ip: '10.0.0.2', 'prefix-length': 32 },
    ],
  );
  t.is(ifs[1].config, undefined);
  const nis = instances(doc);
  const bgp = nis[0].protocols.protocol[1].bgp;
  t.deepEqual(bgp.global, { state: { as: 65001, 'router-id': '10.0.0.1' } });
  t.deepEqual(
    bgp.neighbors.neighbor.map((n: any) => n.state),
    [
      { 'neighbor-address': '127.0.0.2', enabled: true, 'peer-as': 65002, description: 'peer two', 'session-state': 'IDLE' },
      { 'neighbor-address': '127.0.0.3', enabled: false, 'peer-as': 65001, 'session-state': 'IDLE' }, // internal: the local AS
    ],
  );
  // green has no neighbors, so its summary is empty and its own view names the AS
  t.deepEqual(nis[2].protocols.protocol[0].bgp.global.state, { as: 65001 });
  t.deepEqual(nis[0].protocols.protocol[0]['static-routes'].static[0]['next-hops']['next-hop'][1].state, {
    index: '127.0.0.2',
    'next-hop': '127.0.0.2',
    metric: 30,
  });
});

test('a fresh device: lo in state only, the default instance, nothing else', async (t) => {
  const h = unitHarness(plugin, empty);
  t.deepEqual(await h.read('/', 'config'), {
    'rosetta-openconfig-network-instance:network-instances': {
      'network-instance': [{ name: 'default', config: { name: 'default', type: 'rosetta-openconfig-network-instance:DEFAULT_INSTANCE' } }],
    },
  });
  const all = await h.read('/', 'all');
  t.deepEqual((all as any)['rosetta-openconfig-interfaces:interfaces'].interface, [
    { name: 'lo', state: { name: 'lo', enabled: true, ifindex: 1, 'admin-status': 'UP', 'oper-status': 'UP', mtu: 65536 } },
  ]);
  t.false(h.executed.some((c) => c.startsWith('show bgp'))); // no protocol entries: no BGP state asked
});

test('targeted reads: list entries by key, one protocol, one neighbor; absent entries read as nothing', async (t) => {
  const h = unitHarness(plugin, full);
  t.deepEqual(await h.read(`${NI}[name='red']/${STATIC}/static-routes/static[prefix='203.0.113.0/24']`, 'config'), {
    'rosetta-openconfig-network-instance:static': [
      {
        prefix: '203.0.113.0/24',
        config: { prefix: '203.0.113.0/24' },
        'next-hops': { 'next-hop': [{ index: '127.0.0.9', config: { index: '127.0.0.9', 'next-hop': '127.0.0.9', metric: 5 } }] },
      },
    ],
  });
  t.deepEqual(h.executed, ['show running-config', 'show vrf']); // no interface or BGP commands
  const neighbor = await h.read(`${NI}[name='default']/${BGP}/bgp/neighbors/neighbor[neighbor-address='127.0.0.2']/state`, 'nonconfig');
  t.deepEqual(neighbor, {
    'rosetta-openconfig-network-instance:state': {
      'neighbor-address': '127.0.0.2',
      enabled: true,
      'peer-as': 65002,
      description: 'peer two',
      'session-state': 'IDLE',
    },
  });
  t.false(h.executed.includes('show interface json'));
  t.deepEqual(await h.read("/rosetta-openconfig-interfaces:interfaces/interface[name='eth7']/config"), {
    'rosetta-openconfig-interfaces:config': { name: 'eth7', enabled: false, description: 'uplink to core' },
  });
  t.is(await h.read("/rosetta-openconfig-interfaces:interfaces/interface[name='eth9']"), undefined);
  t.is(await h.read(`${NI}[name='blue']/${STATIC}`), undefined);
  t.is(
    await h.read(`${NI}[name='default']/protocols/protocol[identifier='rosetta-openconfig-policy-types:OSPF'][name='default']`),
    undefined,
  );
});

test('what the units read is valid against their YANG models (yanglint and the core validator)', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'frr-read-'));
  try {
    for (const [name, tr] of [
      ['full', full],
      ['empty', empty],
    ] as const) {
      for (const content of ['config', 'all'] as const) {
        const file = path.join(dir, `${name}-${content}.json`);
        fs.writeFileSync(file, JSON.stringify(await unitHarness(plugin, tr).read('/', content)));
        const type = content === 'config' ? 'config' : 'data';
        try {
          execFileSync('yanglint', ['-t', type, ...YANG, file], { stdio: 'pipe' });
        } catch (err) {
          t.fail(`yanglint ${name} ${content}: ${String((err as { stderr?: Buffer }).stderr ?? err)}`);
        }
        try {
          execFileSync(process.execPath, [path.resolve(ROOT, '../../core/bin/rosetta.js'), 'yang', 'validate', '-t', type, ...YANG, file], {
            stdio: 'pipe',
          });
        } catch (err) {
          const e = err as { stdout?: Buffer; stderr?: Buffer };
          t.fail(`rosetta yang validate ${name} ${content}: ${String(e.stdout ?? '')}${String(e.stderr ?? err)}`);
        }
      }
    }
    // and the models reject what the device could not have: static routes under a BGP protocol entry
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(
      bad,
      JSON.stringify({
        'rosetta-openconfig-network-instance:network-instances': {
          'network-instance': [
            {
              name: 'default',
              config: { name: 'default' },
              protocols: {
                protocol: [
                  {
                    identifier: 'rosetta-openconfig-policy-types:BGP',
                    name: 'default',
                    config: { identifier: 'rosetta-openconfig-policy-types:BGP', name: 'default' },
                    'static-routes': { static: [{ prefix: '10.0.0.0/8', config: { prefix: '10.0.0.0/8' } }] },
                  },
                ],
              },
            },
          ],
        },
      }),
    );
    t.throws(() => execFileSync('yanglint', ['-t', 'config', ...YANG, bad], { stdio: 'pipe' }));
    t.pass();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('error patterns catch every message FRR printed for a refused command, and nothing else', (t) => {
  const log = transcript('errors');
  const failed = Object.entries(log).filter(([, out]) => FRR_ERROR_PATTERNS.some((p) => p.test(out)));
  t.deepEqual(
    failed.map(([c]) => c),
    [
      'router bgp 65002',
      'no router bgp 65009',
      'neighbor 127.0.0.9 description x',
      'bgp router-id 1.1.1.300',
      'ip route 1.2.3.0/24',
      'no ip route 10.99.0.0/16 127.0.0.2',
      'no interface lo',
    ],
  );
  t.regex(log['router bgp 65002']!, /^BGP is already running; AS is 65001/);
  t.regex(log['no interface lo']!, /only inactive interfaces can be deleted/);
  // successful configuration commands print nothing; show output never looks like an error
  for (const c of ['configure terminal', 'exit', 'no router bgp 65001']) t.is(log[c]!.trim(), '', c);
  for (const out of Object.values(full)) t.false(FRR_ERROR_PATTERNS.some((p) => p.test(out)));
});

test('odd and garbage device output: unknown lines are left out, errors are named, nothing hangs', async (t) => {
  const odd = [
    'Building configuration...',
    '',
    'Current configuration:',
    '!',
    'ip route 10.0.0.0/8 eth0', // an interface next hop (interface-ref)
    'ip route 10.1.0.0/16 127.0.0.2 tag 7', // tagged lines: the route's set-tag
    'ip route 10.1.0.0/16 127.0.0.3 tag 7 20',
    'ip route 10.2.0.0/16 blackhole 9',
    'ip route 10.3.0.0/16 reject tag 4294967295', // reject is no interface: a REJECT next hop
    'ip route 10.4.0.0/16 192.0.2.1 eth1 20', // a gateway through an interface
    'ip route 10.4.0.0/16 eth2 tag 5', // lines with different tags: no set-tag, the line's tag on its next hop
    'ip route 10.5.0.0/16 127.0.0.2 nexthop-vrf red', // a gateway looked up in VRF red: nh-network-instance
    'ip route 10.5.0.0/16 127.0.0.2', // the same gateway in the route's own table: another next hop
    'ip route 10.6.0.0/16 127.0.0.2 onlink', // FRR's `GATEWAY onlink` is a next hop through an interface named onlink: left out
    'ip route 10.7.0.0/16 127.0.0.2 label 16',
    'ip route 10.8.0.0/16 127.0.0.2 table 10', // forms the model cannot say: left out, never guessed at
    'ip route 10.8.0.0/16 eth0 nexthop-vrf red', // an interface of VRF red, no gateway: interface-ref and nh-network-instance
    'ip route 10.8.0.0/16 Null0 nexthop-vrf red', // a discard looked up nowhere: FRR prints none such; left out
    'ip route 10.9.0.0/16 127.0.0.2 eth1 tag 7 5 nexthop-vrf red',
    'ip route 10.10.0.0/16 192.0.2.1 eth1 tag 7 5 nexthop-vrf red onlink', // onlink, last on the line: rosetta-frr-extensions:onlink
    'ip route 10.11.0.0/16 eth1 onlink', // onlink without a gateway: FRR prints none such; left out
    'router bgp 65001',
    ' neighbor PG peer-group',
    ' neighbor PG remote-as 65002',
    ' neighbor 127.0.0.8 description before remote-as',
    ' address-family ipv4 unicast',
    '  neighbor 127.0.0.9 remote-as 1',
    ' exit-address-family',
    'exit',
    'end',
  ].join('\n');
  const h = unitHarness(plugin, { 'show running-config': odd, 'show vrf': '', 'show interface json': '{}' });
  const doc = await h.read('/', 'config');
  const def = instances(doc)[0];
  const statics = def.protocols.protocol[0]['static-routes'].static;
  t.deepEqual(
    statics.map((s: any) => s.prefix),
    ['10.0.0.0/8', '10.1.0.0/16', '10.2.0.0/16', '10.3.0.0/16', '10.4.0.0/16', '10.5.0.0/16', '10.8.0.0/16', '10.9.0.0/16', '10.10.0.0/16'],
  );
  t.deepEqual(
    statics.map((s: any) => s.config['set-tag']),
    [undefined, 7, undefined, 4294967295, undefined, undefined, undefined, 7, 7],
  );
  t.deepEqual(statics[8]['next-hops']['next-hop'], [
    {
      index: '192.0.2.1+eth1%red',
      config: {
        index: '192.0.2.1+eth1%red',
        'next-hop': '192.0.2.1',
        metric: 5,
        'nh-network-instance': 'red',
        'rosetta-frr-extensions:onlink': true,
      },
      'interface-ref': { config: { interface: 'eth1' } },
    },
  ]);
  t.deepEqual(statics[6]['next-hops']['next-hop'], [
    {
      index: 'eth0%red',
      config: { index: 'eth0%red', 'nh-network-instance': 'red' },
      'interface-ref': { config: { interface: 'eth0' } },
    },
  ]);
  t.deepEqual(
    statics[5]['next-hops']['next-hop'].map((h: any) => h.config),
    [
      { index: '127.0.0.2%red', 'next-hop': '127.0.0.2', 'nh-network-instance': 'red' },
      { index: '127.0.0.2', 'next-hop': '127.0.0.2' },
    ],
  );
  t.deepEqual(statics[7]['next-hops']['next-hop'], [
    {
      index: '127.0.0.2+eth1%red',
      config: { index: '127.0.0.2+eth1%red', 'next-hop': '127.0.0.2', metric: 5, 'nh-network-instance': 'red' },
      'interface-ref': { config: { interface: 'eth1' } },
    },
  ]);
  t.deepEqual(statics[0]['next-hops']['next-hop'], [
    { index: 'eth0', config: { index: 'eth0' }, 'interface-ref': { config: { interface: 'eth0' } } },
  ]);
  t.deepEqual(
    statics[1]['next-hops']['next-hop'].map((h: any) => h.config),
    [
      { index: '127.0.0.2', 'next-hop': '127.0.0.2' },
      { index: '127.0.0.3', 'next-hop': '127.0.0.3', metric: 20 },
    ],
  );
  t.deepEqual(statics[2]['next-hops']['next-hop'][0].config, { index: 'DROP', 'next-hop': 'DROP', metric: 9 });
  t.deepEqual(statics[3]['next-hops']['next-hop'][0].config, { index: 'REJECT', 'next-hop': 'REJECT' });
  t.deepEqual(statics[4]['next-hops']['next-hop'], [
    {
      index: '192.0.2.1+eth1',
      config: { index: '192.0.2.1+eth1', 'next-hop': '192.0.2.1', metric: 20 },
      'interface-ref': { config: { interface: 'eth1' } },
    },
    // lines with different tags (here one untagged): no set-tag, each tagged next hop has its own
    { index: 'eth2', config: { index: 'eth2', 'rosetta-frr-extensions:tag': 5 }, 'interface-ref': { config: { interface: 'eth2' } } },
  ]);
  const route =
    "/rosetta-openconfig-network-instance:network-instances/network-instance[name='default']/protocols" +
    "/protocol[identifier='rosetta-openconfig-policy-types:STATIC'][name='static']/static-routes/static[prefix='10.4.0.0/16']";
  const read = (await h.read(route, 'all')) as any;
  t.deepEqual(read['rosetta-openconfig-network-instance:static'][0]['next-hops']['next-hop'][0]['interface-ref'], {
    config: { interface: 'eth1' },
    state: { interface: 'eth1' },
  });
  t.is(def.protocols.protocol[1].bgp.neighbors, undefined); // peer groups and address-family lines are no neighbors

  const junk = '\u0000\u001b[2J% \u00ff'.repeat(20_000) + '\n'.repeat(50_000) + ' '.repeat(100_000) + 'interface'.repeat(10_000);
  const cpuMs = cpuStopwatch();
  const j = unitHarness(plugin, { 'show running-config': junk, 'show vrf': junk, 'show interface json': junk });
  t.deepEqual(
    instances(await j.read('/', 'config')).map((n) => n.name),
    ['default'],
  );
  const err = await t.throwsAsync(j.read('/', 'all'));
  t.regex(err!.message, /interfaces\/interface: list failed: .*(error|JSON)/);
  const e = unitHarness(plugin, {
    'show running-config': '',
    'show vrf': '',
    'show interface json': '% Unknown command: show interface json',
  });
  t.regex((await t.throwsAsync(e.read('/', 'all')))!.message, /the device answered with an error: % Unknown command: show interface json/);
  const ms = cpuMs();
  t.true(ms < 5000, `linear in the size of the output (a backtracking parse takes minutes here): ${ms.toFixed(0)} ms of CPU`);
});

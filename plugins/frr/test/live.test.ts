/**
 * The FRR units against the real FRR 8.4.4 peer (test/peers/frr-device.sh), over the SDK's SSH session:
 * read, plan a write, send its commands in one configuration session (as a CLI southbound does, checking
 * each output against the units' error patterns and undoing on failure), read back through the units,
 * and check the device's own `show running-config` through vtysh on the device. Serial: there is one FRR
 * peer per machine. A peer that was running before is left running. Without FRR the suite is skipped,
 * loudly.
 */
import test from 'ava';
import {
  cachingSession,
  connectSshCli,
  parseBlocks,
  planWrite,
  readUnits,
  sections,
  type JsonObject,
  type SshCliSession,
  type WritePlan,
} from '@rosetta/sdk';
import { FRR_ERROR_PATTERNS, unit } from '../src/index';
import { acquireFrrPeer, frrPeerUnavailable, PEER, type FrrPeerLease } from './peer';

const IF = 'rosetta-openconfig-interfaces:interfaces';
const NIS = 'rosetta-openconfig-network-instance:network-instances';
const STATIC_ID = 'rosetta-openconfig-policy-types:STATIC';
const BGP_ID = 'rosetta-openconfig-policy-types:BGP';
const AS = 65077;

// what this suite configures, removed on the device whatever happens
const CLEANUP = [
  `no router bgp ${AS} vrf f1red`,
  `no router bgp ${AS}`,
  'no vrf f1red',
  'no ip route 10.77.0.0/16 127.0.0.2 20',
  'no ip route 10.77.0.0/16 127.0.0.2 40',
  'no ip route 10.78.0.0/16 Null0',
  'interface eth9',
  ' no description',
  ' no shutdown',
  ' no ip address 192.0.2.9/30',
  ' no ip address 192.0.2.13/30',
  'exit',
];
for (let i = 0; i < 100; i++) CLEANUP.push(`no ip route 10.${100 + Math.floor(i / 50)}.${i % 50}.0/24 Null0`);

const unavailable = frrPeerUnavailable();
let session: SshCliSession | undefined;
let peer: FrrPeerLease | undefined;

if (unavailable) {
  console.warn(`\n  FRR live tests SKIPPED: ${unavailable}\n`);
  test.skip(`live FRR tests skipped: ${unavailable}`, () => undefined);
} else {
  test.before(async () => {
    peer = await acquireFrrPeer({ who: 'plugins/frr live.test' });
    session = await connectSshCli(PEER);
  });
  test.after.always(async () => {
    session?.close();
    peer?.configure(CLEANUP);
    await peer?.release();
  });
}

const deviceRunningConfig = () => peer!.runningConfig();

async function read(content: 'config' | 'all' | 'nonconfig' = 'config', path = '/'): Promise<JsonObject> {
  return (await readUnits([unit], cachingSession(session!), { path, content })) ?? {};
}

/** Sends a plan in one configuration session; on the first failing command sends the undo. */
async function apply(plan: WritePlan): Promise<{ failed?: string; message?: string; sent: number }> {
  const s = session!;
  await s.exec('configure terminal');
  let sent = 0;
  try {
    for (const command of plan.commands) {
      const out = await s.exec(command);
      sent++;
      const error = FRR_ERROR_PATTERNS.map((p) => p.exec(out)?.[0]).find((m) => m !== undefined);
      if (error) {
        await s.exec('end');
        await s.exec('configure terminal');
        for (const u of plan.undo) await s.exec(u); // undo of steps never sent may complain: harmless
        return { failed: command, message: error, sent };
      }
    }
    return { sent };
  } finally {
    await s.exec('end');
  }
}

const instance = (doc: any, name: string) => doc[NIS]['network-instance'].find((n: any) => n.name === name);
const iface = (doc: any, name: string) => doc[IF]?.interface.find((i: any) => i.name === name);
const deviceBlock = (header: RegExp) => sections(deviceRunningConfig(), header)[0]?.lines;
const deviceTopLines = () => parseBlocks(deviceRunningConfig()).map((b) => b.text);

function hops(list: Array<[string, string, number?]>) {
  return { 'next-hop': list.map(([index, nh, metric]) => ({ index, config: { index, 'next-hop': nh, ...(metric ? { metric } : {}) } })) };
}

const WANT_IF = {
  name: 'eth9',
  config: { name: 'eth9', enabled: false, description: 'link nine' },
  subinterfaces: {
    subinterface: [
      {
        index: 0,
        config: { index: 0 },
        ipv4: { addresses: { address: [{ ip: '192.0.2.9', config: { ip: '192.0.2.9', 'prefix-length': 30 } }] } },
      },
    ],
  },
};
const WANT_STATIC = {
  identifier: STATIC_ID,
  name: 'static',
  config: { identifier: STATIC_ID, name: 'static' },
  'static-routes': {
    static: [
      { prefix: '10.77.0.0/16', config: { prefix: '10.77.0.0/16' }, 'next-hops': hops([['127.0.0.2', '127.0.0.2', 20]]) },
      { prefix: '10.78.0.0/16', config: { prefix: '10.78.0.0/16' }, 'next-hops': hops([['DROP', 'DROP']]) },
    ],
  },
};
const WANT_BGP = {
  identifier: BGP_ID,
  name: 'default',
  config: { identifier: BGP_ID, name: 'default' },
  bgp: {
    global: { config: { as: AS, 'router-id': '10.77.0.1' } },
    neighbors: {
      neighbor: [
        {
          'neighbor-address': '127.0.0.2',
          config: { 'neighbor-address': '127.0.0.2', enabled: true, 'peer-as': 65002, description: 'peer two' },
        },
        { 'neighbor-address': '127.0.0.3', config: { 'neighbor-address': '127.0.0.3', enabled: false } },
      ],
    },
  },
};
const WANT_RED = {
  name: 'f1red',
  config: { name: 'f1red', type: 'rosetta-openconfig-network-instance:L3VRF' },
  protocols: {
    protocol: [
      {
        identifier: STATIC_ID,
        name: 'static',
        config: { identifier: STATIC_ID, name: 'static' },
        'static-routes': {
          static: [{ prefix: '10.79.0.0/16', config: { prefix: '10.79.0.0/16' }, 'next-hops': hops([['127.0.0.9', '127.0.0.9', 5]]) }],
        },
      },
      {
        identifier: BGP_ID,
        name: 'default',
        config: { identifier: BGP_ID, name: 'default' },
        bgp: {
          global: { config: { as: AS } },
          neighbors: {
            neighbor: [{ 'neighbor-address': '127.0.0.5', config: { 'neighbor-address': '127.0.0.5', enabled: true, 'peer-as': 65005 } }],
          },
        },
      },
    ],
  },
};

if (!unavailable) {
  test.serial('create interfaces, static routes, BGP and a VRF; the device has them; reading back gives them', async (t) => {
    const before = await read();
    t.is(iface(before, 'eth9'), undefined);
    const after: any = structuredClone(before);
    (after[IF] ??= { interface: [] }).interface.push(structuredClone(WANT_IF));
    instance(after, 'default').protocols = { protocol: [structuredClone(WANT_STATIC), structuredClone(WANT_BGP)] };
    after[NIS]['network-instance'].push(structuredClone(WANT_RED));
    const plan = planWrite([unit], before, after);
    const result = await apply(plan);
    t.deepEqual(result, { sent: plan.commands.length }, `${result.failed}: ${result.message}`);

    // on the device itself
    t.deepEqual(deviceBlock(/^interface eth9$/), ['description link nine', 'ip address 192.0.2.9/30', 'shutdown']);
    const top = deviceTopLines();
    t.true(top.includes('ip route 10.77.0.0/16 127.0.0.2 20'));
    t.true(top.includes('ip route 10.78.0.0/16 Null0'));
    t.deepEqual(deviceBlock(/^vrf f1red$/), ['ip route 10.79.0.0/16 127.0.0.9 5']);
    t.deepEqual(deviceBlock(new RegExp(`^router bgp ${AS}$`)), [
      'bgp router-id 10.77.0.1',
      'neighbor 127.0.0.2 remote-as 65002',
      'neighbor 127.0.0.2 description peer two',
      'neighbor 127.0.0.3 remote-as internal',
      'neighbor 127.0.0.3 shutdown',
    ]);
    t.deepEqual(deviceBlock(new RegExp(`^router bgp ${AS} vrf f1red$`)), ['neighbor 127.0.0.5 remote-as 65005']);

    // through the units
    const back: any = await read();
    t.deepEqual(iface(back, 'eth9'), WANT_IF);
    t.deepEqual(instance(back, 'default').protocols, { protocol: [WANT_STATIC, WANT_BGP] });
    t.deepEqual(instance(back, 'f1red'), WANT_RED);
    t.deepEqual(planWrite([unit], back, after).commands, [], 'nothing left to send');

    const state: any = await read('nonconfig');
    const neighbors = instance(state, 'default').protocols.protocol[1].bgp.neighbors.neighbor;
    t.deepEqual(
      neighbors.map((n: any) => [n.state['neighbor-address'], n.state.enabled, n.state['peer-as']]),
      [
        ['127.0.0.2', true, 65002],
        ['127.0.0.3', false, AS],
      ],
    );
    for (const n of neighbors) t.regex(n.state['session-state'], /^(IDLE|CONNECT|ACTIVE)$/); // no peer answers in the namespace
    t.like(iface(state, 'eth9').state, { name: 'eth9', 'admin-status': 'DOWN', 'oper-status': 'NOT_PRESENT', description: 'link nine' });
  });

  test.serial('change and delete: the device follows, and reading back agrees', async (t) => {
    const before: any = await read();
    const after: any = structuredClone(before);
    const eth9 = iface(after, 'eth9');
    eth9.config = { name: 'eth9', enabled: true, description: 'link nine, moved' };
    eth9.subinterfaces.subinterface[0].ipv4.addresses.address = [{ ip: '192.0.2.13', config: { ip: '192.0.2.13', 'prefix-length': 30 } }];
    const def = instance(after, 'default');
    def.protocols.protocol[0]['static-routes'].static[0]['next-hops']['next-hop'][0].config.metric = 40;
    def.protocols.protocol[0]['static-routes'].static.splice(1, 1);
    def.protocols.protocol[1].bgp.neighbors.neighbor[0].config = { 'neighbor-address': '127.0.0.2', 'peer-as': 65002, enabled: false };
    def.protocols.protocol[1].bgp.neighbors.neighbor.splice(1, 1);
    const result = await apply(planWrite([unit], before, after));
    t.is(result.failed, undefined, result.message);
    t.deepEqual(deviceBlock(/^interface eth9$/), ['description link nine, moved', 'ip address 192.0.2.13/30']);
    t.true(deviceTopLines().includes('ip route 10.77.0.0/16 127.0.0.2 40'));
    t.false(deviceTopLines().includes('ip route 10.78.0.0/16 Null0'));
    t.deepEqual(deviceBlock(new RegExp(`^router bgp ${AS}$`)), [
      'bgp router-id 10.77.0.1',
      'neighbor 127.0.0.2 remote-as 65002',
      'neighbor 127.0.0.2 shutdown',
    ]);
    t.deepEqual(planWrite([unit], await read(), after).commands, []);

    // delete the interface, the VRF (with its BGP and routes) and the default BGP instance
    const gone: any = structuredClone(after);
    gone[IF].interface = gone[IF].interface.filter((i: any) => i.name !== 'eth9');
    gone[NIS]['network-instance'] = gone[NIS]['network-instance'].filter((n: any) => n.name !== 'f1red');
    instance(gone, 'default').protocols.protocol.splice(1, 1);
    const del = planWrite([unit], after, gone);
    t.deepEqual(del.commands, [
      // deepest first: the protocol, then the interface and the instance
      `no router bgp ${AS}`,
      'interface eth9',
      ' no description',
      ' no ip address 192.0.2.13/30',
      'exit',
      `no router bgp ${AS} vrf f1red`,
      'no vrf f1red',
    ]);
    t.is((await apply(del)).failed, undefined);
    const config = deviceRunningConfig();
    t.notRegex(config, /interface eth9|router bgp|vrf f1red/);
    t.regex(config, /^ip route 10\.77\.0\.0\/16 127\.0\.0\.2 40$/m);
    const back: any = await read();
    t.is(iface(back, 'eth9'), undefined);
    t.is(instance(back, 'f1red'), undefined);
    t.deepEqual(
      instance(back, 'default').protocols.protocol.map((p: any) => p.identifier),
      [STATIC_ID],
    );
  });

  test.serial('a command the device refuses: the error is named and what was sent is undone', async (t) => {
    const config = deviceRunningConfig();
    const before: any = await read();
    const after: any = structuredClone(before);
    (after[IF] ??= { interface: [] }).interface.push({
      name: 'eth9',
      config: { name: 'eth9', description: 'doomed' },
      // a well-formed address FRR refuses
      subinterfaces: {
        subinterface: [
          { index: 0, ipv4: { addresses: { address: [{ ip: '224.0.0.1', config: { ip: '224.0.0.1', 'prefix-length': 24 } }] } } },
        ],
      },
    });
    const result = await apply(planWrite([unit], before, after));
    t.is(result.failed, ' ip address 224.0.0.1/24');
    t.is(result.message, '% Invalid address');
    t.is(deviceRunningConfig(), config); // the description that was sent is gone again
  });

  test.serial('100 static routes in one write; the whole device read; timings', async (t) => {
    const before: any = await read();
    const after: any = structuredClone(before);
    const statics = instance(after, 'default').protocols.protocol[0]['static-routes'].static;
    for (let i = 0; i < 100; i++) {
      const prefix = `10.${100 + Math.floor(i / 50)}.${i % 50}.0/24`;
      statics.push({ prefix, config: { prefix }, 'next-hops': hops([['1', 'DROP']]) });
    }
    let start = performance.now();
    const plan = planWrite([unit], before, after);
    const planned = performance.now() - start;
    start = performance.now();
    t.is((await apply(plan)).failed, undefined);
    const sent = performance.now() - start;
    t.is(plan.commands.length, 100);
    t.is(deviceTopLines().filter((l) => /^ip route 10\.10[01]\./.test(l)).length, 100);
    start = performance.now();
    const all: any = await read('all');
    const readAll = performance.now() - start;
    t.is(instance(all, 'default').protocols.protocol[0]['static-routes'].static.length, 101);
    start = performance.now();
    t.is((await apply(planWrite([unit], after, before))).failed, undefined);
    const removed = performance.now() - start;
    t.is(deviceTopLines().filter((l) => /^ip route 10\.10[01]\./.test(l)).length, 0);
    t.log(
      `plan 100 routes ${planned.toFixed(1)} ms; send 100 routes ${sent.toFixed(0)} ms; read whole device (config+state) ${readAll.toFixed(0)} ms; remove 100 ${removed.toFixed(0)} ms`,
    );
  });
}

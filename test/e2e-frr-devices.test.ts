/**
 * CLI devices end to end through RESTCONF, against the real FRR 8.4.4 peer (test/peers/frr-device.sh):
 * the real service started with a plugins.json like the repository's (cli, netconf and the FRR units
 * enabled; TLS, auth, schema filters and callbacks disabled), then
 * - install-node; GET of the whole mount point and subtrees in both contents, with fields and depth;
 * - PUT/PATCH/DELETE of interfaces (with an IPv4 address), static routes (the `protocol=...:STATIC,static`
 *   key, `static=%22<prefix>%22`) and BGP neighbors, each checked with `vtysh -c 'show running-config'`
 *   on the device itself;
 * - a command FRR refuses: the write is undone (running config byte-identical), the error names the
 *   command and FRR's message;
 * - the dry-run RPC (sends nothing) and execute-and-read under the mount's operations path;
 * - the peer killed while the node is installed: 502, then connected again once the peer is back;
 * - bad input: wrong password, closed port, unknown device-type, uncovered version, a device (the SDK
 *   simulator) hanging mid-output, a command the device answers with an error: each a clear error or
 *   status while the FRR node keeps being served;
 * - installed nodes survive a service restart and reconnect; uninstall;
 * - the password is in no response, log line or file of the data folder in clear text.
 * The peer is leased through the SDK's acquireFrrPeer (one per machine; other files wait). Without FRR
 * the suite is skipped, loudly.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig, type ServiceConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import {
  acquireFrrPeer,
  frrDevice,
  frrPeerLogin,
  frrPeerUnavailable,
  startSimulator,
  type FrrPeerLease,
  type SimulatedDevice,
} from '@rosetta/sdk/testing';

const REPO = path.resolve(__dirname, '../..'); // from test/dist
const PEER = frrPeerLogin();
const NODES = '/rests/data/network-topology:network-topology';
const OPS = '/rests/operations/network-topology:network-topology/topology=cli/node=FRR1/yang-ext:mount';
const MOUNT = `${NODES}/topology=cli/node=FRR1/yang-ext:mount`;
const IFACES = `${MOUNT}/rosetta-openconfig-interfaces:interfaces`;
const NI = `${MOUNT}/rosetta-openconfig-network-instance:network-instances/network-instance=default`;
const STATIC = `${NI}/protocols/protocol=rosetta-openconfig-policy-types:STATIC,static`;
const BGP = `${NI}/protocols/protocol=rosetta-openconfig-policy-types:BGP,default/bgp`;
const WRONG_PASSWORD = 'wr0ng-Pa55word-e2e';

const unavailable = frrPeerUnavailable();
if (unavailable) console.warn(`\n*** e2e-frr-devices: SKIPPING the real-device tests: ${unavailable} ***\n`);
const serial = unavailable === undefined ? test.serial : test.serial.skip;

let peer: FrrPeerLease | undefined;
let service: RunningService | undefined;
let config: ServiceConfig;
let dataDir: string;
let hanging: SimulatedDevice | undefined;
/** Every response body and log line, searched for passwords at the end. */
const seen: string[] = [];

async function startRosetta(): Promise<RunningService> {
  return startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: {
      info: (m) => {
        seen.push(m);
      },
      error: (m) => {
        seen.push(m);
      },
    },
  });
}

interface Answer {
  status: number;
  text: string;
  json: any;
}

async function request(method: string, p: string, body?: unknown): Promise<Answer> {
  const res = await fetch(service!.url + p, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/yang-data+json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  seen.push(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** PUTs one static route of the default instance (prefix, its other route config, its next hops); its URL and the answer. */
async function putStatic(
  prefix: string,
  nextHops: unknown[],
  config: Record<string, unknown> = {},
): Promise<{ route: string; put: Answer }> {
  const route = `${STATIC}/static-routes/static=%22${prefix}%22`;
  const put = await request('PUT', route, {
    'rosetta-openconfig-network-instance:static': [{ prefix, config: { prefix, ...config }, 'next-hops': { 'next-hop': nextHops } }],
  });
  return { route, put };
}

function install(nodeId: string, settings: Record<string, unknown> = {}): Promise<Answer> {
  const cli: Record<string, unknown> = {
    'cli-topology:host': PEER.host,
    'cli-topology:port': PEER.port,
    'cli-topology:transport-type': 'ssh',
    'cli-topology:device-type': 'frr',
    'cli-topology:device-version': '8.4.4',
    'cli-topology:username': PEER.username,
    'cli-topology:password': PEER.password,
  };
  for (const [k, v] of Object.entries(settings)) cli[`cli-topology:${k}`] = v;
  return request('POST', '/rests/operations/connection-manager:install-node', { input: { 'node-id': nodeId, cli } });
}

const uninstall = (nodeId: string) =>
  request('POST', '/rests/operations/connection-manager:uninstall-node', { input: { 'node-id': nodeId, 'connection-type': 'cli' } });

async function nodeStatus(nodeId: string): Promise<{ status: string | undefined; message: string }> {
  const r = await request('GET', `${NODES}/topology=cli/node=${nodeId}?content=nonconfig`);
  const node = r.json?.['network-topology:node']?.[0] ?? {};
  return { status: node['cli-topology:connection-status'], message: String(node['cli-topology:connected-message'] ?? r.text) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const errorMessage = (a: Answer): string => a.json?.errors?.error?.[0]?.['error-message'] ?? a.text;
const onDevice = (): string => peer!.runningConfig();

test.before(async () => {
  if (unavailable) return;
  peer = await acquireFrrPeer({ who: 'test/e2e-frr-devices' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-e2e-frr-'));
  dataDir = path.join(dir, 'data');
  // the repository's plugins.json, with absolute paths and without watching (other engineers rebuild)
  const repoPlugins = JSON.parse(fs.readFileSync(path.join(REPO, 'plugins.json'), 'utf8')) as {
    plugins: Array<{ path: string; enabled: boolean }>;
  };
  const enabled = repoPlugins.plugins
    .filter((p) => p.enabled)
    .map((p) => p.path)
    .sort();
  if (JSON.stringify(enabled) !== JSON.stringify(['plugins/cli', 'plugins/frr', 'plugins/netconf']))
    throw new Error(`plugins.json enables ${enabled.join(', ')}`);
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(
    plugins,
    JSON.stringify({ watch: false, plugins: repoPlugins.plugins.map((p) => ({ ...p, path: path.join(REPO, p.path) })) }),
  );
  config = resolveConfig({ port: 0, dataDir, plugins }, dir);
  service = await startRosetta();
});

test.after.always(async () => {
  await service?.stop();
  await hanging?.close();
  await peer?.release();
});

serial('install-node: connected, served by the FRR units', async (t) => {
  const r = await install('FRR1');
  t.is(r.status, 204, r.text);
  const s = await nodeStatus('FRR1');
  t.is(s.status, 'connected', s.message);
  t.regex(
    s.message,
    /connected to frruser@127\.0\.0\.1:\d+ over SSH, device-type frr 8\.4\.4, prompt "frr-peer#"; served by @rosetta\/plugin-frr@/,
  );
  t.is((await install('FRR1')).status, 409);
});

serial(
  'host keys: the node shows the key the device presented, as ssh-keygen -lf prints it; pinned to it another node connects',
  async (t) => {
    const stateDir = process.env.FRR_PEER_STATE ?? '/tmp/peer-frr';
    const fingerprints = fs
      .readdirSync(stateDir)
      .filter((f) => /^ssh_host_\w+_key\.pub$/.test(f))
      .map((f) => execFileSync('ssh-keygen', ['-lf', path.join(stateDir, f)], { encoding: 'utf8' }).split(' ')[1]!);
    const r = await request('GET', `${NODES}/topology=cli/node=FRR1?content=nonconfig`);
    const shown = r.json['network-topology:node'][0]['cli-topology:host-key-fingerprint'];
    t.true(fingerprints.includes(shown), `${shown} among ${fingerprints.join(', ')}`);
    const pinned = await install('PINNED', { 'host-key': shown });
    t.is(pinned.status, 204, pinned.text);
    t.is((await nodeStatus('PINNED')).status, 'connected');
    t.is((await uninstall('PINNED')).status, 204);
  },
);

serial('GET the whole mount point and subtrees in both contents, with fields and depth', async (t) => {
  const all = await request('GET', MOUNT);
  t.is(all.status, 200, all.text);
  const data = all.json['ietf-restconf:data'];
  t.truthy(data['rosetta-openconfig-interfaces:interfaces'].interface.find((i: any) => i.name === 'lo')?.state);
  t.truthy(data['rosetta-openconfig-network-instance:network-instances']['network-instance'].find((n: any) => n.name === 'default'));

  const config = await request('GET', `${MOUNT}/rosetta-openconfig-network-instance:network-instances?content=config`);
  t.is(config.status, 200, config.text);
  t.false(config.text.includes('"state"'), 'content=config has no state');
  const state = await request('GET', `${IFACES}/interface=lo/state?content=nonconfig`);
  t.is(state.status, 200, state.text);
  t.regex(state.json['rosetta-openconfig-interfaces:state']['oper-status'], /^(UP|DOWN|UNKNOWN)$/);
  t.is(state.json['rosetta-openconfig-interfaces:state']['admin-status'], 'UP');

  const fields = await request('GET', `${IFACES}?content=nonconfig&fields=interface(name;state/admin-status)`);
  t.is(fields.status, 200, fields.text);
  t.deepEqual(
    fields.json['rosetta-openconfig-interfaces:interfaces'].interface.find((i: any) => i.name === 'lo'),
    { name: 'lo', state: { 'admin-status': 'UP' } },
  );
  const shallow = await request('GET', `${MOUNT}?depth=1`);
  t.is(shallow.status, 200, shallow.text);
  t.deepEqual(Object.keys(shallow.json['ietf-restconf:data']).sort(), [
    'rosetta-openconfig-interfaces:interfaces',
    'rosetta-openconfig-network-instance:network-instances',
  ]);
  t.is((await request('GET', `${IFACES}/interface=nosuch0`)).status, 404);
});

serial('interfaces: PUT with an IPv4 address, PATCH, DELETE, checked with vtysh', async (t) => {
  const url = `${IFACES}/interface=rtest1`;
  const put = await request('PUT', url, {
    'rosetta-openconfig-interfaces:interface': [
      {
        name: 'rtest1',
        config: { name: 'rtest1', description: 'e2e one', enabled: true },
        subinterfaces: {
          subinterface: [
            {
              index: 0,
              config: { index: 0 },
              ipv4: { addresses: { address: [{ ip: '192.0.2.61', config: { ip: '192.0.2.61', 'prefix-length': 30 } }] } },
            },
          ],
        },
      },
    ],
  });
  t.is(put.status, 201, put.text);
  t.regex(onDevice(), /\ninterface rtest1\n description e2e one\n ip address 192\.0\.2\.61\/30\nexit\n/);

  const patch = await request('PATCH', `${url}/config`, { 'rosetta-openconfig-interfaces:config': { enabled: false } });
  t.is(patch.status, 200, patch.text);
  t.regex(onDevice(), /\ninterface rtest1\n description e2e one\n ip address 192\.0\.2\.61\/30\n shutdown\nexit\n/);
  const read = await request('GET', `${url}?content=config`);
  t.is(read.json['rosetta-openconfig-interfaces:interface'][0].config.enabled, false, read.text);

  const addr = `${url}/subinterfaces/subinterface=0/ipv4/addresses/address=192.0.2.61`;
  const delAddr = await request('DELETE', addr);
  t.is(delAddr.status, 204, delAddr.text);
  t.notRegex(onDevice(), /ip address 192\.0\.2\.61/);
  t.is((await request('DELETE', addr)).status, 404, 'deleting what is gone is data-missing');

  const del = await request('DELETE', url);
  t.is(del.status, 204, del.text);
  t.notRegex(onDevice(), /interface rtest1/);
});

serial('static routes: PUT static=%22<prefix>%22 under protocol=STATIC,static, PATCH the metric, DELETE, checked with vtysh', async (t) => {
  const { route, put } = await putStatic('10.61.0.0/16', [
    { index: '127.0.0.2', config: { index: '127.0.0.2', 'next-hop': '127.0.0.2', metric: 20 } },
  ]);
  t.is(put.status, 201, put.text);
  t.regex(onDevice(), /\nip route 10\.61\.0\.0\/16 127\.0\.0\.2 20\n/);

  const patch = await request('PATCH', `${route}/next-hops/next-hop=127.0.0.2/config`, {
    'rosetta-openconfig-network-instance:config': { metric: 30 },
  });
  t.is(patch.status, 200, patch.text);
  const after = onDevice();
  t.regex(after, /\nip route 10\.61\.0\.0\/16 127\.0\.0\.2 30\n/);
  t.notRegex(after, /ip route 10\.61\.0\.0\/16 127\.0\.0\.2 20/);

  const config = await request('GET', `${route}?content=config`);
  t.is(config.status, 200, config.text);
  t.deepEqual(config.json['rosetta-openconfig-network-instance:static'][0]['next-hops']['next-hop'][0].config, {
    index: '127.0.0.2',
    'next-hop': '127.0.0.2',
    metric: 30,
  });
  const state = await request('GET', `${route}?content=nonconfig`);
  t.is(state.status, 200, state.text);
  t.is(state.json['rosetta-openconfig-network-instance:static'][0].state.prefix, '10.61.0.0/16', state.text);

  const del = await request('DELETE', route);
  t.is(del.status, 204, del.text);
  t.notRegex(onDevice(), /ip route 10\.61\./);
});

serial(
  'static routes through an interface, alone and with a gateway: PUT, read back as interface-ref, DELETE, checked with vtysh',
  async (t) => {
    const { route, put } = await putStatic('10.63.0.0/16', [
      { index: 'lo', config: { index: 'lo' }, 'interface-ref': { config: { interface: 'lo' } } },
      { index: 'gw', config: { index: 'gw', 'next-hop': '127.0.0.2', metric: 40 }, 'interface-ref': { config: { interface: 'lo' } } },
    ]);
    t.is(put.status, 201, put.text);
    const config = onDevice();
    t.regex(config, /\nip route 10\.63\.0\.0\/16 lo\n/);
    t.regex(config, /\nip route 10\.63\.0\.0\/16 127\.0\.0\.2 lo 40\n/);

    const read = await request('GET', `${route}/next-hops?content=config`);
    t.is(read.status, 200, read.text);
    t.deepEqual(read.json['rosetta-openconfig-network-instance:next-hops']['next-hop'], [
      { index: 'lo', config: { index: 'lo' }, 'interface-ref': { config: { interface: 'lo' } } },
      {
        index: '127.0.0.2+lo',
        config: { index: '127.0.0.2+lo', 'next-hop': '127.0.0.2', metric: 40 },
        'interface-ref': { config: { interface: 'lo' } },
      },
    ]);
    const del = await request('DELETE', route);
    t.is(del.status, 204, del.text);
    t.notRegex(onDevice(), /ip route 10\.63\./);
  },
);

serial(
  'route tags and REJECT: PUT a tagged route with a reject next hop, read back, PATCH the tag, DELETE, checked with vtysh',
  async (t) => {
    const { route, put } = await putStatic(
      '10.64.0.0/16',
      [
        { index: 'gw', config: { index: 'gw', 'next-hop': '127.0.0.2' } },
        { index: 'last', config: { index: 'last', 'next-hop': 'REJECT', metric: 250 } },
      ],
      { 'set-tag': 64 },
    );
    t.is(put.status, 201, put.text);
    let config = onDevice();
    t.regex(config, /\nip route 10\.64\.0\.0\/16 127\.0\.0\.2 tag 64\n/);
    t.regex(config, /\nip route 10\.64\.0\.0\/16 reject tag 64 250\n/);

    const read = await request('GET', `${route}?content=config`);
    t.is(read.status, 200, read.text);
    const entry = read.json['rosetta-openconfig-network-instance:static'][0];
    t.deepEqual(entry.config, { prefix: '10.64.0.0/16', 'set-tag': 64 });
    t.deepEqual(
      entry['next-hops']['next-hop'].map((h: any) => h.config),
      [
        { index: '127.0.0.2', 'next-hop': '127.0.0.2' },
        { index: 'REJECT', 'next-hop': 'REJECT', metric: 250 },
      ],
    );
    const patch = await request('PATCH', `${route}/config`, { 'rosetta-openconfig-network-instance:config': { 'set-tag': 65 } });
    t.is(patch.status, 200, patch.text);
    config = onDevice();
    t.regex(config, /\nip route 10\.64\.0\.0\/16 127\.0\.0\.2 tag 65\n/);
    t.regex(config, /\nip route 10\.64\.0\.0\/16 reject tag 65 250\n/);
    t.notRegex(config, /tag 64/);
    const bad = await request('PATCH', `${route}/config`, { 'rosetta-openconfig-network-instance:config': { 'set-tag': 0 } });
    t.is(bad.status, 400, bad.text);
    t.regex(bad.text, /set-tag/);
    const del = await request('DELETE', route);
    t.is(del.status, 204, del.text);
    t.notRegex(onDevice(), /ip route 10\.64\./);
  },
);

serial(
  'a gateway looked up in another VRF, or an interface of it (nh-network-instance, FRR nexthop-vrf): PUT, read back, PATCH its metric, DELETE, checked with vtysh',
  async (t) => {
    const { route, put } = await putStatic('10.65.0.0/16', [
      { index: 'leak', config: { index: 'leak', 'next-hop': '127.0.0.2', 'nh-network-instance': 'e2eleak' } },
      { index: 'own', config: { index: 'own', 'next-hop': '127.0.0.2' } },
      { index: 'out', config: { index: 'out', 'nh-network-instance': 'e2eleak' }, 'interface-ref': { config: { interface: 'lo' } } },
    ]);
    t.is(put.status, 201, put.text);
    let config = onDevice();
    t.regex(config, /\nip route 10\.65\.0\.0\/16 127\.0\.0\.2 nexthop-vrf e2eleak\n/);
    t.regex(config, /\nip route 10\.65\.0\.0\/16 127\.0\.0\.2\n/);
    t.regex(config, /\nip route 10\.65\.0\.0\/16 lo nexthop-vrf e2eleak\n/);
    const read = await request('GET', `${route}/next-hops?content=config`);
    t.is(read.status, 200, read.text);
    const hops = read.json['rosetta-openconfig-network-instance:next-hops']['next-hop'];
    // in the device's order (FRR prints the route's own-table line first)
    t.deepEqual(
      hops.filter((h: any) => h['interface-ref'] === undefined).map((h: any) => h.config),
      [
        { index: '127.0.0.2', 'next-hop': '127.0.0.2' },
        { index: '127.0.0.2%e2eleak', 'next-hop': '127.0.0.2', 'nh-network-instance': 'e2eleak' },
      ],
    );
    t.deepEqual(
      hops.filter((h: any) => h['interface-ref'] !== undefined),
      [
        {
          index: 'lo%e2eleak',
          config: { index: 'lo%e2eleak', 'nh-network-instance': 'e2eleak' },
          'interface-ref': { config: { interface: 'lo' } },
        },
      ],
    );
    // a changed line is removed with its nexthop-vrf (FRR refuses a `no ip route` without it) and written anew
    const patch = await request('PATCH', `${route}/next-hops/next-hop=127.0.0.2%25e2eleak/config`, {
      'rosetta-openconfig-network-instance:config': { metric: 30 },
    });
    t.is(patch.status, 200, patch.text);
    config = onDevice();
    t.regex(config, /\nip route 10\.65\.0\.0\/16 127\.0\.0\.2 30 nexthop-vrf e2eleak\n/);
    t.notRegex(config, /\nip route 10\.65\.0\.0\/16 127\.0\.0\.2 nexthop-vrf/);
    const own = await request('PATCH', `${route}/next-hops/next-hop=127.0.0.2/config`, {
      'rosetta-openconfig-network-instance:config': { 'nh-network-instance': 'default' },
    });
    t.is(own.status, 400, own.text); // the unit cannot say it: the request's fault, at the route's path, nothing sent
    const fault = own.json.errors.error[0];
    t.is(fault['error-tag'], 'invalid-value');
    t.regex(fault['error-path'], /static\[prefix='10\.65\.0\.0\/16'\]$/);
    t.regex(fault['error-message'], /own network instance/);
    const del = await request('DELETE', route);
    t.is(del.status, 204, del.text);
    t.notRegex(onDevice(), /ip route 10\.65\./);
  },
);

serial('onlink (rosetta-frr-extensions:onlink): PUT, read back, PATCH it off, DELETE, checked with vtysh', async (t) => {
  const { route, put } = await putStatic('10.66.0.0/16', [
    {
      index: 'attached',
      config: { index: 'attached', 'next-hop': '192.0.2.1', metric: 40, 'rosetta-frr-extensions:onlink': true },
      'interface-ref': { config: { interface: 'lo' } },
    },
  ]);
  t.is(put.status, 201, put.text);
  t.regex(onDevice(), /\nip route 10\.66\.0\.0\/16 192\.0\.2\.1 lo 40 onlink\n/);
  const read = await request('GET', `${route}/next-hops?content=all`);
  t.is(read.status, 200, read.text);
  const [hop] = read.json['rosetta-openconfig-network-instance:next-hops']['next-hop'];
  t.deepEqual(hop.config, { index: '192.0.2.1+lo', 'next-hop': '192.0.2.1', metric: 40, 'rosetta-frr-extensions:onlink': true });
  t.is(hop.state['rosetta-frr-extensions:onlink'], true);
  const off = await request('PATCH', `${route}/next-hops/next-hop=192.0.2.1+lo/config`, {
    'rosetta-openconfig-network-instance:config': { 'rosetta-frr-extensions:onlink': false },
  });
  t.is(off.status, 200, off.text);
  const config = onDevice();
  t.regex(config, /\nip route 10\.66\.0\.0\/16 192\.0\.2\.1 lo 40\n/);
  t.notRegex(config, /10\.66\.0\.0\/16 .*onlink/);
  const lone = await putStatic('10.67.0.0/16', [
    { index: 'g', config: { index: 'g', 'next-hop': '192.0.2.1', 'rosetta-frr-extensions:onlink': true } },
  ]);
  t.is(lone.put.status, 400, lone.put.text); // FRR would take it for an interface named onlink: nothing sent
  t.regex(lone.put.json.errors.error[0]['error-message'], /onlink binds a gateway address to an interface/);
  t.notRegex(onDevice(), /10\.67\./);
  const del = await request('DELETE', route);
  t.is(del.status, 204, del.text);
  t.notRegex(onDevice(), /ip route 10\.66\./);
});

serial(
  'next hops with their own tags (rosetta-frr-extensions:tag): PUT, read back, PATCH to one tag (set-tag again), DELETE, checked with vtysh',
  async (t) => {
    const { route, put } = await putStatic(
      '10.68.0.0/16',
      [
        { index: 'a', config: { index: 'a', 'next-hop': '127.0.0.2', metric: 10, 'rosetta-frr-extensions:tag': 7 } },
        { index: 'b', config: { index: 'b', 'next-hop': '127.0.0.3', metric: 20 } },
      ],
      { 'set-tag': 5 },
    );
    t.is(put.status, 201, put.text);
    let config = onDevice();
    t.regex(config, /\nip route 10\.68\.0\.0\/16 127\.0\.0\.2 tag 7 10\n/);
    t.regex(config, /\nip route 10\.68\.0\.0\/16 127\.0\.0\.3 tag 5 20\n/);
    let read = await request('GET', `${route}?content=config`);
    t.is(read.status, 200, read.text);
    let entry = read.json['rosetta-openconfig-network-instance:static'][0];
    t.is(entry.config['set-tag'], undefined, 'the lines carry different tags: the route has none');
    t.deepEqual(
      entry['next-hops']['next-hop'].map((h: any) => [h.index, h.config['rosetta-frr-extensions:tag']]),
      [
        ['127.0.0.2', 7],
        ['127.0.0.3', 5],
      ],
    );
    // one metric, two tags: FRR would keep one; refused before anything is sent
    const clash = await request('PATCH', `${route}/next-hops/next-hop=127.0.0.2/config`, {
      'rosetta-openconfig-network-instance:config': { metric: 20 },
    });
    t.is(clash.status, 400, clash.text);
    t.regex(clash.text, /have metric 20 and different tags/);
    const same = await request('PATCH', `${route}/next-hops/next-hop=127.0.0.2/config`, {
      'rosetta-openconfig-network-instance:config': { 'rosetta-frr-extensions:tag': 5 },
    });
    t.is(same.status, 200, same.text);
    config = onDevice();
    t.regex(config, /\nip route 10\.68\.0\.0\/16 127\.0\.0\.2 tag 5 10\n/);
    read = await request('GET', `${route}?content=config`);
    entry = read.json['rosetta-openconfig-network-instance:static'][0];
    t.is(entry.config['set-tag'], 5, "one tag on every line: the route's set-tag again");
    t.true(entry['next-hops']['next-hop'].every((h: any) => h.config['rosetta-frr-extensions:tag'] === undefined));
    const del = await request('DELETE', route);
    t.is(del.status, 204, del.text);
    t.notRegex(onDevice(), /ip route 10\.68\./);
  },
);

serial('BGP: PUT global and a neighbor, PATCH enabled, POST an internal neighbor, DELETE, checked with vtysh', async (t) => {
  const put = await request('PUT', BGP, {
    'rosetta-openconfig-network-instance:bgp': {
      global: { config: { as: 65061, 'router-id': '10.61.0.1' } },
      neighbors: {
        neighbor: [
          { 'neighbor-address': '127.0.0.2', config: { 'neighbor-address': '127.0.0.2', 'peer-as': 65062, description: 'e2e peer' } },
        ],
      },
    },
  });
  t.true(put.status === 201 || put.status === 204, put.text);
  t.regex(
    onDevice(),
    /\nrouter bgp 65061\n bgp router-id 10\.61\.0\.1\n neighbor 127\.0\.0\.2 remote-as 65062\n neighbor 127\.0\.0\.2 description e2e peer\n/,
  );

  const neighbor = `${BGP}/neighbors/neighbor=127.0.0.2`;
  const patch = await request('PATCH', `${neighbor}/config`, { 'rosetta-openconfig-network-instance:config': { enabled: false } });
  t.is(patch.status, 200, patch.text);
  t.regex(onDevice(), /\n neighbor 127\.0\.0\.2 shutdown\n/);

  const post = await request('POST', `${BGP}/neighbors`, {
    'rosetta-openconfig-network-instance:neighbor': [{ 'neighbor-address': '127.0.0.3', config: { 'neighbor-address': '127.0.0.3' } }],
  });
  t.is(post.status, 201, post.text);
  t.regex(onDevice(), /\n neighbor 127\.0\.0\.3 remote-as internal\n/);

  const state = await request('GET', `${neighbor}/state?content=nonconfig`);
  t.is(state.status, 200, state.text);
  t.regex(state.json['rosetta-openconfig-network-instance:state']['session-state'], /^(IDLE|CONNECT|ACTIVE)$/); // nothing answers in the peer's namespace

  const del = await request('DELETE', `${BGP}/neighbors/neighbor=127.0.0.3`);
  t.is(del.status, 204, del.text);
  t.notRegex(onDevice(), /neighbor 127\.0\.0\.3/);
  const delAll = await request('DELETE', `${NI}/protocols/protocol=rosetta-openconfig-policy-types:BGP,default`);
  t.is(delAll.status, 204, delAll.text);
  t.notRegex(onDevice(), /router bgp/);
});

serial('a command FRR refuses: the write is undone, the device is byte-identical, the error names command and message', async (t) => {
  const before = onDevice();
  const r = await request('PUT', `${IFACES}/interface=rtest2`, {
    'rosetta-openconfig-interfaces:interface': [
      {
        name: 'rtest2',
        config: { name: 'rtest2', description: 'doomed' },
        // well-formed, but FRR refuses a multicast address on an interface
        subinterfaces: {
          subinterface: [
            {
              index: 0,
              config: { index: 0 },
              ipv4: { addresses: { address: [{ ip: '224.0.0.1', config: { ip: '224.0.0.1', 'prefix-length': 24 } }] } },
            },
          ],
        },
      },
    ],
  });
  t.is(r.status, 502, r.text);
  t.regex(errorMessage(r), /device 'FRR1' refused 'ip address 224\.0\.0\.1\/24': % Invalid address/);
  t.is(onDevice(), before);
  t.is((await request('GET', `${IFACES}/interface=rtest2?content=config`)).status, 404, 'the device is re-read: nothing is configured');
});

serial('dry-run sends nothing; execute-and-read answers the output; an error the device prints comes back as its output', async (t) => {
  const before = onDevice();
  const wanted = {
    'rosetta-openconfig-network-instance:network-instances': {
      'network-instance': [
        {
          name: 'default',
          config: { name: 'default' },
          protocols: {
            protocol: [
              {
                identifier: 'rosetta-openconfig-policy-types:STATIC',
                name: 'static',
                config: { identifier: 'rosetta-openconfig-policy-types:STATIC', name: 'static' },
                'static-routes': {
                  static: [
                    {
                      prefix: '10.62.0.0/16',
                      config: { prefix: '10.62.0.0/16' },
                      'next-hops': { 'next-hop': [{ index: '127.0.0.2', config: { index: '127.0.0.2', 'next-hop': '127.0.0.2' } }] },
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    },
  };
  const dry = await request('POST', `${OPS}/cli-unit-generic:dry-run`, { input: { after: wanted } });
  t.is(dry.status, 200, dry.text);
  const out = dry.json['cli-unit-generic:output'];
  t.true(out.commands.includes('ip route 10.62.0.0/16 127.0.0.2'), dry.text);
  t.true(out['undo-commands'].includes('no ip route 10.62.0.0/16 127.0.0.2'), dry.text);
  t.is(onDevice(), before, 'a dry run sends nothing');

  const version = await request('POST', `${OPS}/cli-unit-generic:execute-and-read`, { input: { command: 'show version' } });
  t.is(version.status, 200, version.text);
  t.regex(version.json['cli-unit-generic:output'].output, /^FRRouting 8\.4\.4 \(frr-peer\) on Linux/);
  const bad = await request('POST', `${OPS}/cli-unit-generic:execute-and-read`, { input: { command: 'show foo' } });
  t.is(bad.status, 200, bad.text);
  t.regex(bad.json['cli-unit-generic:output'].output, /% Unknown command: show foo/);
  t.is((await request('POST', `${OPS}/cli-unit-generic:execute-and-read`, { input: {} })).status, 400);
});

serial(
  'bad input: wrong password, closed port, unknown device-type, uncovered version, a hanging device; FRR1 keeps being served',
  async (t) => {
    const wrong = await install('BADPW', { password: WRONG_PASSWORD });
    t.is(wrong.status, 502, wrong.text);
    t.regex(errorMessage(wrong), /device 'BADPW' cannot be reached: .*authentication failed/);
    t.is((await nodeStatus('BADPW')).status, undefined, 'nothing is left behind');

    const closed = await install('CLOSED', { port: 1 });
    t.is(closed.status, 502, closed.text);
    t.regex(errorMessage(closed), /ECONNREFUSED/);

    for (const [nodeId, type, version, why] of [
      ['JUNOS', 'junos', '21.4', /no translated models: no translation unit is loaded for device type "junos"/],
      ['OLDFRR', 'frr', '7.0', /no translated models: no translation unit for frr covers version 7\.0/],
    ] as const) {
      const r = await install(nodeId, { 'device-type': type, 'device-version': version });
      t.is(r.status, 204, r.text);
      const s = await nodeStatus(nodeId);
      t.is(s.status, 'connected', s.message);
      t.regex(s.message, why);
      const read = await request('GET', `${NODES}/topology=cli/node=${nodeId}/yang-ext:mount`);
      t.is(read.status, 404, read.text);
      t.regex(errorMessage(read), new RegExp(`no data at the target: device '${nodeId}' has no translated models: no translation unit`));
      const dry = await request(
        'POST',
        `/rests/operations/network-topology:network-topology/topology=cli/node=${nodeId}/yang-ext:mount/cli-unit-generic:dry-run`,
        { input: { after: {} } },
      );
      t.is(dry.status, 404, dry.text);
      t.regex(errorMessage(dry), /no translation unit serves device-type .*; the mount point has no translated models/);
      const exec = await request(
        'POST',
        `/rests/operations/network-topology:network-topology/topology=cli/node=${nodeId}/yang-ext:mount/cli-unit-generic:execute-and-read`,
        { input: { command: 'show version' } },
      );
      t.is(exec.status, 200, exec.text);
      t.is((await uninstall(nodeId)).status, 204);
    }

    // the simulator hangs halfway through the state read's show command (install reads the configuration only)
    hanging = await startSimulator({ ...frrDevice({ username: 'frruser', password: 'simpass' }), hangOn: /^show interface json$/ });
    const hang = await install('HANG', { port: hanging.port, password: 'simpass', 'command-timeout': 2 });
    t.is(hang.status, 204, hang.text);
    const [hung, served] = await Promise.all([
      request('GET', `${NODES}/topology=cli/node=HANG/yang-ext:mount?content=nonconfig`),
      request('GET', `${MOUNT}?content=config`),
    ]);
    t.is(hung.status, 504, hung.text);
    t.regex(errorMessage(hung), /no prompt after "show interface json" within 2000 ms/);
    t.is(served.status, 200, 'the FRR node is served while another device hangs');
    t.is((await uninstall('HANG')).status, 204);
  },
);

serial('the peer killed while installed: 502, then connected again once it is back', async (t) => {
  await peer!.stop();
  // the stop closes the peer's SSH sessions within a second or so; until then vtysh may still answer
  await until(
    'the session to notice the peer is gone',
    async () => ((await nodeStatus('FRR1')).status !== 'connected' ? true : undefined),
    15_000,
  );
  const down = await request('GET', `${MOUNT}?content=config`);
  t.is(down.status, 502, down.text);
  t.is(down.json.errors.error[0]['error-tag'], 'southbound_no_connection');
  await peer!.start();
  await until('FRR1 connected again', async () => ((await nodeStatus('FRR1')).status === 'connected' ? true : undefined));
  const up = await request('GET', `${MOUNT}?content=config`);
  t.is(up.status, 200, up.text);
});

serial('installed nodes survive a service restart and reconnect', async (t) => {
  await service!.stop();
  service = await startRosetta();
  const s = await until('FRR1 reconnected after the restart', async () => {
    const now = await nodeStatus('FRR1');
    return now.status === 'connected' ? now : undefined;
  });
  t.regex(s.message, /served by @rosetta\/plugin-frr@/);
  const r = await request('GET', `${IFACES}/interface=lo/state?content=nonconfig`);
  t.is(r.status, 200, r.text);
  t.is((await nodeStatus('JUNOS')).status, undefined, 'uninstalled nodes stay uninstalled');
});

serial('uninstall; the password is in no response, log line or persisted file', async (t) => {
  t.is((await uninstall('FRR1')).status, 204);
  t.is((await request('GET', MOUNT)).status, 404);
  t.is((await uninstall('FRR1')).status, 404);

  const passwords = [PEER.password, WRONG_PASSWORD, 'simpass'];
  for (const text of seen)
    for (const p of passwords) t.false(text.includes(p), `a response or log line shows a password: ${text.slice(0, 200)}`);
  t.true(seen.length > 20);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(dataDir);
  t.true(files.length > 0);
  for (const f of files) {
    const bytes = fs.readFileSync(f);
    for (const p of passwords) t.false(bytes.includes(p), `${f} holds a password in clear text`);
  }
});

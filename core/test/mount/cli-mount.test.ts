/**
 * Request-level tests of CLI mount points on a real server: install-node through the CLI southbound
 * (plugins/cli) to the SDK's FRR-like simulator over SSH, served by the FRR translation units
 * (plugins/frr); topologies and status; reads of the whole mount and subtrees with query parameters;
 * PUT/PATCH/POST/DELETE checked in the simulator's running configuration; errors; restart reconnects.
 */
import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { frrDevice, simulatorHostKeyFingerprint, startSimulator, type SimulatedDevice } from '@rosetta/sdk/testing';
import { eventually, pluginsFile, startMountService, type MountService } from './fixture';

const NODES = '/rests/data/network-topology:network-topology';
const MOUNT = `${NODES}/topology=cli/node=R1/yang-ext:mount`;
const IFACES = `${MOUNT}/rosetta-openconfig-interfaces:interfaces`;

let device: SimulatedDevice;
let s: MountService;
// the NETCONF southbound too: each device topology is there while its southbound plugin serves
const plugins = pluginsFile(['plugins/cli', 'plugins/netconf', 'plugins/frr']);

function installBody(port: number | string, extra: Record<string, unknown> = {}) {
  return {
    input: {
      'node-id': 'R1',
      cli: {
        'cli-topology:host': '127.0.0.1',
        'cli-topology:port': port,
        'cli-topology:transport-type': 'ssh',
        'cli-topology:device-type': 'frr',
        'cli-topology:device-version': '8.4.4',
        'cli-topology:username': 'rosetta',
        'cli-topology:password': 'S3cret-pw',
        ...extra,
      },
    },
  };
}

test.before(async () => {
  device = await startSimulator(
    frrDevice({
      hostname: 'r1',
      username: 'rosetta',
      password: 'S3cret-pw',
      config: ['interface eth0', ' description uplink', 'interface eth1', ' shutdown'],
    }),
  );
  s = await startMountService(plugins);
});

test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

test.serial('install-node connects, shows the node in cli and unified topologies, and never shows the password', async (t) => {
  const r = await s.request('POST', '/rests/operations/connection-manager:install-node', installBody(String(device.port)));
  t.is(r.status, 204, r.text);
  const again = await s.request('POST', '/rests/operations/connection-manager:install-node', installBody(device.port));
  t.is(again.status, 409);
  t.is(again.json.errors.error[0]['error-tag'], 'data-exists');

  const node = await s.request('GET', `${NODES}/topology=cli/node=R1`);
  t.is(node.status, 200, node.text);
  const entry = node.json['network-topology:node'][0];
  t.is(entry['cli-topology:connection-status'], 'connected');
  t.regex(entry['cli-topology:connected-message'], /plugin-frr/);
  t.is(entry['cli-topology:host'], '127.0.0.1');
  t.is(entry['cli-topology:port'], device.port);
  t.not(entry['cli-topology:password'], 'S3cret-pw');
  t.false(node.text.includes('S3cret-pw'));
  const unified = await s.request('GET', `${NODES}/topology=unified/node=R1?content=nonconfig`);
  t.is(unified.json['network-topology:node'][0]['unified-topology:connection-status'], 'connected');
  const all = await s.request('GET', NODES);
  // the device topologies are there (the uniconfig layer adds its own topology beside them)
  const topologies = all.json['network-topology:network-topology'].topology.map((x: any) => x['topology-id']);
  for (const id of ['cli', 'topology-netconf', 'unified']) t.true(topologies.includes(id), topologies.join(', '));
  t.false(all.text.includes('S3cret-pw'));
  t.false(s.logs.join('\n').includes('S3cret-pw'));
});

test.serial('GET the whole mount point and subtrees, config and nonconfig, with fields and depth', async (t) => {
  const whole = await s.request('GET', MOUNT);
  t.is(whole.status, 200, whole.text);
  const names = whole.json['ietf-restconf:data']['rosetta-openconfig-interfaces:interfaces'].interface.map((i: any) => i.name);
  t.true(names.includes('eth0') && names.includes('eth1'), names.join(','));

  const cfg = await s.request('GET', `${IFACES}/interface=eth0/config?content=config`);
  t.is(cfg.status, 200, cfg.text);
  t.is(cfg.json['rosetta-openconfig-interfaces:config'].description, 'uplink');
  const eth1 = await s.request('GET', `${IFACES}/interface=eth1/config?content=config`);
  t.is(eth1.json['rosetta-openconfig-interfaces:config'].enabled, false);

  const state = await s.request('GET', `${IFACES}/interface=eth0?content=nonconfig`);
  t.is(state.status, 200, state.text);
  const entry = state.json['rosetta-openconfig-interfaces:interface'][0];
  t.is(entry.config, undefined);
  t.truthy(entry.state);

  const fields = await s.request('GET', `${IFACES}?content=config&fields=interface(name)`);
  t.is(fields.status, 200, fields.text);
  for (const i of fields.json['rosetta-openconfig-interfaces:interfaces'].interface) t.deepEqual(Object.keys(i), ['name']);
  const depth = await s.request('GET', `${IFACES}/interface=eth0?content=config&depth=1`);
  t.deepEqual(depth.json['rosetta-openconfig-interfaces:interface'][0], { name: 'eth0' });
  const configured = await s.request('GET', `${IFACES}?content=config`);
  const count = await s.request('GET', `${IFACES}/interface?fetch=count&content=config`);
  t.is(count.text, String(configured.json['rosetta-openconfig-interfaces:interfaces'].interface.length));
  t.true(Number(count.text) >= 2);

  const missing = await s.request('GET', `${IFACES}/interface=nosuch`);
  t.is(missing.status, 404);
  t.is(missing.json.errors.error[0]['error-tag'], 'data-missing');
  const unknown = await s.request('GET', `${MOUNT}/rosetta-openconfig-interfaces:nosuch`);
  t.is(unknown.status, 404);
  const xml = await s.request('GET', `${IFACES}/interface=eth0/config?content=config`, undefined, { accept: 'application/yang-data+xml' });
  t.regex(xml.text, /<description>uplink<\/description>/);
});

test.serial('PUT, PATCH, POST and DELETE become device commands; the device is the truth', async (t) => {
  const put = await s.request('PUT', `${IFACES}/interface=eth0/config`, {
    'rosetta-openconfig-interfaces:config': { name: 'eth0', description: 'to core', enabled: true },
  });
  t.is(put.status, 204, put.text);
  t.regex(device.view.runningConfig(), /interface eth0\n description to core/);

  const patch = await s.request('PATCH', `${IFACES}/interface=eth0/config`, {
    'rosetta-openconfig-interfaces:config': { description: 'patched' },
  });
  t.is(patch.status, 200, patch.text);
  t.regex(device.view.runningConfig(), /description patched/);
  const read = await s.request('GET', `${IFACES}/interface=eth0/config/description`);
  t.is(read.json['rosetta-openconfig-interfaces:description'], 'patched');

  const post = await s.request('POST', IFACES, {
    'rosetta-openconfig-interfaces:interface': [{ name: 'lo9', config: { name: 'lo9', description: 'new one' } }],
  });
  t.is(post.status, 201, post.text);
  t.regex(post.headers.get('location') ?? '', /interfaces\/interface=lo9$/);
  t.regex(device.view.runningConfig(), /interface lo9\n description new one/);
  const dup = await s.request('POST', IFACES, { 'rosetta-openconfig-interfaces:interface': [{ name: 'lo9', config: { name: 'lo9' } }] });
  t.is(dup.status, 409);

  const del = await s.request('DELETE', `${IFACES}/interface=eth0/config/description`);
  t.is(del.status, 204, del.text);
  t.notRegex(device.view.runningConfig(), /description patched/);
  const gone = await s.request('DELETE', `${IFACES}/interface=eth0/config/description`);
  t.is(gone.status, 404);

  const state = await s.request('PUT', `${IFACES}/interface=eth0/state`, { 'rosetta-openconfig-interfaces:state': {} });
  t.is(state.status, 405);
  const bad = await s.request('PUT', `${IFACES}/interface=eth0/config`, {
    'rosetta-openconfig-interfaces:config': { name: 'eth0', mtu: 'x' },
  });
  t.is(bad.status, 400);
});

test.serial('device RPCs under the mount point: execute-and-read', async (t) => {
  const r = await s.request(
    'POST',
    `/rests/operations/network-topology:network-topology/topology=cli/node=R1/yang-ext:mount/cli-unit-generic:execute-and-read`,
    { input: { command: 'show version' } },
  );
  t.is(r.status, 200, r.text);
  t.regex(JSON.stringify(r.json), /FRRouting 8\.4\.4/);
  const unknown = await s.request(
    'POST',
    `/rests/operations/network-topology:network-topology/topology=cli/node=R1/yang-ext:mount/nosuch:rpc`,
    { input: {} },
  );
  t.is(unknown.status, 404);
});

test.serial('unreachable device: 502 and nothing installed; unknown nodes 404', async (t) => {
  const body = installBody(1);
  body.input['node-id'] = 'DOWN';
  const r = await s.request('POST', '/rests/operations/connection-manager:install-node', body);
  t.is(r.status, 502, r.text);
  t.is(r.json.errors.error[0]['error-tag'], 'southbound_no_connection');
  t.is((await s.request('GET', `${NODES}/topology=cli/node=DOWN`)).status, 404);
  t.is((await s.request('GET', `${NODES}/topology=cli/node=NOPE/yang-ext:mount`)).status, 404);
  t.is((await s.request('GET', `${NODES}/topology=topology-netconf/node=R1/yang-ext:mount`)).status, 404);
  const noProto = await s.request('POST', '/rests/operations/connection-manager:install-node', { input: { 'node-id': 'X' } });
  t.is(noProto.status, 400);
  const mountElsewhere = await s.request('GET', '/rests/data/network-topology:network-topology/yang-ext:mount');
  t.is(mountElsewhere.status, 404);
  // device nodes are not written directly (that would install nothing, and store a password in clear)
  const direct = await s.request('PUT', `${NODES}/topology=cli/node=SNEAK`, {
    'network-topology:node': [{ 'node-id': 'SNEAK', 'cli-topology:host': 'h', 'cli-topology:password': 'clear' }],
  });
  t.is(direct.status, 400, direct.text);
  const other = await s.request('PUT', `${NODES}/topology=my-own`, { 'network-topology:topology': [{ 'topology-id': 'my-own' }] });
  t.is(other.status, 201, other.text);
});

test.serial(
  "host-key pins the device's SSH host key: the right one connects and shows as host-key-fingerprint, another is refused, a malformed one is 400",
  async (t) => {
    const fingerprint = simulatorHostKeyFingerprint();
    const install = (nodeId: string, hostKey: string) => {
      const body = installBody(device.port, { 'cli-topology:host-key': hostKey });
      body.input['node-id'] = nodeId;
      return s.request('POST', '/rests/operations/connection-manager:install-node', body);
    };
    const pinned = await install('PINNED', fingerprint);
    t.is(pinned.status, 204, pinned.text);
    const node = await s.request('GET', `${NODES}/topology=cli/node=PINNED?content=nonconfig`);
    t.is(node.json['network-topology:node'][0]['cli-topology:host-key-fingerprint'], fingerprint, node.text);
    const unpinned = await s.request('GET', `${NODES}/topology=cli/node=R1?content=nonconfig`);
    t.is(
      unpinned.json['network-topology:node'][0]['cli-topology:host-key-fingerprint'],
      fingerprint,
      'shown for pinning when none is pinned',
    );

    const other = `SHA256:${'A'.repeat(43)}`;
    const refused = await install('IMPOSTOR', other);
    t.is(refused.status, 502, refused.text);
    const message = refused.json.errors.error[0]['error-message'];
    t.true(message.includes(`presented host key ${fingerprint}, not the pinned ${other}`), message);
    t.false(refused.text.includes('S3cret-pw'));
    t.is((await s.request('GET', `${NODES}/topology=cli/node=IMPOSTOR`)).status, 404, 'nothing installed');

    const malformed = await install('BADKEY', 'md5:00:11');
    t.is(malformed.status, 400, malformed.text);
    t.regex(malformed.text, /host-key/);
    const un = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
      input: { 'node-id': 'PINNED', 'connection-type': 'cli' },
    });
    t.is(un.status, 204, un.text);
  },
);

test.serial(
  "host-key-verification trust-on-first-use stores the first key as the node's host-key; a device with another key is refused, after a restart too",
  async (t) => {
    const first = await startSimulator(frrDevice({ hostname: 'r2', username: 'rosetta', password: 'S3cret-pw', config: [] }));
    const port = first.port;
    let impostor: SimulatedDevice | undefined;
    try {
      const body = installBody(port, { 'cli-topology:host-key-verification': 'trust-on-first-use' });
      body.input['node-id'] = 'TOFU';
      const r = await s.request('POST', '/rests/operations/connection-manager:install-node', body);
      t.is(r.status, 204, r.text);
      const stored = await s.request('GET', `${NODES}/topology=cli/node=TOFU?content=config`);
      t.is(
        stored.json['network-topology:node'][0]['cli-topology:host-key'],
        simulatorHostKeyFingerprint(),
        'the key presented at install is pinned',
      );
      t.true(
        s.logs.some((l) => l.includes(`node TOFU: trusting its SSH host key ${simulatorHostKeyFingerprint()}`)),
        s.logs.join('\n'),
      );

      await s.service.stop();
      s = await startMountService(plugins, s.dataDir);
      const back = await eventually(
        async () => (await s.request('GET', `${MOUNT.replace('node=R1', 'node=TOFU')}?content=config`)).status === 200,
      );
      t.true(back, 'the trusted device connects after a restart');

      // the device is replaced by one with another host key on the same address
      await first.close();
      const otherKey = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey;
      impostor = await startSimulator(frrDevice({ hostname: 'r2', username: 'rosetta', password: 'S3cret-pw', config: [] }), {
        port,
        hostKey: otherKey,
      });
      const refused = await eventually(async () => {
        const read = await s.request('GET', `${MOUNT.replace('node=R1', 'node=TOFU')}?content=config`);
        return read.status === 502 && read.text.includes(`not the pinned ${simulatorHostKeyFingerprint()}`);
      });
      t.true(refused, 'a login to another key is refused');
      t.is(impostor.commandLog.length, 0, 'nothing was sent to the impostor');
      t.false(s.logs.join('\n').includes('S3cret-pw'));
    } finally {
      await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
        input: { 'node-id': 'TOFU', 'connection-type': 'cli' },
      });
      await impostor?.close();
      await first.close();
    }
  },
);

test.serial('installed nodes survive a restart and reconnect; uninstall removes them', async (t) => {
  await s.service.stop();
  s = await startMountService(plugins, s.dataDir);
  const connected = await eventually(async () => {
    const r = await s.request('GET', `${NODES}/topology=cli/node=R1?content=nonconfig`);
    return r.status === 200 && r.json['network-topology:node'][0]['cli-topology:connection-status'] === 'connected';
  });
  t.true(connected, s.logs.join('\n'));
  const read = await s.request('GET', `${IFACES}/interface=lo9/config/description`);
  t.is(read.json['rosetta-openconfig-interfaces:description'], 'new one');

  const un = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'R1', 'connection-type': 'cli' },
  });
  t.is(un.status, 204, un.text);
  t.is((await s.request('GET', `${NODES}/topology=cli/node=R1`)).status, 404);
  t.is((await s.request('GET', `${IFACES}`)).status, 404);
  const again = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'R1', 'connection-type': 'cli' },
  });
  t.is(again.status, 404);
});

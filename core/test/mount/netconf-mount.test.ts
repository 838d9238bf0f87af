/**
 * Request-level tests of NETCONF mount points on a real server: install-node through the NETCONF
 * southbound (plugins/netconf) to the SDK's NETCONF simulator over SSH; the device's module downloaded,
 * compiled and served under its mount point; reads in both contents; writes checked in the simulator's
 * running configuration; an rpc-error surfaced with its tag; an RPC and a YANG 1.1 action; uninstall.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { EditFault, startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { pluginsFile, startMountService, type MountService } from './fixture';

const MODEL = `module acme-router {
  yang-version 1.1;
  namespace "urn:acme:router";
  prefix ar;
  container system {
    leaf hostname { type string; }
    leaf location { type string; }
    leaf uptime { type uint32; config false; }
  }
  container interfaces {
    list interface {
      key name;
      leaf name { type string; }
      leaf description { type string; }
      leaf mtu { type uint16 { range "64..9000"; } }
      leaf oper-status { type enumeration { enum up; enum down; } config false; }
      action reset {
        input { leaf delay { type uint8; } }
        output { leaf done-at { type string; } }
      }
    }
  }
  rpc ping {
    input { leaf target { type string; mandatory true; } }
    output { leaf rtt { type uint32; } }
  }
}`;

const NODES = '/rests/data/network-topology:network-topology';
const MOUNT = `${NODES}/topology=topology-netconf/node=N1/yang-ext:mount`;

let device: SimulatedNetconfDevice;
let s: MountService;
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-schema-cache-'));

test.before(async () => {
  device = await startNetconfSimulator({
    yang: MODEL,
    username: 'admin',
    password: 'Adm1n-pw',
    config:
      '<system xmlns="urn:acme:router"><hostname>n1</hostname></system>' +
      '<interfaces xmlns="urn:acme:router"><interface><name>ge0</name><description>first</description><mtu>1500</mtu></interface></interfaces>',
    operations: {
      ping: (call) => {
        const target = call.input.children.find((c) => c.name === 'target')?.text ?? '';
        if (target === 'unreachable') throw new EditFault('operation-failed', '/acme-router:ping', 'host unreachable');
        return '<rtt xmlns="urn:acme:router">7</rtt>';
      },
      '/interfaces/interface/reset': (call) => `<done-at xmlns="urn:acme:router">${call.keys[0]?.name ?? '?'}</done-at>`,
    },
  });
  s = await startMountService(pluginsFile(['plugins/netconf']));
});

test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

test.serial('install-node downloads and compiles the device module; status and capabilities in topology-netconf', async (t) => {
  const r = await s.request('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'N1',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': device.port,
        'netconf-node-topology:username': 'admin',
        'netconf-node-topology:password': 'Adm1n-pw',
        'netconf-node-topology:tcp-only': false,
        'netconf-node-topology:schema-cache-directory': cache,
      },
    },
  });
  t.is(r.status, 204, r.text);
  const node = await s.request('GET', `${NODES}/topology=topology-netconf/node=N1`);
  t.is(node.status, 200, node.text);
  const entry = node.json['network-topology:node'][0];
  t.is(entry['netconf-node-topology:connection-status'], 'connected');
  const caps = entry['netconf-node-topology:available-capabilities']['available-capability'].map((c: any) => c.capability);
  t.true(
    caps.some((c: string) => c.startsWith('urn:ietf:params:netconf:base:1.1')),
    caps.join(' '),
  );
  t.false(node.text.includes('Adm1n-pw'));
  const unified = await s.request('GET', `${NODES}/topology=unified/node=N1?content=nonconfig`);
  t.is(unified.json['network-topology:node'][0]['unified-topology:connection-type'], 'netconf');
});

test.serial('GET under the mount point: whole tree, subtrees, content and fields', async (t) => {
  const whole = await s.request('GET', `${MOUNT}?content=config`);
  t.is(whole.status, 200, whole.text);
  t.is(whole.json['ietf-restconf:data']['acme-router:system'].hostname, 'n1');
  const iface = await s.request('GET', `${MOUNT}/acme-router:interfaces/interface=ge0`);
  t.is(iface.status, 200, iface.text);
  t.is(iface.json['acme-router:interface'][0].mtu, 1500);
  const fields = await s.request('GET', `${MOUNT}/acme-router:interfaces?fields=interface(name;mtu)`);
  t.deepEqual(fields.json, { 'acme-router:interfaces': { interface: [{ name: 'ge0', mtu: 1500 }] } });
  const missing = await s.request('GET', `${MOUNT}/acme-router:interfaces/interface=nope`);
  t.is(missing.status, 404);
  const unknown = await s.request('GET', `${MOUNT}/acme-router:nothing`);
  t.is(unknown.status, 404);
});

test.serial('PUT, PATCH, POST and DELETE reach the device running configuration', async (t) => {
  const put = await s.request('PUT', `${MOUNT}/acme-router:interfaces/interface=ge1`, {
    'acme-router:interface': [{ name: 'ge1', description: 'second', mtu: 9000 }],
  });
  t.is(put.status, 201, put.text);
  t.regex(device.runningXml(), /<name>ge1<\/name>.*<description>second<\/description>/s);
  const replace = await s.request('PUT', `${MOUNT}/acme-router:interfaces/interface=ge1`, {
    'acme-router:interface': [{ name: 'ge1', mtu: 1400 }],
  });
  t.is(replace.status, 204, replace.text);
  t.notRegex(device.runningXml(), /second/);
  const patch = await s.request('PATCH', `${MOUNT}/acme-router:system`, { 'acme-router:system': { location: 'lab' } });
  t.is(patch.status, 200, patch.text);
  t.regex(device.runningXml(), /<location>lab<\/location>/);
  t.regex(device.runningXml(), /<hostname>n1<\/hostname>/);
  const post = await s.request('POST', `${MOUNT}/acme-router:interfaces`, { 'acme-router:interface': [{ name: 'ge2' }] });
  t.is(post.status, 201, post.text);
  const dup = await s.request('POST', `${MOUNT}/acme-router:interfaces`, { 'acme-router:interface': [{ name: 'ge2' }] });
  t.is(dup.status, 409);
  const del = await s.request('DELETE', `${MOUNT}/acme-router:interfaces/interface=ge2`);
  t.is(del.status, 204, del.text);
  t.notRegex(device.runningXml(), /ge2/);
  const again = await s.request('DELETE', `${MOUNT}/acme-router:interfaces/interface=ge2`);
  t.is(again.status, 404);
  const bad = await s.request('PATCH', `${MOUNT}/acme-router:interfaces/interface=ge1`, {
    'acme-router:interface': [{ name: 'ge1', mtu: 10 }],
  });
  t.is(bad.status, 400);
  t.true(device.operationLog.includes('commit'));
});

test.serial('device RPC and action; an rpc-error keeps its tag and message', async (t) => {
  const ops = '/rests/operations/network-topology:network-topology/topology=topology-netconf/node=N1/yang-ext:mount';
  const ping = await s.request('POST', `${ops}/acme-router:ping`, { input: { target: '10.0.0.1' } });
  t.is(ping.status, 200, ping.text);
  t.deepEqual(ping.json, { 'acme-router:output': { rtt: 7 } });
  const missing = await s.request('POST', `${ops}/acme-router:ping`, { input: {} });
  t.is(missing.status, 400);
  const failed = await s.request('POST', `${ops}/acme-router:ping`, { input: { target: 'unreachable' } });
  t.is(failed.status, 500, failed.text);
  t.is(failed.json.errors.error[0]['error-tag'], 'operation-failed');
  t.regex(failed.json.errors.error[0]['error-message'], /host unreachable/);
  const action = await s.request('POST', `${MOUNT}/acme-router:interfaces/interface=ge0/reset`, { input: { delay: 1 } });
  t.is(action.status, 200, action.text);
  t.deepEqual(action.json, { 'acme-router:output': { 'done-at': 'ge0' } });
});

test.serial("a device answer that does not fit the device schema is a 502 naming the fault, not the client's 400", async (t) => {
  // the same model, but the device holds an element its own module does not define
  const odd = await startNetconfSimulator({
    yang: MODEL,
    config: '<system xmlns="urn:acme:router"><hostname>n2</hostname><colour>red</colour></system>',
  });
  t.teardown(() => odd.close());
  const r = await s.request('POST', '/rests/operations/connection-manager:install-node', {
    input: {
      'node-id': 'ODD',
      netconf: {
        'netconf-node-topology:host': '127.0.0.1',
        'netconf-node-topology:port': odd.port,
        'netconf-node-topology:username': 'u',
        'netconf-node-topology:password': 'p',
        'netconf-node-topology:schema-cache-directory': cache,
      },
    },
  });
  // install reads the device's configuration (the uniconfig copy): the device's fault, so 502
  t.is(r.status, 502, r.text);
  t.regex(r.json.errors.error[0]['error-message'], /device 'ODD' answered data that does not fit its schema: .*colour/);
  const still = await s.request('GET', `${MOUNT}/acme-router:system?content=config`);
  t.is(still.status, 200, still.text);
});

test.serial('uninstall-node closes the session and removes the node', async (t) => {
  const wrongType = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'N1', 'connection-type': 'cli' },
  });
  t.is(wrongType.status, 404);
  const r = await s.request('POST', '/rests/operations/connection-manager:uninstall-node', {
    input: { 'node-id': 'N1', 'connection-type': 'netconf' },
  });
  t.is(r.status, 204, r.text);
  t.is((await s.request('GET', `${NODES}/topology=topology-netconf/node=N1`)).status, 404);
  t.is((await s.request('GET', MOUNT)).status, 404);
});

/**
 * The OpenAPI document of an installed node (`?node=<topology>/<node-id>`), on a real service with the
 * NETCONF southbound and the SDK's NETCONF simulator: it validates with the standard validator; it
 * holds the node's mount point paths (data, RPCs, actions) from the device's own module and the
 * uniconfig copy of its configuration (configuration only, no operations); requests built from it (a
 * GET and a PUT under the mount point, a PATCH of the uniconfig copy) succeed; the mount point's methods
 * leave out the query parameters it refuses; `?modules=` limits it;
 * an unknown node, a node of another topology and a malformed value are refused in the error envelope.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { pluginsFile, startMountService, type MountService, netconfNodeInput } from '../mount/fixture';
import { builtWrite, type Json, methodsOf } from './document-walk';

const MODEL = `module acme-router {
  yang-version 1.1;
  namespace "urn:acme:router";
  prefix ar;
  container system {
    leaf hostname { type string; }
    container clock { config false; leaf uptime { type uint32; } }
    list route { key prefix; ordered-by user; leaf prefix { type string; } }
  }
  container interfaces {
    list interface {
      key name;
      leaf name { type string; }
      leaf mtu { type uint16 { range "64..9000"; } }
      action reset { output { leaf done-at { type string; } } }
    }
  }
  rpc ping {
    input { leaf target { type string; mandatory true; } }
    output { leaf rtt { type uint32; } }
  }
}`;

const TOPOLOGY = '/network-topology:network-topology';
const MOUNT = `${TOPOLOGY}/topology=topology-netconf/node=N1/yang-ext:mount`;
const CONFIGURATION = `/rests/data${TOPOLOGY}/topology=uniconfig/node=N1/uniconfig-topology:configuration`;

let device: SimulatedNetconfDevice;
let s: MountService;

test.before(async () => {
  device = await startNetconfSimulator({
    yang: MODEL,
    username: 'admin',
    password: 'pw',
    config: '<system xmlns="urn:acme:router"><hostname>n1</hostname></system>',
  });
  s = await startMountService(pluginsFile(['plugins/netconf']));
  for (const nodeId of ['N1', 'N2']) {
    const r = await s.request('POST', '/rests/operations/connection-manager:install-node', {
      input: netconfNodeInput(nodeId, device.port),
    });
    if (r.status !== 204) throw new Error(`install-node ${nodeId}: ${r.status} ${r.text}`);
  }
});

test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

async function documentOf(query: string): Promise<Json> {
  const res = await s.request('GET', `/rests/openapi.json${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 500)}`);
  return res.json;
}

test.serial('the node document validates and holds its mount point and its uniconfig configuration', async (t) => {
  const doc = await documentOf('?node=topology-netconf/N1');
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  const paths = Object.keys(doc.paths);
  for (const p of [
    `/rests/data${MOUNT}/acme-router:system`,
    `/rests/data${MOUNT}/acme-router:system/clock`,
    `/rests/data${MOUNT}/acme-router:interfaces/interface={name}`,
    `/rests/data${MOUNT}/acme-router:interfaces/interface={name}/reset`,
    `/rests/operations${MOUNT}/acme-router:ping`,
    `${CONFIGURATION}/acme-router:system`,
    `${CONFIGURATION}/acme-router:interfaces/interface={name}`,
  ]) {
    t.true(paths.includes(p), p);
  }
  t.deepEqual(methodsOf(doc.paths[`/rests/data${MOUNT}/acme-router:system/clock`]), ['get'], 'operational data is read only');
  const uniconfig = paths.filter((p) => p.startsWith(CONFIGURATION));
  t.false(
    uniconfig.some((p) => p.endsWith('/clock') || p.endsWith('/reset')),
    'the uniconfig copy holds configuration only, and invokes nothing',
  );
  t.false(
    paths.some((p) => p.startsWith('/rests/data/') && !p.startsWith(`/rests/data${MOUNT}/`) && !p.startsWith(`${CONFIGURATION}/`)),
    'no local datastore path',
  );
  t.regex(doc.info.title, /topology-netconf\/N1/);
});

test.serial('the mount point leaves out the query parameters it refuses; the uniconfig copy lists them', async (t) => {
  const doc = await documentOf('?node=topology-netconf/N1');
  const names = (operation: Json) => operation.parameters.map((p: Json) => p.$ref.split('.').at(-1));
  const mounted = doc.paths[`/rests/data${MOUNT}/acme-router:system/route={prefix}`];
  const copy = doc.paths[`${CONFIGURATION}/acme-router:system/route={prefix}`];
  t.false(names(mounted.put).includes('insert'));
  t.false(names(mounted.put).includes('point'));
  t.false(names(mounted.patch).includes('apply-tags'));
  t.true(names(copy.put).includes('insert'), 'a user-ordered entry of the uniconfig copy takes insert');
  t.true(names(copy.patch).includes('apply-tags'));
  const refused = await s.request('PUT', `/rests/data${MOUNT}/acme-router:system/route=a?insert=first`, {
    'acme-router:route': [{ prefix: 'a' }],
  });
  t.is(refused.status, 400, 'as the mount point answers');
});

test.serial('requests built from the node document succeed: GET and PUT under the mount point, PATCH of the uniconfig copy', async (t) => {
  const doc = await documentOf('?node=topology-netconf/N1');
  const read = await s.request('GET', `/rests/data${MOUNT}/acme-router:system`);
  t.is(read.status, 200, read.text);
  t.is(read.json['acme-router:system'].hostname, 'n1');

  const put = builtWrite(doc, `/rests/data${MOUNT}/acme-router:interfaces/interface={name}`, 'put');
  const written = await s.request('PUT', put.path, put.body);
  t.true([201, 204].includes(written.status), written.text);
  const back = await s.request('GET', put.path);
  t.is(back.status, 200, back.text);
  t.like(back.json['acme-router:interface'][0], put.body['acme-router:interface'][0]);

  const patch = builtWrite(doc, `${CONFIGURATION}/acme-router:system`, 'patch');
  patch.body['acme-router:system'].hostname = 'from-the-document';
  const merged = await s.request('PATCH', patch.path, patch.body);
  t.true([200, 204].includes(merged.status), merged.text);
  const device = await s.request('GET', `/rests/data${MOUNT}/acme-router:system?content=config`);
  t.is(device.json['acme-router:system'].hostname, 'from-the-document', 'the uniconfig write reached the device');
});

test.serial('nodes of one schema get the same components; unified reaches the node too; ?modules= applies', async (t) => {
  const n1 = await documentOf('?node=topology-netconf/N1');
  const n2 = await documentOf('?node=topology-netconf/N2');
  t.deepEqual(n2.components, n1.components);
  t.true(Object.keys(n2.paths).includes(`/rests/data${TOPOLOGY}/topology=topology-netconf/node=N2/yang-ext:mount/acme-router:system`));
  const unified = await documentOf('?node=unified/N1');
  t.true(Object.keys(unified.paths).includes(`/rests/data${TOPOLOGY}/topology=unified/node=N1/yang-ext:mount/acme-router:system`));
  const selected = await documentOf('?node=topology-netconf/N1&modules=acme-router');
  t.deepEqual(Object.keys(selected.paths).sort(), Object.keys(n1.paths).sort());
  const wrong = await s.request('GET', '/rests/openapi.json?node=topology-netconf/N1&modules=ietf-interfaces');
  t.is(wrong.status, 400, 'a module the device schema does not implement');
  t.regex(wrong.json.errors.error[0]['error-message'], /ietf-interfaces/);
});

test.serial('a node not installed is 404 naming it; a malformed node value is 400', async (t) => {
  const missing = await s.request('GET', '/rests/openapi.json?node=topology-netconf/NOPE');
  t.is(missing.status, 404, missing.text);
  t.regex(missing.json.errors.error[0]['error-message'], /NOPE/);
  const elsewhere = await s.request('GET', '/rests/openapi.json?node=cli/N1');
  t.is(elsewhere.status, 404, elsewhere.text);
  t.regex(elsewhere.json.errors.error[0]['error-message'], /N1.*cli/);
  for (const bad of ['N1', '/N1', 'topology-netconf/', '']) {
    const res = await s.request('GET', `/rests/openapi.json?node=${encodeURIComponent(bad)}`);
    t.is(res.status, 400, `node=${bad}: ${res.text}`);
    t.is(res.json.errors.error[0]['error-tag'], 'invalid-value');
  }
});

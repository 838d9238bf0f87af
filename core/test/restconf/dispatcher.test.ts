/**
 * The dispatcher (restconf/dispatcher.ts) answers a request the same whichever way it came: two servers
 * over the same schema, each with its own in-memory datastores, one with no plugin routes and one whose
 * plugin generation adds a route on every path that passes every request on (so each goes through
 * express, the plugin routes' adapter, and back), are sent the same sequence of requests (writes, reads
 * in both encodings, query parameters good and bad, every error kind, POST, YANG Patch, mount points,
 * actions, a path a route in the table serves, other resources); status, headers and bodies must be
 * identical. Without plugin routes no request reaches express, and every plugin lease is released once.
 */
import test from 'ava';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHooks } from '../../src/hooks';
import type { PluginScope } from '../../src/plugins/generation';
import { createRestconfHandler } from '../../src/restconf/dispatcher';
import { TreeView } from '../../src/restconf/tree-view';
import { createPluginRoutes } from '../../src/restconf/plugin-routes';
import { RouteTable } from '../../src/restconf/route-table';
import type { RestconfContext } from '../../src/restconf/context';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import { memoryDatastores } from './http-fixture';
import { MODEL_DIRS } from '../data/fixture';

interface Server {
  url: string;
  close(): Promise<void>;
  toExpress: string[];
  leases: { taken: number; released: number };
}

const repo = new ModuleRepository([...MODEL_DIRS]);
const schema = compileSchema(repo, { modules: ['ietf-interfaces', 'iana-if-type', 'example-jukebox', 'network-topology'] });

async function serve(direct: boolean): Promise<Server> {
  const leases = { taken: 0, released: 0 };
  const toExpress: string[] = [];
  const hooks = createHooks();
  if (!direct)
    hooks.server.routes.tap('pass-through', ({ routes }) =>
      routes.use((req: http.IncomingMessage, _res: unknown, next: () => void) => {
        toExpress.push(`${req.method} ${req.url}`);
        next();
      }),
    );
  const plugins = {
    acquire(): PluginScope {
      leases.taken++;
      let released = false;
      return {
        generation: 0,
        hooks,
        unitsFor: () => ({ units: [] }) as never,
        release: () => {
          if (!released) {
            released = true;
            leases.released++;
          }
        },
      };
    },
  };
  const errors: string[] = [];
  const ctx: RestconfContext = {
    schema,
    datastores: await memoryDatastores('', schema),
    plugins,
    options: { keyDelimiter: '%22', bodyLimit: 4096, defaultContent: 'all' },
    log: { info: () => undefined, error: (m) => errors.push(m) },
  };
  const local = { resolve: () => ({}) as never, readConfig: () => undefined, readSecret: () => undefined };
  // A route in the table serving the local datastores under another layer's prefix.
  const routes = new RouteTable().addData({
    name: 'test',
    match: ({ raw, ctx: routed }) =>
      raw.startsWith('/network-topology:network-topology/topology=uniconfig/') ? new TreeView(routed) : undefined,
  });
  const handler = createRestconfHandler(ctx, { routes, pluginRoutes: createPluginRoutes(ctx, local) });
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    toExpress,
    leases,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Sent {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Sends one request; answers what a client sees of it (status, the headers that matter, body). */
function send(base: string, r: Sent): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = {
      ...(r.body !== undefined
        ? { 'content-type': 'application/yang-data+json', 'content-length': String(Buffer.byteLength(r.body)) }
        : {}),
      ...r.headers,
    };
    const req = http.request(base + r.path, { method: r.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const shown = ['content-type', 'content-length', 'allow', 'accept-patch', 'location', 'connection'].map(
          (h) => `${h}: ${String(res.headers[h])}`,
        );
        resolve(`${res.statusCode}\n${shown.join('\n')}\n${Buffer.concat(chunks).toString()}`);
      });
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

const IF = '/rests/data/ietf-interfaces:interfaces';
const entry = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ 'ietf-interfaces:interface': [{ name, type: 'iana-if-type:ethernetCsmacd', ...extra }] });

/** Requests the old direct data path served itself, in order (writes change what later reads see). */
const DIRECT: Sent[] = [
  { method: 'PUT', path: `${IF}/interface=eth0`, body: entry('eth0', { description: 'first' }) },
  { method: 'PUT', path: `${IF}/interface=eth0`, body: entry('eth0', { description: 'second' }) },
  { method: 'PUT', path: `${IF}/interface=eth1`, body: entry('eth1'), headers: { 'content-type': 'application/yang.data+json' } },
  { method: 'GET', path: `${IF}/interface=eth0` },
  { method: 'GET', path: `${IF}/interface=eth0`, headers: { accept: 'application/yang-data+xml' } },
  { method: 'HEAD', path: `${IF}/interface=eth0` },
  { method: 'GET', path: `${IF}?depth=2` },
  { method: 'GET', path: `${IF}/interface?fetch=count` },
  { method: 'GET', path: `${IF}/interface?fields=name&sortby=name` },
  { method: 'GET', path: '/rests/data?content=config' },
  { method: 'GET', path: '/rests/data' },
  { method: 'GET', path: `${IF}/interface=eth0?bogus=1` },
  { method: 'GET', path: `${IF}/interface=eth0?depth=0` },
  { method: 'GET', path: `${IF}/interface=eth0&` },
  { method: 'GET', path: `${IF}/interface=eth0`, headers: { accept: 'text/plain' } },
  { method: 'GET', path: `${IF}/interface=eth0?bogus=1`, headers: { accept: 'text/plain' } },
  { method: 'GET', path: `${IF}/interface=eth9` },
  { method: 'GET', path: `${IF}/interface=eth9`, headers: { accept: 'application/yang-data+xml' } },
  { method: 'GET', path: `${IF}/interface=a%2Fb` },
  { method: 'GET', path: `${IF}/interface=%zz` },
  { method: 'GET', path: '/rests/data/nowhere:nothing' },
  { method: 'PUT', path: `${IF}/interface=eth2`, body: entry('eth3') },
  { method: 'PUT', path: `${IF}/interface=eth2`, body: '{"ietf-interfaces:interface": [' },
  { method: 'PUT', path: `${IF}/interface=eth2`, body: entry('eth2'), headers: { 'content-type': 'text/plain' } },
  { method: 'PUT', path: `${IF}/interface=eth2`, body: entry('eth2', { description: 'x'.repeat(5000) }) },
  { method: 'PUT', path: `${IF}/interface=eth2`, body: '' },
  {
    method: 'PUT',
    path: '/rests/data/example-jukebox:jukebox',
    body: '<jukebox xmlns="http://example.com/ns/example-jukebox"/>',
    headers: { 'content-type': 'application/yang-data+xml' },
  },
  { method: 'PATCH', path: `${IF}/interface=eth0`, body: entry('eth0', { enabled: false }) },
  { method: 'GET', path: `${IF}/interface=eth0/enabled` },
  { method: 'DELETE', path: `${IF}/interface=eth1` },
  { method: 'DELETE', path: `${IF}/interface=eth1` },
  { method: 'OPTIONS', path: `${IF}/interface=eth0` },
  { method: 'OPTIONS', path: '/rests/data/ietf-interfaces:interfaces-state' },
  { method: 'PUT', path: '/rests/data/ietf-interfaces:interfaces-state', body: '{"ietf-interfaces:interfaces-state":{}}' },
  { method: 'GET', path: IF },
  { method: 'GET', path: '/rests/data/network-topology:network-topology/topology=t/node=n/yang-ext:mount' },
  { method: 'OPTIONS', path: '/rests/data/network-topology:network-topology/topology=t/node=n/yang-ext:mount' },
];

/** Requests the old direct data path handed to express. */
const HANDED_OVER: Sent[] = [
  { method: 'POST', path: IF, body: entry('eth5') },
  {
    method: 'PATCH',
    path: IF,
    body: '{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"1","operation":"delete","target":"/interface=eth5"}]}}',
    headers: { 'content-type': 'application/yang-patch+json' },
  },
  { method: 'POST', path: '/rests/data/network-topology:network-topology/topology=t/node=n/yang-ext:mount/m:reset' },
  { method: 'GET', path: '/rests/data/network-topology:network-topology/topology=uniconfig/node=n/configuration' },
  { method: 'TRACE', path: `${IF}/interface=eth0` },
  { method: 'GET', path: '/rests/datax' },
  { method: 'GET', path: '/rests/operations' },
];

test('a request passed through the plugin routes is answered exactly as one that never reached express', async (t) => {
  const viaDirect = await serve(true);
  const viaExpress = await serve(false);
  try {
    for (const r of [...DIRECT, ...HANDED_OVER]) {
      const a = await send(viaDirect.url, r);
      const b = await send(viaExpress.url, r);
      t.is(a, b, `${r.method} ${r.path}`);
    }
    t.deepEqual(viaDirect.toExpress, [], 'without plugin routes no request went through express');
    // A body past the size respond.ts sends as a string (64 K characters) is sent as bytes: same answer.
    for (let i = 0; i < 400; i++) {
      const put = { method: 'PUT', path: `${IF}/interface=big${i}`, body: entry(`big${i}`, { description: `ünïcode ${'d'.repeat(150)}` }) };
      await Promise.all([send(viaDirect.url, put), send(viaExpress.url, put)]);
    }
    for (const r of [
      { method: 'GET', path: IF },
      { method: 'HEAD', path: IF },
      { method: 'GET', path: IF, headers: { accept: 'application/yang-data+xml' } },
    ]) {
      const a = await send(viaDirect.url, r);
      t.true(a.length > 70_000 || r.method === 'HEAD', `${a.length} characters`);
      t.is(a, await send(viaExpress.url, r), `${r.method} ${r.path} (large)`);
    }
    t.true(viaExpress.toExpress.length >= DIRECT.length + HANDED_OVER.length, 'with plugin routes everything goes through express');
    // Sanity of the comparison itself: the direct answers are the RESTCONF ones, not two identical failures.
    t.regex(
      await send(viaDirect.url, { method: 'GET', path: `${IF}/interface=eth0` }),
      /^200\ncontent-type: application\/yang-data\+json; charset=utf-8\n[\s\S]*"description":"second"/,
    );
    t.regex(await send(viaDirect.url, { method: 'PUT', path: `${IF}/interface=eth7`, body: entry('eth7') }), /^201\n/);
  } finally {
    await viaDirect.close();
    await viaExpress.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 50)); // 'close' events of the last responses
  t.is(viaDirect.leases.released, viaDirect.leases.taken, 'every lease is released');
  t.is(viaExpress.leases.released, viaExpress.leases.taken, 'every lease of requests through express is released');
  t.true(viaDirect.leases.taken >= DIRECT.length);
});

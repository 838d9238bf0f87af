/**
 * Feature plugins through the real service while it runs: the callbacks plugin's routes
 * (`/rests/http-client/`) follow hot reload. plugins.json is rewritten on disk (the watcher picks it
 * up): enabling the plugin brings its routes in, disabling takes them away, enabling again brings them
 * back, and the RESTCONF data routes answer throughout (the direct data path hands requests to express
 * only while a generation has plugin routes). A real HTTP server in this process is the remote server.
 */
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService } from '@rosetta/core/dist/src/service/service';

/** The repository root (from test/dist). */
const ROOT = path.resolve(__dirname, '..', '..');
const CALLBACKS = path.join(ROOT, 'plugins', 'callbacks');
const CALL_POINT = '/rests/http-client/callbacks-test:device/status';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function send(base: string, method: string, p: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(base + p, {
    method, headers: body !== undefined ? { 'content-type': 'application/yang-data+json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, text, json };
}

/** Polls `probe` until it answers `status` (the watcher's debounce and the swap take a moment). */
async function until(probe: () => Promise<{ status: number }>, status: number, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = 0;
  while (Date.now() < deadline) {
    last = (await probe()).status;
    if (last === status) return;
    await sleep(100);
  }
  throw new Error(`${what}: still ${last} after 15 s, expected ${status}`);
}

test('callbacks routes follow plugins.json while the service runs: enabled -> served, disabled -> 404, enabled again -> served', async (t) => {
  const remote = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ state: 'up', path: req.url, bearer: req.headers.authorization === 'Bearer tok' }));
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-e2e-features-'));
  const pluginsFile = path.join(dir, 'plugins.json');
  const writePlugins = (enabled: boolean) => fs.writeFile(pluginsFile, JSON.stringify({ watch: true, plugins: [{ path: CALLBACKS, enabled }] }));
  await writePlugins(false);
  // The test model imports the plugin's extension module, so both folders are local YANG from the start.
  const config = resolveConfig({
    port: 0, dataDir: path.join(dir, 'data'), plugins: pluginsFile,
    yangDirs: [path.join(CALLBACKS, 'yang'), path.join(CALLBACKS, 'test', 'yang')],
  }, dir);
  const log: string[] = [];
  const service = await startService({ config, openDatastores, log: { info: (m) => log.push(m), error: (m) => log.push(m) } });
  t.teardown(async () => {
    await service.stop();
    remote.closeAllConnections();
    await new Promise((resolve) => remote.close(resolve));
    await fs.rm(dir, { recursive: true, force: true });
  });
  const base = service.url;
  const device = { 'callbacks-test:device': { name: 'r1', status: { enabled: true } } };
  t.is((await send(base, 'PUT', '/rests/data/callbacks-test:device', device)).status, 201);
  const settings = { 'callbacks:callbacks-settings': { 'remote-server': { host: '127.0.0.1', port: (remote.address() as AddressInfo).port, scheme: 'http' }, 'access-token': 'tok' } };
  t.is((await send(base, 'PUT', '/rests/data/callbacks:callbacks-settings', settings)).status, 201);

  // Off: no such resource.
  const off = await send(base, 'GET', CALL_POINT);
  t.is(off.status, 404, off.text);

  // On, by editing plugins.json.
  await writePlugins(true);
  await until(() => send(base, 'GET', CALL_POINT), 200, 'after enabling');
  const on = await send(base, 'GET', CALL_POINT);
  t.deepEqual(on.json, { response: { state: 'up', path: '/devices/status', bearer: true } });
  // Data routes keep answering beside the plugin's routes, and the plugin's read filter is in force.
  const read = await send(base, 'GET', '/rests/data/callbacks-test:device/name');
  t.deepEqual(read.json, { 'callbacks-test:name': 'r1' });
  t.is((await send(base, 'GET', '/rests/data/callbacks:callbacks-settings/access-token')).status, 404);
  t.is((await send(base, 'PUT', '/rests/data/callbacks-test:device/name', { 'callbacks-test:name': 'r2' })).status, 204);

  // Off again: the route goes with the generation.
  await writePlugins(false);
  await until(() => send(base, 'GET', CALL_POINT), 404, 'after disabling');
  const gone = await send(base, 'GET', CALL_POINT);
  t.is(gone.json?.errors?.error?.[0]?.['error-tag'], 'invalid-value', gone.text);
  t.deepEqual((await send(base, 'GET', '/rests/data/callbacks-test:device/name')).json, { 'callbacks-test:name': 'r2' });

  // And back.
  await writePlugins(true);
  await until(() => send(base, 'GET', CALL_POINT), 200, 'after enabling again');
  t.false(log.some((l) => /plugin routes of generation/.test(l)), log.join('\n'));
});

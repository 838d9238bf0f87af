/**
 * Feature plugins through the real service while it runs: the callbacks plugin's routes
 * (`/rests/http-client/`) follow hot reload. plugins.json is rewritten on disk (the watcher picks it
 * up): enabling the plugin brings its routes in, disabling takes them away, enabling again brings them
 * back, and the RESTCONF data routes answer throughout (the direct data path hands requests to express
 * only while a generation has plugin routes). A real HTTP server in this process is the remote server.
 * And start-up as `rosetta start --config` does it (configuration file, then the service): a bad value in
 * each feature object stops it naming the field; a section configured while its plugin is off is
 * announced loudly.
 */
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { loadConfig, resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService } from '@rosetta/core/dist/src/service/service';

/** The repository root (from test/dist). */
const ROOT = path.resolve(__dirname, '..', '..');
const CALLBACKS = path.join(ROOT, 'plugins', 'callbacks');
const CALL_POINT = '/rests/http-client/callbacks-test:device/status';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function send(base: string, method: string, p: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(base + p, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/yang-data+json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
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
  const writePlugins = (enabled: boolean) =>
    fs.writeFile(pluginsFile, JSON.stringify({ watch: true, plugins: [{ path: CALLBACKS, enabled }] }));
  await writePlugins(false);
  // The test model imports the plugin's extension module, so both folders are local YANG from the start.
  const config = resolveConfig(
    {
      port: 0,
      dataDir: path.join(dir, 'data'),
      plugins: pluginsFile,
      yangDirs: [path.join(CALLBACKS, 'yang'), path.join(CALLBACKS, 'test', 'yang')],
    },
    dir,
  );
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
  const settings = {
    'callbacks:callbacks-settings': {
      'remote-server': { host: '127.0.0.1', port: (remote.address() as AddressInfo).port, scheme: 'http' },
      'access-token': 'tok',
    },
  };
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
  t.false(
    log.some((l) => /plugin routes of generation/.test(l)),
    log.join('\n'),
  );
});

const plugin = (name: string) => path.join(ROOT, 'plugins', name);

/** Writes a configuration file and a plugins.json (`enabled`: plugin folder names), and starts as `rosetta start` does. */
async function startFromFile(
  dir: string,
  config: Record<string, unknown>,
  enabled: readonly string[],
): Promise<{ stop(): Promise<void>; log: string[] }> {
  const pluginsFile = path.join(dir, 'plugins.json');
  await fs.writeFile(
    pluginsFile,
    JSON.stringify({
      watch: false,
      plugins: ['schema-filters', 'callbacks', 'tls', 'auth'].map((p) => ({ path: plugin(p), enabled: enabled.includes(p) })),
    }),
  );
  const file = path.join(dir, 'rosetta.json');
  await fs.writeFile(
    file,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      dataDir: path.join(dir, `data-${Date.now()}-${Math.random()}`),
      plugins: pluginsFile,
      ...config,
    }),
  );
  const log: string[] = [];
  const service = await startService({
    config: loadConfig(file),
    openDatastores,
    log: { info: (m) => log.push(m), error: (m) => log.push(m) },
  });
  return { stop: () => service.stop(), log };
}

test('start-up refuses a bad value in each feature object, naming the field', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-e2e-startup-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const hash = 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
  const cases: Array<[Record<string, unknown>, readonly string[], RegExp]> = [
    [
      { schemaFilters: { hiddenDataOnReadByExtensions: ['hidden'] } },
      ['schema-filters'],
      /^schemaFilters\.hiddenDataOnReadByExtensions\[0\]: /,
    ],
    [
      { schemaFilters: { hideDeprecatedDefinitionsOnRead: 'yes' } },
      ['schema-filters'],
      /^schemaFilters\.hideDeprecatedDefinitionsOnRead: /,
    ],
    [{ callbacks: { timeoutMs: 0 } }, ['callbacks'], /^callbacks\.timeoutMs: /],
    [{ tls: { enabledTls: true } }, ['tls'], /^tls\.keystorePath: /],
    [{ tls: { enabledTls: true, keystorePath: path.join(dir, 'missing.p12'), keystorePassword: 'x' } }, ['tls'], /^tls\.keystorePath: /],
    [
      { tls: { enabledTls: true, keystorePath: path.join(dir, 'missing.p12'), includedCipherSuites: ['TLS_ECDHE_RSA_WTH_AES'] } },
      ['tls'],
      /^tls\.includedCipherSuites\[0\]: /,
    ],
    [{ tls: { enabledTls: true, keystorePath: 'x.p12' } }, [], /^tls\.enabledTls: /],
    [{ auth: { users: [{ name: 'a', role: 'admin', passwordHash: hash }] } }, ['auth'], /^auth\.users\[0\]\.role: /],
    [{ auth: { users: [{ name: 'a', role: 'read', passwordHash: hash }] } }, [], /^auth: /],
  ];
  for (const [config, enabled, message] of cases) {
    const error = await startFromFile(dir, config, enabled).then(
      async (s) => {
        await s.stop();
        return undefined;
      },
      (e: Error) => e,
    );
    t.truthy(error, `${JSON.stringify(config)} started`);
    t.regex(error?.message ?? '', message, JSON.stringify(config));
  }
});

test('schemaFilters or callbacks configured with their plugin off: start-up says so loudly, naming the section', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-e2e-unserved-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const config = { schemaFilters: { hiddenDataOnReadByExtensions: ['rext:hidden full'] }, callbacks: { timeoutMs: 1000 } };
  const off = await startFromFile(dir, config, []);
  await off.stop();
  t.true(
    off.log.some((l) => /WARNING: schemaFilters is configured but no schema-filter plugin is loaded/.test(l)),
    off.log.join('\n'),
  );
  t.true(
    off.log.some((l) => /WARNING: callbacks is configured but no callbacks plugin is loaded/.test(l)),
    off.log.join('\n'),
  );
  const on = await startFromFile(dir, config, ['schema-filters', 'callbacks']);
  await on.stop();
  t.false(
    on.log.some((l) => /WARNING: (schemaFilters|callbacks) is configured/.test(l)),
    on.log.join('\n'),
  );
});

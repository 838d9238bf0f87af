/**
 * The plugin platform through the real RESTCONF service (HTTP on loopback, the durable datastores):
 * a plugin's YANG joining the local schema and changing with hot reloads, requests flowing while the
 * plugin is replaced twice on disk, a plugin that throws or whose YANG does not compile leaving the old
 * version serving, enabling and disabling through plugins.json, introspection of plugins and of the
 * units serving installed devices, the reload RPC, and the key delimiter as a replaceable uri.parse tap.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '../../src/datastore';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';
import { makeWorkspace, pkg, type Workspace } from './plugin-folders';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The module of the `counter` plugin; version 2 and later add `settings/extra`. */
function counterYang(version: string): string {
  const extra = version === '1.0.0' ? '' : 'leaf extra { type string; }';
  return `module test-counter {
  yang-version 1.1; namespace "urn:test:counter"; prefix tc;
  revision 2026-01-01;
  container settings { leaf label { type string; } ${extra} }
  container state { config false; leaf version { type string; } leaf served { type uint32; } }
  rpc version { output { leaf version { type string; } } }
}
`;
}

/** Serves `test-counter:state` and the `test-counter:version` RPC with its own version. */
function counterSource(version: string, extra = ''): string {
  return `${extra}
let served = 0;
module.exports = { rosettaPlugin: 1, setup({ hooks }) {
  hooks.data.readState.for('test-counter').tapPromise('counter', async (s) =>
    ({ ...s, 'test-counter:state': { version: ${JSON.stringify(version)}, served: ++served } }));
  hooks.rpc.invoke.for('test-counter:version').tapPromise('counter', async () => ({ output: { version: ${JSON.stringify(version)} } }));
} };
`;
}

/** Writes the counter plugin: YANG first, package.json last (a watcher firing early sees the old or the whole new one). */
async function writeCounter(ws: Workspace, version: string, options: { yang?: string; source?: string } = {}): Promise<void> {
  const dir = path.join(ws.root, 'plugins/counter');
  await fs.mkdir(path.join(dir, 'yang'), { recursive: true });
  await fs.writeFile(path.join(dir, 'yang/test-counter@2026-01-01.yang'), options.yang ?? counterYang(version));
  await ws.writePlugin(
    'plugins/counter',
    pkg('plugin-counter', version, 'extension', { yang: 'yang' }),
    options.source ?? counterSource(version),
  );
}

interface Running {
  readonly service: RunningService;
  readonly errors: string[];
  get(p: string): Promise<{ status: number; json: any; text: string }>;
  send(method: string, p: string, body?: unknown): Promise<{ status: number; json: any; text: string }>;
  stop(): Promise<void>;
}

async function start(ws: Workspace, extra: Record<string, unknown> = {}): Promise<Running> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-plugin-svc-'));
  const errors: string[] = [];
  const config = resolveConfig({ port: 0, dataDir, plugins: ws.configFile, ...extra }, os.tmpdir());
  const service = await startService({
    config,
    openDatastores: (dir, schema) => openDatastores(dir, schema, { log: (m) => errors.push(m) }),
    log: { info: () => undefined, error: (m) => errors.push(m) },
  });
  const send = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(service.url + p, {
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
    return { status: res.status, json, text };
  };
  return {
    service,
    errors,
    send,
    get: (p) => send('GET', p),
    async stop() {
      await service.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

type PluginRow = { path: string; name?: string; version?: string; kind?: string; state: string; error?: string };

async function pluginRows(s: Running): Promise<PluginRow[]> {
  const r = await s.get('/rests/data/rosetta-plugins:plugins-state');
  return r.json['rosetta-plugins:plugins-state'].plugin as PluginRow[];
}

test("a plugin's YANG joins the local schema; replaced twice on disk under load: zero failures, then the new version answers", async (t) => {
  const ws = await makeWorkspace();
  await writeCounter(ws, '1.0.0');
  await ws.writeConfig({ watch: true, plugins: [{ path: 'plugins/counter' }] });
  const s = await start(ws);
  try {
    // The module is in the local schema (no yangDirs given): data, RPC and yang-library know it.
    t.is((await s.get('/rests/data/test-counter:state')).json['test-counter:state'].version, '1.0.0');
    t.is((await s.send('PUT', '/rests/data/test-counter:settings', { 'test-counter:settings': { label: 'kept' } })).status, 201);
    t.is((await s.send('POST', '/rests/operations/test-counter:version')).json['test-counter:output'].version, '1.0.0');
    t.true((await s.get('/rests/data/ietf-yang-library:yang-library')).text.includes('"test-counter"'));
    t.is((await s.send('PUT', '/rests/data/test-counter:settings/extra', { 'test-counter:extra': 'x' })).status, 404);

    let running = true;
    const failures: string[] = [];
    let done = 0;
    const seen = new Set<string>();
    const client = async (n: number) => {
      while (running) {
        const r =
          n % 2 === 0 ? await s.get('/rests/data/test-counter:state') : await s.send('POST', '/rests/operations/test-counter:version');
        const body = r.json?.['test-counter:state'] ?? r.json?.['test-counter:output'];
        if (r.status !== 200 || typeof body?.version !== 'string') failures.push(`${r.status} ${r.text.slice(0, 200)}`);
        else seen.add(body.version);
        done++;
      }
    };
    const clients = [0, 1, 2, 3].map(client);
    await sleep(200);
    await writeCounter(ws, '2.0.0');
    await until('version 2', async () => seen.has('2.0.0'));
    await sleep(200);
    await writeCounter(ws, '3.0.0');
    await until('version 3', async () => seen.has('3.0.0'));
    await sleep(200);
    running = false;
    await Promise.all(clients);
    t.deepEqual(failures, [], `${failures.length} of ${done} requests failed`);
    t.true(done > 50, `only ${done} requests ran`);
    t.deepEqual([...seen].sort(), ['1.0.0', '2.0.0', '3.0.0']);
    // The schema swapped with the plugin: the new leaf is writable, stored data survived the change.
    t.is((await s.send('PUT', '/rests/data/test-counter:settings/extra', { 'test-counter:extra': 'x' })).status, 201);
    t.deepEqual((await s.get('/rests/data/test-counter:settings?content=config')).json, {
      'test-counter:settings': { label: 'kept', extra: 'x' },
    });
    t.deepEqual(
      (await pluginRows(s)).map((p) => [p.name, p.version, p.kind, p.state]),
      [['plugin-counter', '3.0.0', 'extension', 'loaded']],
    );
    // A version with the same modules keeps the schema object: no recompile, no barrier.
    const schema = s.service.schema;
    await writeCounter(ws, '3.0.1');
    await s.send('POST', '/rests/operations/rosetta-plugins:reload');
    t.is((await s.send('POST', '/rests/operations/test-counter:version')).json['test-counter:output'].version, '3.0.1');
    t.is(s.service.schema, schema);
  } finally {
    await s.stop();
    await ws.remove();
  }
});

test('a plugin that throws while loading, or whose YANG does not compile, leaves the old version and schema serving', async (t) => {
  const ws = await makeWorkspace();
  await writeCounter(ws, '1.0.0');
  await ws.writeConfig({ watch: false, plugins: [{ path: 'plugins/counter' }] });
  const s = await start(ws);
  try {
    await writeCounter(ws, '2.0.0', { source: counterSource('2.0.0', 'throw new Error("cannot find my config");') });
    const reload = await s.send('POST', '/rests/operations/rosetta-plugins:reload');
    t.is(reload.status, 200);
    t.regex(reload.json['rosetta-plugins:output'].error[0], /plugin-counter@2\.0\.0.*failed to load.*cannot find my config/);
    t.is((await s.get('/rests/data/test-counter:state')).json['test-counter:state'].version, '1.0.0');
    let [row] = await pluginRows(s);
    t.is(row!.version, '1.0.0');
    t.is(row!.state, 'loaded');
    t.regex(row!.error ?? '', /cannot find my config/);

    await writeCounter(ws, '2.0.1', { yang: counterYang('2.0.0').replace('type string; }', 'type no-such-type; }') });
    const refused = await s.send('POST', '/rests/operations/rosetta-plugins:reload');
    t.regex(
      refused.json['rosetta-plugins:output'].error[0],
      /plugin-counter@2\.0\.1: its YANG does not compile into the local schema: .*test-counter@2026-01-01\.yang:\d+:\d+.*no-such-type/s,
    );
    [row] = await pluginRows(s);
    t.is(row!.version, '1.0.0');
    t.regex(row!.error ?? '', /no-such-type/);
    t.is((await s.get('/rests/data/test-counter:state')).json['test-counter:state'].version, '1.0.0');
    t.is((await s.send('POST', '/rests/operations/test-counter:version')).json['test-counter:output'].version, '1.0.0');

    await writeCounter(ws, '2.1.0');
    const fixed = await s.send('POST', '/rests/operations/rosetta-plugins:reload');
    t.deepEqual(fixed.json['rosetta-plugins:output'].swapped, ['plugin-counter@2.1.0', '-plugin-counter@1.0.0']);
    await until(
      'the new schema',
      async () => (await s.send('PUT', '/rests/data/test-counter:settings/extra', { 'test-counter:extra': 'y' })).status === 201,
    );
    [row] = await pluginRows(s);
    t.deepEqual([row!.version, row!.state, row!.error], ['2.1.0', 'loaded', undefined]);
  } finally {
    await s.stop();
    await ws.remove();
  }
});

test('a plugin whose YANG does not compile at start-up is left out, loudly, and the service starts without it', async (t) => {
  const ws = await makeWorkspace();
  await writeCounter(ws, '1.0.0', { yang: counterYang('1.0.0').replace('leaf label { type string; }', 'leaf label { type nope; }') });
  await ws.writeConfig({ watch: false, plugins: [{ path: 'plugins/counter' }] });
  const s = await start(ws);
  try {
    t.is((await s.get('/rests/data/test-counter:state')).status, 404);
    const [row] = await pluginRows(s);
    t.is(row!.state, 'failed');
    t.regex(
      row!.error ?? '',
      /^plugin plugin-counter@1\.0\.0: its YANG does not compile into the local schema: .*test-counter@2026-01-01\.yang:\d+:\d+.*nope/s,
    );
    t.true(
      s.errors.some((e) => /plugin-counter@1\.0\.0: its YANG does not compile.*the service runs without this plugin/s.test(e)),
      s.errors.join('\n'),
    );
  } finally {
    await s.stop();
    await ws.remove();
  }
});

test('enabling and disabling through plugins.json while running adds and removes the plugin and its modules', async (t) => {
  const ws = await makeWorkspace();
  await writeCounter(ws, '1.0.0');
  await ws.writeConfig({ watch: true, plugins: [{ path: 'plugins/counter', enabled: false }] });
  const s = await start(ws);
  try {
    const unknown = await s.get('/rests/data/test-counter:state');
    t.is(unknown.status, 404);
    t.is((await pluginRows(s))[0]!.state, 'disabled');

    await ws.writeConfig({ watch: true, plugins: [{ path: 'plugins/counter', enabled: true }] });
    await until('enabled', async () => (await s.get('/rests/data/test-counter:state')).status === 200);
    t.is((await pluginRows(s))[0]!.state, 'loaded');
    t.is((await s.send('PUT', '/rests/data/test-counter:settings', { 'test-counter:settings': { label: 'a' } })).status, 201);

    await ws.writeConfig({ watch: true, plugins: [{ path: 'plugins/counter', enabled: false }] });
    await until('disabled', async () => (await s.get('/rests/data/test-counter:state')).status === 404);
    t.is((await pluginRows(s))[0]!.state, 'disabled');
    t.true(
      // Its settings are parked (kept in the data folder until it returns), not dropped.
      s.errors.some((e) => /parked data of modules absent from the schema: test-counter \(1\)/.test(e)),
      s.errors.join('\n'),
    );
  } finally {
    await s.stop();
    await ws.remove();
  }
});

/**
 * A CLI southbound that connects to nothing (its descriptor and the CLI plugin's topology module say where
 * its nodes live), and translation units with no models of their own.
 */
const fakeSouthbound = `module.exports = { rosettaPlugin: 1, setup({ hooks }) {
  const descriptor = { protocol: 'cli', installContainer: 'cli', topology: 'cli', settingsModule: 'cli-topology',
    models: 'translation-units', dryRun: { operation: 'cli-unit-generic:dry-run', input: 'documents', output: 'commands' },
    renderStatus: (n) => ({ 'cli-topology:connection-status': n.status, 'cli-topology:connected-message': n.message }),
    rollbackOf: () => ({ status: 'unknown', detail: 'fake' }) };
  hooks.device.southbounds.tap('fake-cli', (registered) => [...registered, descriptor]);
  hooks.device.connect.for('cli').tapPromise('fake-cli', async () => ({ message: 'fake session', close: async () => undefined }));
  hooks.device.read.for('cli').tapPromise('fake-cli', async () => ({}));
} };`;
/** The CLI plugin's topology module (install settings and node status), from core/dist/test/plugins. */
const CLI_TOPOLOGY_DIR = path.resolve(__dirname, '../../../../plugins/cli/yang/topology');
const CLI_TOPOLOGY = 'cli-topology@2026-11-26.yang';
const unitSource = `module.exports = { rosettaPlugin: 1, translationUnit: { kind: 'rosetta-translation-unit' } };`;

test('introspection through RESTCONF: plugins with kinds and ranges, and the units serving each installed device', async (t) => {
  const ws = await makeWorkspace();
  await ws.writePlugin('plugins/fake-cli', pkg('plugin-fake-cli', '0.1.0', 'southbound', { yang: 'yang' }), fakeSouthbound);
  await fs.mkdir(path.join(ws.root, 'plugins/fake-cli/yang/topology'), { recursive: true });
  await fs.copyFile(path.join(CLI_TOPOLOGY_DIR, CLI_TOPOLOGY), path.join(ws.root, 'plugins/fake-cli/yang/topology', CLI_TOPOLOGY));
  for (const [folder, name, version, versions] of [
    ['plugins/frr-8', 'plugin-frr', '1.0.0', '>=8.1 <9'],
    ['plugins/frr-10', 'plugin-frr', '2.0.0', '>=8.4 <11'],
    ['plugins/ios', 'plugin-ios', '1.0.0', '15.x'],
  ] as const) {
    await fs.mkdir(path.join(ws.root, folder, 'yang'), { recursive: true });
    const type = name === 'plugin-ios' ? 'ios' : 'frr';
    await ws.writePlugin(folder, pkg(name, version, 'translation-unit', { yang: 'yang', device: { type, versions } }), unitSource);
  }
  await ws.writeConfig({ watch: false, plugins: ['fake-cli', 'frr-8', 'frr-10'].map((p) => ({ path: `plugins/${p}` })) });
  const s = await start(ws);
  try {
    const install = (id: string, type: string, version: string) =>
      s.send('POST', '/rests/operations/connection-manager:install-node', {
        input: {
          'node-id': id,
          cli: {
            'cli-topology:host': '127.0.0.1',
            'cli-topology:port': 22,
            'cli-topology:transport-type': 'ssh',
            'cli-topology:device-type': type,
            'cli-topology:device-version': version,
            'cli-topology:username': 'u',
            'cli-topology:password': 'p',
          },
        },
      });
    const first = await install('R1', 'frr', '8.4.4');
    t.is(first.status, 204, first.text);
    t.is((await install('R2', 'frr', '7.5.1')).status, 204);
    t.is((await install('S1', 'ios', '15.2(4)M3')).status, 204);
    const state = (await s.get('/rests/data/rosetta-plugins:plugins-state')).json['rosetta-plugins:plugins-state'];
    t.deepEqual(
      state.plugin.map((p: any) => [p.path, p.name, p.version, p.kind, p.state, p.device?.versions]),
      [
        ['plugins/fake-cli', 'plugin-fake-cli', '0.1.0', 'southbound', 'loaded', undefined],
        ['plugins/frr-8', 'plugin-frr', '1.0.0', 'translation-unit', 'loaded', '>=8.1 <9'],
        ['plugins/frr-10', 'plugin-frr', '2.0.0', 'translation-unit', 'loaded', '>=8.4 <11'],
      ],
    );
    const devices = Object.fromEntries(state.device.map((d: any) => [d['node-id'], d]));
    // Two versions of plugin-frr cover 8.4.4: the highest serves.
    t.deepEqual(devices['R1']['translation-unit'], [{ name: 'plugin-frr', version: '2.0.0' }]);
    t.is(devices['R2']['translation-unit'], undefined);
    t.regex(devices['R2'].reason, /no translation unit for frr covers version 7\.5\.1/);
    t.regex(devices['S1'].reason, /ios/);

    // Enable the IOS unit in plugins.json and ask for a rescan: S1 is served from its next request.
    await ws.writeConfig({ watch: false, plugins: ['fake-cli', 'frr-8', 'frr-10', 'ios'].map((p) => ({ path: `plugins/${p}` })) });
    const reload = await s.send('POST', '/rests/operations/rosetta-plugins:reload');
    t.deepEqual(reload.json['rosetta-plugins:output'].swapped, ['plugin-ios@1.0.0']);
    const after = (await s.get('/rests/data/rosetta-plugins:plugins-state/device=S1')).json['rosetta-plugins:device'][0];
    t.deepEqual(after['translation-unit'], [{ name: 'plugin-ios', version: '1.0.0' }]);
  } finally {
    await s.stop();
    await ws.remove();
  }
});

test("the key delimiter is the core's uri.parse tap; a plugin tapping after it can replace the handling", async (t) => {
  const ws = await makeWorkspace();
  await writeCounter(ws, '1.0.0');
  await ws.writeConfig({ watch: false, plugins: [] });
  const yang = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-kd-'));
  await fs.writeFile(
    path.join(yang, 'kd.yang'),
    'module kd { namespace "urn:kd"; prefix kd; list item { key name; leaf name { type string; } } }',
  );
  const s = await start(ws, { yangDirs: [yang] });
  try {
    t.is((await s.send('PUT', '/rests/data/kd:item=%22a/b%22', { 'kd:item': [{ name: 'a/b' }] })).status, 201);
    t.is((await s.get('/rests/data/kd:item=%22a/b%22')).json['kd:item'][0].name, 'a/b');
    // A plugin that turns the delimiter off: %22 is then an ordinary escaped quote.
    await ws.writePlugin(
      'plugins/no-delimiter',
      pkg('plugin-no-delimiter', '1.0.0', 'extension'),
      `module.exports = { rosettaPlugin: 1, setup({ hooks }) { hooks.uri.parse.tap('no-delimiter', (u) => { u.keyDelimiter = null; return u; }); } };`,
    );
    await ws.writeConfig({ watch: false, plugins: [{ path: 'plugins/no-delimiter' }] });
    t.is((await s.send('POST', '/rests/operations/rosetta-plugins:reload')).status, 200);
    t.is((await s.send('PUT', '/rests/data/kd:item=%22q%22', { 'kd:item': [{ name: '"q"' }] })).status, 201);
    t.is((await s.get('/rests/data/kd:item=%22a/b%22')).status, 400); // now two segments, the second no identifier
  } finally {
    await s.stop();
    await ws.remove();
    await fs.rm(yang, { recursive: true, force: true });
  }
});

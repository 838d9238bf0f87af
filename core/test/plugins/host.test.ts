/**
 * The plugin host on real plugin folders: loading, bad manifests, settings, plugins that throw,
 * enabling/disabling through plugins.json, leases, translation-unit matching, introspection and reload.
 */
import test from 'ava';
import { PluginHost, introspectionTaps, type HostLogger } from '../../src/plugins';
import { makeWorkspace, pkg, versionPlugin, type Workspace } from './plugin-folders';

function capture(): HostLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

async function callVersion(host: PluginHost): Promise<string | undefined> {
  return host.withScope(async (scope) => {
    const r = await scope.hooks.rpc.invoke.for('test:version').promise({ operation: 'test:version', input: {} });
    return r?.output?.['version'] as string | undefined;
  });
}

async function withWorkspace(run: (ws: Workspace) => Promise<void>): Promise<void> {
  const ws = await makeWorkspace();
  try {
    await run(ws);
  } finally {
    await ws.remove();
  }
}

test('loads enabled plugins, skips disabled ones, and lists both', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('plugins/a', pkg('plugin-a', '1.0.0', 'callbacks', { yang: 'yang' }), versionPlugin('1.0.0'));
    await ws.writePlugin('plugins/b', pkg('plugin-b', '2.0.0'), 'module.exports = { rosettaPlugin: 1 };');
    await ws.writeConfig({ watch: false, plugins: [{ path: 'plugins/a' }, { path: 'plugins/b', enabled: false }] });
    const log = capture();
    const host = await PluginHost.start({ configFile: ws.configFile, logger: log });
    t.is(await callVersion(host), '1.0.0');
    t.deepEqual(
      host.status().map((s) => [s.path, s.state, s.name ?? null]),
      [
        ['plugins/a', 'loaded', 'plugin-a'],
        ['plugins/b', 'disabled', null],
      ],
    );
    t.true(log.lines.some((l) => /info plugin plugin-a@1.0.0 loaded from plugins\/a/.test(l)));
    // a non-unit plugin's YANG joins the local datastore's schema
    t.deepEqual(host.localYangDirs(), [require('node:path').join(ws.root, 'plugins/a/yang')]);
    await host.close();
  }));

test('a bad manifest is named with its field and the service runs without it', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('plugins/good', pkg('plugin-good', '1.0.0'), versionPlugin('1.0.0'));
    await ws.writePlugin(
      'plugins/bad',
      { name: 'plugin-bad', version: 'one', rosetta: { kind: 'callbacks', entry: 'index.js' } },
      versionPlugin('9.9.9'),
    );
    await ws.writePlugin(
      'plugins/unit',
      {
        name: 'plugin-unit',
        version: '1.0.0',
        rosetta: { kind: 'translation-unit', entry: 'index.js', yang: 'yang', device: { type: 'frr' } },
      },
      'module.exports={rosettaPlugin:1}',
    );
    await ws.writeConfig({
      plugins: [{ path: 'plugins/bad' }, { path: 'plugins/good' }, { path: 'plugins/unit' }, { path: 'plugins/missing' }],
    });
    const log = capture();
    const host = await PluginHost.start({ configFile: ws.configFile, logger: log, watch: false });
    t.is(await callVersion(host), '1.0.0');
    const byPath = new Map(host.status().map((s) => [s.path, s]));
    t.is(byPath.get('plugins/bad')?.state, 'failed');
    t.regex(byPath.get('plugins/bad')?.error ?? '', /plugin plugin-bad: version: must be a semver version, got "one"/);
    t.regex(byPath.get('plugins/unit')?.error ?? '', /plugin plugin-unit: rosetta\.device\.versions: must be a semver range/);
    t.regex(byPath.get('plugins/missing')?.error ?? '', /plugin plugins\/missing: package\.json: not found/);
    t.true(log.lines.some((l) => l.startsWith('error plugin plugin-bad: version') && l.endsWith('the service runs without this plugin')));
    await host.close();
  }));

test('plugins that throw while loading, in setup, or hang are reported and left out', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('p/throws', pkg('throws-on-require', '1.0.0'), 'throw new Error("boom at load");');
    await ws.writePlugin(
      'p/setup',
      pkg('throws-in-setup', '1.0.0'),
      'module.exports = { rosettaPlugin: 1, setup() { throw new TypeError("no db"); } };',
    );
    await ws.writePlugin(
      'p/hangs',
      pkg('hangs-in-setup', '1.0.0'),
      'module.exports = { rosettaPlugin: 1, setup: () => new Promise(() => {}) };',
    );
    await ws.writePlugin('p/shape', pkg('not-a-plugin', '1.0.0'), 'module.exports = { hello: 1 };');
    await ws.writePlugin('p/syntax', pkg('syntax-error', '1.0.0'), 'module.exports = {;');
    await ws.writePlugin(
      'p/unit',
      pkg('unit-without-unit', '1.0.0', 'translation-unit', { yang: 'yang', device: { type: 'frr', versions: '*' } }),
      'module.exports = { rosettaPlugin: 1 };',
    );
    await ws.writePlugin('p/ok', pkg('ok', '1.0.0'), versionPlugin('1.0.0'));
    await ws.writeConfig({ plugins: ['throws', 'setup', 'hangs', 'shape', 'syntax', 'unit', 'ok'].map((p) => ({ path: `p/${p}` })) });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false, setupTimeoutMs: 200 });
    const errors = Object.fromEntries(host.status().map((s) => [s.path, s.error]));
    t.regex(errors['p/throws'] ?? '', /throws-on-require@1\.0\.0: rosetta\.entry index\.js failed to load: boom at load/);
    t.regex(errors['p/setup'] ?? '', /throws-in-setup@1\.0\.0: setup threw: no db/);
    t.regex(errors['p/hangs'] ?? '', /hangs-in-setup@1\.0\.0: setup did not finish within 200 ms/);
    t.regex(errors['p/shape'] ?? '', /must export definePlugin/);
    t.regex(errors['p/syntax'] ?? '', /failed to load: Unexpected token/);
    t.regex(errors['p/unit'] ?? '', /kind is translation-unit but the plugin defines no translation unit/);
    t.is(errors['p/ok'], undefined);
    t.is(await callVersion(host), '1.0.0');
    await host.close();
  }));

test('a settings error names the plugin and the field', (t) =>
  withWorkspace(async (ws) => {
    const source = `module.exports = { rosettaPlugin: 1,
    settings(raw) { return typeof raw.port === 'number' ? { ok: true, value: raw } : { ok: false, problems: [{ field: 'port', message: 'must be a number' }] }; },
    setup(api) { api.hooks.rpc.invoke.for('test:version').tap('v', () => undefined); api.hooks.rpc.invoke.for('test:port').tapPromise('p', async () => ({ output: { port: api.settings.port } })); } };`;
    await ws.writePlugin('p/tls', pkg('plugin-tls', '1.0.0', 'tls'), source);
    await ws.writeConfig({ plugins: [{ path: 'p/tls', config: { port: 'https' } }] });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false });
    t.regex(host.status()[0]!.error ?? '', /plugin-tls@1\.0\.0: settings in plugins\.json \(p\/tls\): config\.port: must be a number/);
    await ws.writeConfig({ plugins: [{ path: 'p/tls', config: { port: 8443 } }] });
    await host.reload();
    const port = await host.withScope((s) => s.hooks.rpc.invoke.for('test:port').promise({ operation: 'test:port', input: {} }));
    t.deepEqual(port, { output: { port: 8443 } });
    await host.close();
  }));

test('enable, disable and remove through plugins.json', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('p/a', pkg('plugin-a', '1.0.0'), versionPlugin('a'));
    await ws.writeConfig({ plugins: [{ path: 'p/a', enabled: false }] });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false });
    t.is(await callVersion(host), undefined);
    await ws.writeConfig({ plugins: [{ path: 'p/a', enabled: true }] });
    const enabled = await host.reload();
    t.deepEqual(enabled.swapped, ['plugin-a@1.0.0']);
    t.is(await callVersion(host), 'a');
    await ws.writeConfig({ plugins: [{ path: 'p/a', enabled: false }] });
    t.deepEqual((await host.reload()).swapped, ['-plugin-a@1.0.0']);
    t.is(await callVersion(host), undefined);
    await ws.writeConfig({ plugins: [{ path: 'p/a' }] });
    await host.reload();
    await ws.writeConfig({ plugins: [] });
    await host.reload();
    t.deepEqual(host.status(), []);
    t.is(await callVersion(host), undefined);
    // a broken plugins.json keeps what is loaded and says so
    await ws.writeConfig({ plugins: [{ path: 'p/a' }] });
    await host.reload();
    await require('node:fs/promises').writeFile(ws.configFile, '{ "plugins": [ ');
    const broken = await host.reload();
    t.regex(broken.errors[0] ?? '', /is not JSON/);
    t.is(await callVersion(host), 'a');
    await host.close();
  }));

test('a failed reload leaves the old version serving; a later good one swaps in', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('p/a', pkg('plugin-a', '1.0.0'), versionPlugin('1.0.0'));
    await ws.writeConfig({ plugins: [{ path: 'p/a' }] });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false });
    await ws.writePlugin('p/a', pkg('plugin-a', '1.1.0'), 'throw new Error("half-written build")');
    const failed = await host.reload();
    t.regex(failed.errors[0] ?? '', /plugin-a@1\.1\.0: rosetta\.entry index\.js failed to load: half-written build/);
    t.is(await callVersion(host), '1.0.0');
    t.like(host.status()[0], { state: 'loaded', version: '1.0.0' });
    t.regex(host.status()[0]!.error ?? '', /half-written build/);
    await ws.writePlugin('p/a', pkg('plugin-a', '1.2.0'), versionPlugin('1.2.0'));
    t.deepEqual((await host.reload()).swapped, ['plugin-a@1.2.0', '-plugin-a@1.0.0']);
    t.is(await callVersion(host), '1.2.0');
    t.like(host.status()[0], { state: 'loaded', version: '1.2.0', error: undefined });
    // unchanged folders are not reloaded
    t.deepEqual((await host.reload()).swapped, []);
    await host.close();
  }));

test('a request in flight finishes on the old version; the old instance is disposed once drained', (t) =>
  withWorkspace(async (ws) => {
    const disposed: string[] = ((globalThis as { __disposed?: string[] }).__disposed ??= []);
    await ws.writePlugin('p/lease', pkg('plugin-lease', '1.0.0'), versionPlugin('lease-1', 20));
    await ws.writeConfig({ plugins: [{ path: 'p/lease' }] });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false });
    const scope = host.acquire();
    const first = await scope.hooks.rpc.invoke.for('test:version').promise({ operation: 'test:version', input: {} });
    await ws.writePlugin('p/lease', pkg('plugin-lease', '2.0.0'), versionPlugin('lease-2'));
    await host.reload();
    t.is(await callVersion(host), 'lease-2');
    const second = await scope.hooks.rpc.invoke.for('test:version').promise({ operation: 'test:version', input: {} });
    t.deepEqual([first?.output?.['version'], second?.output?.['version']], ['lease-1', 'lease-1']);
    t.is(host.draining, 1);
    t.false(disposed.includes('lease-1'));
    scope.release();
    scope.release(); // a second release is ignored
    t.is(host.draining, 0);
    await new Promise((r) => setImmediate(r));
    t.true(disposed.includes('lease-1'));
    t.false(disposed.includes('lease-2'));
    await host.close();
    await new Promise((r) => setImmediate(r));
    t.true(disposed.includes('lease-2'));
  }));

const unitSource = (tag: string) =>
  `module.exports = { rosettaPlugin: 1, translationUnit: { kind: 'rosetta-translation-unit', tag: ${JSON.stringify(tag)} } };`;
const unitPkg = (name: string, version: string, versions: string) =>
  pkg(name, version, 'translation-unit', { yang: 'yang', device: { type: 'frr', versions } });

test('translation units: highest matching version serves; introspection lists plugins and devices; reload RPC', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('p/frr-1', unitPkg('plugin-frr', '1.0.0', '>=8.1 <11'), unitSource('one'));
    await ws.writePlugin('p/frr-2', unitPkg('plugin-frr', '2.0.0', '>=9'), unitSource('two'));
    await ws.writePlugin('p/frr-bgp', unitPkg('plugin-frr-bgp', '1.0.0', '*'), unitSource('bgp'));
    await ws.writeConfig({ plugins: [{ path: 'p/frr-1' }, { path: 'p/frr-2' }] });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false });
    const devices = [
      { nodeId: 'R1', deviceType: 'frr', deviceVersion: '8.4.4' },
      { nodeId: 'R2', deviceType: 'frr', deviceVersion: '10.1' },
      { nodeId: 'R3', deviceType: 'frr', deviceVersion: '7.5.1' },
    ];
    host.addBuiltin(introspectionTaps(host, () => devices));
    const tags = (v: string) => host.unitsFor('frr', v).units.map((u) => (u.definition as unknown as { tag: string }).tag);
    t.deepEqual(tags('8.4.4'), ['one']);
    t.deepEqual(host.localYangDirs(), []); // a translation unit's YANG serves its devices, not the local datastore
    t.deepEqual(tags('10.1'), ['two']);
    t.regex(host.unitsFor('frr', '7.5.1').reason ?? '', /no translation unit for frr covers version 7\.5\.1/);

    await ws.writeConfig({ plugins: [{ path: 'p/frr-1' }, { path: 'p/frr-2' }, { path: 'p/frr-bgp' }] });
    const scope = host.acquire();
    const reload = await scope.hooks.rpc.invoke.for('rosetta-plugins:reload').promise({ operation: 'rosetta-plugins:reload', input: {} });
    t.deepEqual(reload?.output?.['swapped'], ['plugin-frr-bgp@1.0.0']);
    t.deepEqual(
      scope.unitsFor('frr', '10.1').units.map((u) => u.plugin),
      ['plugin-frr'],
    ); // the scope's generation is the old one
    scope.release();
    t.deepEqual(tags('10.1'), ['two', 'bgp']);

    const state = await host.withScope((s) =>
      s.hooks.data.readState
        .for('rosetta-plugins')
        .promise({}, { module: 'rosetta-plugins', path: [{ module: 'rosetta-plugins', name: 'plugins-state' }] }),
    );
    const body = state['rosetta-plugins:plugins-state'] as {
      generation: number;
      plugin: Array<Record<string, unknown>>;
      device: Array<Record<string, unknown>>;
    };
    t.is(body.generation, host.generation);
    t.deepEqual(
      body.plugin.map((p) => [p['path'], p['name'], p['version'], p['kind'], p['state']]),
      [
        ['p/frr-1', 'plugin-frr', '1.0.0', 'translation-unit', 'loaded'],
        ['p/frr-2', 'plugin-frr', '2.0.0', 'translation-unit', 'loaded'],
        ['p/frr-bgp', 'plugin-frr-bgp', '1.0.0', 'translation-unit', 'loaded'],
      ],
    );
    t.deepEqual(body.plugin[0]!['device'], { type: 'frr', versions: '>=8.1 <11' });
    t.regex(String(body.plugin[0]!['loaded-at']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    t.deepEqual(body.device[0], {
      'node-id': 'R1',
      'device-type': 'frr',
      'device-version': '8.4.4',
      'translation-unit': [
        { name: 'plugin-frr', version: '1.0.0' },
        { name: 'plugin-frr-bgp', version: '1.0.0' },
      ],
    });
    t.deepEqual(body.device[2]!['translation-unit'], [{ name: 'plugin-frr-bgp', version: '1.0.0' }]);
    await host.close();
  }));

test('two folders with the same non-unit plugin: only the highest version taps the hooks', (t) =>
  withWorkspace(async (ws) => {
    await ws.writePlugin('p/v1', pkg('plugin-dup', '1.0.0'), versionPlugin('dup-1'));
    await ws.writePlugin('p/v2', pkg('plugin-dup', '1.5.0'), versionPlugin('dup-2'));
    await ws.writeConfig({ plugins: [{ path: 'p/v1' }, { path: 'p/v2' }] });
    const host = await PluginHost.start({ configFile: ws.configFile, logger: capture(), watch: false });
    const taps = await host.withScope((s) => s.hooks.rpc.invoke.for('test:version').taps.length);
    t.is(taps, 1);
    t.is(await callVersion(host), 'dup-2');
    t.regex(host.status()[0]!.error ?? '', /p\/v1 \(1\.0\.0\) is superseded by p\/v2 \(1\.5\.0\)/);
    await host.close();
  }));

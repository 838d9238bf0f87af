/**
 * Plugin platform benchmarks: what the hooks add to a request when five no-op plugins are tapped on every
 * hook, against the floor of any RESTCONF request (one keep-alive HTTP round trip on loopback), and how
 * long a hot swap of one plugin takes (rescan, load, new generation).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { plugins, type DataRoot, type RosettaHooks } from '@rosetta/core';
import { result, type BenchResult } from './results';

/** A no-op plugin tapping every hook (waterfalls pass their value on, bails pass). */
const NOOP_PLUGIN = `
module.exports = { rosettaPlugin: 1, setup({ hooks, name }) {
  hooks.uri.parse.tap(name, (u) => u);
  hooks.schema.loaded.tap(name, () => {});
  hooks.data.beforeRead.tapPromise(name, async (r) => r);
  hooks.data.afterRead.tapPromise(name, async (d) => d);
  hooks.data.beforeWrite.tapPromise(name, async () => {});
  hooks.data.afterCommit.tapPromise(name, async () => {});
  hooks.data.readState.for('bench').tapPromise(name, async (s) => s);
  for (const h of ['connect', 'read', 'write', 'invoke']) hooks.device[h].for('cli').tapPromise(name, async () => undefined);
  hooks.rpc.invoke.for('bench:op').tapPromise(name, async () => undefined);
  hooks.server.create.tap(name, () => undefined);
  hooks.server.routes.tap(name, () => {});
} };`;

const emptyRoot = (): DataRoot => ({ kind: 'root', children: [] });
const device = { nodeId: 'R1', protocol: 'cli', units: [] };
const connection = { close: async () => undefined };

/** The hook calls of one kind of request, run inside a lease as the RESTCONF layer will. */
type Scenario = (h: RosettaHooks) => Promise<void>;

const readCtx = { datastore: 'config' as const, path: '/a:b', query: {} };
const uri = () => ({ original: '/rests/data/a:b', path: '/rests/data/a:b', keyDelimiter: '%22' });

const SCENARIOS: Record<string, Scenario> = {
  'GET (uri.parse, data.beforeRead, data.afterRead)': async (h) => {
    h.uri.parse.call(uri());
    await h.data.beforeRead.promise(readCtx);
    await h.data.afterRead.promise(emptyRoot(), readCtx);
  },
  'PUT (uri.parse, data.beforeWrite, data.afterCommit)': async (h) => {
    h.uri.parse.call(uri());
    const write = { datastore: 'config' as const, operation: 'merge' as const, path: '/a:b', before: emptyRoot(), after: emptyRoot(), faults: [] };
    await h.data.beforeWrite.promise(write);
    await h.data.afterCommit.promise({ datastore: 'config', before: write.before, after: write.after, changed: [] });
  },
  'mount GET (uri.parse, device.read)': async (h) => {
    h.uri.parse.call(uri());
    await h.device.read.for('cli').promise({ device, connection, path: '/', content: 'all' });
  },
  'every per-request hook once (10 calls, upper bound)': async (h) => {
    await SCENARIOS['GET (uri.parse, data.beforeRead, data.afterRead)']!(h);
    await SCENARIOS['PUT (uri.parse, data.beforeWrite, data.afterCommit)']!(h);
    await h.data.readState.for('bench').promise({}, { module: 'bench', path: '/bench:x' });
    await h.device.read.for('cli').promise({ device, connection, path: '/', content: 'all' });
    await h.device.write.for('cli').promise({ device, connection, before: {}, after: {} });
    await h.device.invoke.for('cli').promise({ device, connection, operation: 'a:b', input: {} });
  },
};

async function leased(host: plugins.PluginHost, scenario: Scenario): Promise<void> {
  const scope = host.acquire();
  try {
    await scenario(scope.hooks);
  } finally {
    scope.release();
  }
}

async function perOp(n: number, op: () => Promise<void>): Promise<number> {
  for (let i = 0; i < Math.min(n, 2000); i++) await op(); // warm up (tapable compiles its call code lazily)
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await op();
  return Number(process.hrtime.bigint() - start) / n / 1000; // µs
}

/** Median keep-alive HTTP GET round trip on loopback, in µs: the floor of any RESTCONF request. */
async function httpRoundTrip(n: number): Promise<number> {
  const body = JSON.stringify({ 'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', enabled: true }] } });
  const server = http.createServer((_req, res) => { res.setHeader('content-type', 'application/yang-data+json'); res.end(body); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () => new Promise<void>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/rests/data/ietf-interfaces:interfaces', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    }).on('error', reject);
  });
  try {
    return await perOp(n, get);
  } finally {
    agent.destroy();
    await new Promise((r) => server.close(() => r(undefined)));
  }
}

export async function benchPlugins(): Promise<BenchResult[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-plugins-'));
  const configFile = path.join(root, 'plugins.json');
  const writePlugin = (i: number, version: string) => {
    const dir = path.join(root, `noop-${i}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.js'), `${NOOP_PLUGIN}\n// ${version}\n`);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `noop-${i}`, version, rosetta: { kind: 'callbacks', entry: 'index.js' } }));
  };
  const quiet = { info: () => undefined, warn: () => undefined, error: (m: string) => console.error(m) };
  try {
    fs.writeFileSync(configFile, JSON.stringify({ watch: false, plugins: [] }));
    const bare = await plugins.PluginHost.start({ configFile, logger: quiet });
    for (let i = 0; i < 5; i++) writePlugin(i, '1.0.0');
    fs.writeFileSync(configFile, JSON.stringify({ watch: false, plugins: [0, 1, 2, 3, 4].map((i) => ({ path: `noop-${i}` })) }));
    const loaded = await plugins.PluginHost.start({ configFile, logger: quiet });

    const http = await httpRoundTrip(3000);
    const rows: BenchResult[] = [result('HTTP keep-alive GET round trip on loopback (baseline)', http, 'µs/request')];
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const none = await perOp(20_000, () => leased(bare, scenario));
      const five = await perOp(20_000, () => leased(loaded, scenario));
      rows.push(result(`hooks of a ${name}: 0 plugins`, none, 'µs/request', http));
      rows.push(result(`hooks of a ${name}: 5 no-op plugins`, five, 'µs/request', http, '< 5% of the baseline'));
    }

    // swap: one plugin's folder changes, a rescan loads it and builds the next generation
    const swaps: number[] = [];
    for (let v = 1; v <= 10; v++) {
      writePlugin(v % 5, `1.0.${v}`);
      const t0 = process.hrtime.bigint();
      const report = await loaded.reload();
      swaps.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (report.swapped.length !== 2) throw new Error(`swap ${v} did not swap: ${JSON.stringify(report)}`);
    }
    swaps.sort((a, b) => a - b);
    const noChange = await (async () => { const t0 = process.hrtime.bigint(); await loaded.reload(); return Number(process.hrtime.bigint() - t0) / 1e6; })();
    await bare.close();
    await loaded.close();
    return [
      ...rows,
      result('plugin hot swap (rescan 5, reload 1, new generation), median', swaps[swaps.length >> 1]!, 'ms', null, 'max ' + swaps[swaps.length - 1]!.toFixed(1) + ' ms'),
      result('plugin rescan with nothing changed', noChange, 'ms'),
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

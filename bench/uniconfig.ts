/**
 * Benchmark: the uniconfig topology on the real service (in process, the repository's CLI and FRR
 * plugins, durable data folder).
 * - Commit of a 100-static-route change on the real FRR peer (leased through acquireFrrPeer) beside the
 *   same change sent through the mount point directly (one PATCH under yang-ext:mount): median of a few
 *   rounds, the routes removed between rounds. Goal: commit within 1.3x of the direct write. Without
 *   the FRR peer the pair runs against the SDK's FRR simulator (named so in the table).
 * - calculate-diff (the whole RPC over HTTP, inside a transaction) on a node whose configuration holds
 *   10,000 interfaces (an FRR simulator), with 100 of them changed and with all 10,000 changed. Goal:
 *   under 100 ms.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  acquireFrrPeer,
  frrDevice,
  frrPeerLogin,
  frrPeerUnavailable,
  startSimulator,
  type FrrPeerLease,
  type SimulatedDevice,
} from '@rosetta/sdk/testing';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import { repoRoot } from './paths';
import { result, type BenchResult } from './results';

const ROUNDS = Number(process.env.BENCH_UNICONFIG_ROUNDS ?? 3);
const DIFF_RUNS = 7;
const TOPO = '/rests/data/network-topology:network-topology/topology=uniconfig';
const PROTOCOL_PATH =
  '/rosetta-openconfig-network-instance:network-instances/network-instance=default/protocols/protocol=rosetta-openconfig-policy-types:STATIC,static';

interface Answer {
  status: number;
  text: string;
  json: any;
  cookie: string | undefined;
}

function client(service: RunningService) {
  return async (method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/yang-data+json';
    if (cookie !== undefined) headers['cookie'] = cookie;
    const res = await fetch(service.url + p, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json, cookie: res.headers.get('set-cookie')?.split(';')[0] };
  };
}

function expect(a: Answer, statuses: number[], what: string): Answer {
  if (!statuses.includes(a.status)) throw new Error(`${what}: ${a.status} ${a.text.slice(0, 500)}`);
  return a;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function startRosetta(): Promise<{ service: RunningService; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-uniconfig-'));
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(
    plugins,
    JSON.stringify({ watch: false, plugins: ['plugins/cli', 'plugins/frr'].map((p) => ({ path: path.join(repoRoot, p), enabled: true })) }),
  );
  const config = resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins }, dir);
  const service = await startService({
    config,
    openDatastores: (d, s) => openDatastores(d, s),
    log: { info: () => undefined, error: (m) => console.error(m) },
  });
  return { service, dir };
}

function install(nodeId: string, login: { host: string; port: number; username: string; password: string }) {
  return {
    input: {
      'node-id': nodeId,
      cli: {
        'cli-topology:host': login.host,
        'cli-topology:port': login.port,
        'cli-topology:transport-type': 'ssh',
        'cli-topology:device-type': 'frr',
        'cli-topology:device-version': '8.4.4',
        'cli-topology:username': login.username,
        'cli-topology:password': login.password,
      },
    },
  };
}

/** The STATIC protocol entry with `n` routes of round `round` (distinct prefixes per round). */
function routes(n: number, round: number) {
  const statics = Array.from({ length: n }, (_, i) => {
    const prefix = `10.${100 + round}.${i}.0/24`;
    return {
      prefix,
      config: { prefix },
      'next-hops': { 'next-hop': [{ index: '127.0.0.2', config: { index: '127.0.0.2', 'next-hop': '127.0.0.2' } }] },
    };
  });
  const key = { identifier: 'rosetta-openconfig-policy-types:STATIC', name: 'static' };
  return { 'rosetta-openconfig-network-instance:protocol': [{ ...key, config: key, 'static-routes': { static: statics } }] };
}

/** Commit (uniconfig) beside a direct mount-point write of the same 100 routes. */
export async function benchCommit(): Promise<BenchResult[]> {
  const unavailable = frrPeerUnavailable();
  let lease: FrrPeerLease | undefined;
  let simulated: SimulatedDevice | undefined;
  let login: { host: string; port: number; username: string; password: string };
  if (unavailable === undefined) {
    lease = await acquireFrrPeer({ who: 'bench/uniconfig' });
    login = frrPeerLogin();
  } else {
    console.warn(`bench uniconfig: no FRR peer (${unavailable}); the commit pair runs against the SDK simulator`);
    simulated = await startSimulator(frrDevice({ username: 'u', password: 'p' }));
    login = { host: '127.0.0.1', port: simulated.port, username: 'u', password: 'p' };
  }
  const { service } = await startRosetta();
  const call = client(service);
  try {
    expect(await call('POST', '/rests/operations/connection-manager:install-node', install('B1', login)), [204], 'install');
    const mount = `/rests/data/network-topology:network-topology/topology=cli/node=B1/yang-ext:mount${PROTOCOL_PATH}`;
    const uniconfig = `${TOPO}/node=B1/configuration${PROTOCOL_PATH}`;
    const direct: number[] = [];
    const commit: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t0 = performance.now();
      expect(await call('PATCH', mount, routes(100, round * 2)), [200], 'direct PATCH');
      direct.push(performance.now() - t0);
      expect(await call('DELETE', `${mount}/static-routes`), [204], 'direct cleanup');
      expect(await call('POST', '/rests/operations/uniconfig-manager:sync-from-network', { input: {} }), [200], 'sync');
      expect(
        await call('POST', '/rests/operations/uniconfig-manager:replace-config-with-operational', { input: {} }),
        [204],
        'replace-config',
      );

      const tx = expect(await call('POST', '/rests/operations/uniconfig-manager:create-transaction'), [201], 'create-transaction').cookie!;
      expect(await call('PATCH', uniconfig, routes(100, round * 2 + 1), tx), [200], 'PATCH in the transaction');
      t0 = performance.now();
      expect(await call('POST', '/rests/operations/uniconfig-manager:commit', { input: {} }, tx), [204], 'commit');
      commit.push(performance.now() - t0);
      expect(await call('DELETE', `${uniconfig}/static-routes`), [204], 'uniconfig cleanup');
    }
    const where = lease ? 'real FRR' : 'FRR simulator';
    const d = median(direct);
    return [
      result(`uniconfig: commit of 100 static routes (${where})`, median(commit), 'ms', d, 'commit <= 1.3x the direct write'),
      result(`uniconfig: the same 100 routes PATCHed under yang-ext:mount (${where})`, d, 'ms'),
    ];
  } finally {
    await service.stop();
    await simulated?.close();
    await lease?.release();
  }
}

/** calculate-diff on a 10,000-interface configuration, 100 and all entries changed. */
export async function benchDiff(): Promise<BenchResult[]> {
  const N = 10_000;
  const config: string[] = [];
  for (let i = 0; i < N; i++) config.push(`interface e${i}`, ` description d${i}`);
  const device = await startSimulator(frrDevice({ username: 'u', password: 'p', config }));
  const { service } = await startRosetta();
  const call = client(service);
  try {
    expect(
      await call(
        'POST',
        '/rests/operations/connection-manager:install-node',
        install('D1', { host: '127.0.0.1', port: device.port, username: 'u', password: 'p' }),
      ),
      [204],
      'install 10k',
    );
    const ifaces = `${TOPO}/node=D1/configuration/rosetta-openconfig-interfaces:interfaces`;
    const out: BenchResult[] = [];
    for (const changed of [100, N]) {
      const tx = expect(await call('POST', '/rests/operations/uniconfig-manager:create-transaction'), [201], 'create-transaction').cookie!;
      const body = {
        'rosetta-openconfig-interfaces:interfaces': {
          interface: Array.from({ length: changed }, (_, k) => {
            const i = Math.floor((k * N) / changed);
            return { name: `e${i}`, config: { name: `e${i}`, description: `changed ${i}` } };
          }),
        },
      };
      expect(await call('PATCH', ifaces, body, tx), [200], 'PATCH in the transaction');
      const times: number[] = [];
      for (let run = 0; run < DIFF_RUNS; run++) {
        const t0 = performance.now();
        const diff = expect(
          await call('POST', '/rests/operations/uniconfig-manager:calculate-diff', { input: {} }, tx),
          [200],
          'calculate-diff',
        );
        times.push(performance.now() - t0);
        const updated = diff.json['uniconfig-manager:output']['node-results']['node-result'][0]['updated-data'].length;
        if (updated !== changed) throw new Error(`calculate-diff found ${updated} updates, ${changed} expected`);
      }
      expect(await call('POST', '/rests/operations/uniconfig-manager:close-transaction', undefined, tx), [204], 'close-transaction');
      out.push(result(`uniconfig: calculate-diff, 10,000 interfaces, ${changed} changed`, median(times), 'ms', null, '< 100 ms'));
    }
    return out;
  } finally {
    await service.stop();
    await device.close();
  }
}

export async function benchUniconfig(): Promise<BenchResult[]> {
  return [...(await benchDiff()), ...(await benchCommit())];
}

if (require.main === module) {
  benchUniconfig().then(
    (rows) => {
      for (const r of rows) console.log(JSON.stringify(r));
    },
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}

/**
 * Benchmark: the real RESTCONF service (`rosetta start` in a child process, fresh data folder,
 * the test models of ietf-interfaces + iana-if-type through --yang, durable journal) beside a
 * trivial Node `http` server answering a fixed 200-byte body (the ceiling for this machine).
 *
 * Measured with 8 concurrent keep-alive connections (node's http.Agent) for a fixed time each:
 * requests/s and p99 latency of GET and PUT of one list entry, with 1,000 and with 100,000 entries
 * stored; time and peak RSS of the service to PUT a 100,000-entry list in one request and to GET it
 * back, beside JSON.parse+JSON.stringify of the same body; heap per stored list entry (after gc).
 * For the durable PUTs, the child counts the journal's durable commits (a synced write each): writes
 * per commit (group commit at work) and the mean commit time under that load, which bounds what 8
 * connections can reach (8 / commit time when every commit covers all eight).
 * The machine is shared, so every ratio compares measurements taken back to back: the trivial server
 * (kept running) is measured right before each GET load, and JSON.parse+stringify right before the
 * large PUT and the large GET; those two are the median of three requests (one GC pause or a busy
 * neighbour would otherwise decide a single-shot row).
 * jsonb-filter over the 100k list (fetch=count, median of 3), beside the plain GET of the list.
 * Goals are the issue's: GET >= 50% of the trivial server; PUT >= 2,000 durable writes/s and no slower
 * at 100k than at 1k; 100k PUT <= 5x and GET <= 3x of JSON.parse+JSON.stringify; < 1 KB per entry.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { interfacesDocument } from './data-codecs';
import { testModels } from './paths';
import { benchClient, type BenchClient } from './http-client';
import { result, type BenchResult } from './results';

const CONNECTIONS = 8;
const RUN_MS = Number(process.env.BENCH_RESTCONF_MS ?? 5000);
const ENTRY = '/rests/data/ietf-interfaces:interfaces/interface=';
const LIST = '/rests/data/ietf-interfaces:interfaces';
/** Ordinary filters over the 100k list: a comparison, and an unanchored like_regex (the costliest ordinary kind, 8 M steps). */
const ORDINARY_FILTERS = ['{@/enabled} == true', '{@/description} like_regex "rack 47"'];

export interface Child {
  readonly proc: ChildProcess;
  readonly url: string;
}

/** Forks bench/restconf-child with `args`; resolves once it reports where it listens (bounded). */
export function startChild(args: string[]): Promise<Child> {
  const proc = fork(path.join(__dirname, 'restconf-child.js'), args, {
    execArgv: ['--expose-gc'],
    cwd: os.tmpdir(),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`child ${args[0]} did not start in 60 s`));
    }, 60_000);
    proc.on('message', (m: { url?: string }) => {
      if (m.url) {
        clearTimeout(timer);
        resolve({ proc, url: m.url });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child ${args[0]} exited with ${code}`));
    });
  });
}

export async function stopChild(child: Child): Promise<void> {
  if (child.proc.exitCode !== null) return;
  const exited = new Promise((r) => child.proc.once('exit', r));
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** fsyncs the child ran so far and their total time. */
function fsyncsOf(child: Child): Promise<{ count: number; totalMs: number }> {
  return new Promise((resolve) => {
    const onMessage = (m: { fsyncs?: { count: number; totalMs: number } }) => {
      if (m.fsyncs === undefined) return;
      child.proc.off('message', onMessage);
      resolve(m.fsyncs);
    };
    child.proc.on('message', onMessage);
    child.proc.send('fsyncs');
  });
}

/** The child's heap after two full collections, in bytes. */
function heapAfterGc(child: Child): Promise<number> {
  return new Promise((resolve) => {
    child.proc.once('message', (m: { heapUsed: number }) => resolve(m.heapUsed));
    child.proc.send('gc');
  });
}

/** Peak RSS of a process since the last reset (Linux /proc), in bytes; reset with resetPeak. */
function peakRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}
function resetPeak(pid: number): void {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    /* older kernels: peak since start */
  }
}

interface Load {
  perSecond: number;
  p99Ms: number;
  errors: number;
}

/** `CONNECTIONS` loops, each sending `make(i)` one after another for RUN_MS; counts 2xx answers. */
async function load(
  base: string,
  make: (i: number) => { method: string; path: string; body?: string },
  expect: (status: number) => boolean,
  runMs = RUN_MS,
): Promise<Load> {
  const client = benchClient(base, CONNECTIONS);
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const end = performance.now() + runMs;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < end) {
      const r = make(counter++);
      const t = performance.now();
      const reply = await client.request(r.method, r.path, r.body);
      latencies.push(performance.now() - t);
      if (!expect(reply.status)) {
        errors += 1;
        if (errors === 1) console.error(`bench: ${r.method} ${r.path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const elapsed = performance.now() - started;
  client.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: (latencies.length - errors) / (elapsed / 1000), p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0, errors };
}

function entryBody(i: number, serial: number): string {
  return JSON.stringify({
    'ietf-interfaces:interface': [
      { name: `eth${i}`, description: `write ${serial}`, type: 'iana-if-type:ethernetCsmacd', enabled: serial % 2 === 0 },
    ],
  });
}

interface PutLoad extends Load {
  /** Acknowledged writes per fsync during the load. */
  readonly recordsPerFsync: number;
  readonly fsyncMeanMs: number;
}

/** The trivial server's rate now (the ceiling the next GET load is compared with). */
function ceilingNow(trivial: Child): Promise<Load> {
  return load(
    trivial.url,
    () => ({ method: 'GET', path: '/' }),
    (s) => s === 200,
  );
}

/** GET and PUT of single entries among `stored` entries, and the ceiling measured right before the GETs. */
async function singleEntryLoads(child: Child, stored: number, trivial: Child): Promise<{ ceiling: Load; get: Load; put: PutLoad }> {
  const base = child.url;
  const ceiling = await ceilingNow(trivial);
  const get = await load(
    base,
    (i) => ({ method: 'GET', path: `${ENTRY}eth${(i * 7919) % stored}` }),
    (s) => s === 200,
  );
  const before = await fsyncsOf(child);
  const started = performance.now();
  const put = await load(
    base,
    (i) => {
      const k = (i * 7919) % stored;
      return { method: 'PUT', path: `${ENTRY}eth${k}`, body: entryBody(k, i) };
    },
    (s) => s === 204 || s === 201,
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await fsyncsOf(child);
  const count = after.count - before.count;
  return {
    ceiling,
    get,
    put: {
      ...put,
      recordsPerFsync: count === 0 ? 0 : (put.perSecond * seconds) / count,
      fsyncMeanMs: count === 0 ? 0 : (after.totalMs - before.totalMs) / count,
    },
  };
}

/** One second of GETs and PUTs, not measured. */
async function warmUp(base: string, stored: number): Promise<void> {
  const client = benchClient(base, CONNECTIONS);
  const end = performance.now() + 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const k = (i++ * 7919) % stored;
        await client.request('GET', `${ENTRY}eth${k}`);
        await client.request('PUT', `${ENTRY}eth${k}`, entryBody(k, i));
      }
    }),
  );
  client.close();
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Median of `runs` timings of fn (ms), after one warm-up. */
function medianMs(runs: number, fn: () => void): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** Replaces the whole list with `entries` entries; returns wall time and the service's peak RSS. */
async function putList(child: Child, client: BenchClient, text: string): Promise<{ ms: number; peak: number }> {
  resetPeak(child.proc.pid!);
  const t = performance.now();
  const reply = await client.request('PUT', LIST, text);
  const ms = performance.now() - t;
  if (reply.status !== 201 && reply.status !== 204)
    throw new Error(`PUT of the list answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  return { ms, peak: peakRss(child.proc.pid!) };
}

export async function benchRestconf(): Promise<BenchResult[]> {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-yang-'));
  for (const f of ['ietf-interfaces@2018-02-20.yang', 'iana-if-type@2026-03-17.yang'])
    fs.symlinkSync(path.join(testModels, f), path.join(yangDir, f));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-data-'));
  const rows: BenchResult[] = [];

  const trivial = await startChild(['trivial']);
  const service = await startChild(['service', '--port', '0', '--data-dir', dataDir, '--yang', yangDir]).catch(async (e: unknown) => {
    await stopChild(trivial);
    throw e;
  });
  try {
    // The same unmeasured second as the service gets: the client's own HTTP code is JIT-cold at first,
    // and a cold first phase would understate the ceiling.
    await load(
      trivial.url,
      () => ({ method: 'GET', path: '/' }),
      (s) => s === 200,
      1000,
    );
    const client = benchClient(service.url);
    const heapEmpty = await heapAfterGc(service);
    await putList(service, client, interfacesDocument(1000));
    const heap1k = await heapAfterGc(service);
    // Warm-up (JIT, connection set-up) so that the first measured phase is not also the coldest.
    await warmUp(service.url, 1000);
    const at1k = await singleEntryLoads(service, 1000, trivial);

    const big = interfacesDocument(100_000);
    const parsed = JSON.parse(big) as unknown;
    const roundTripMs = () => medianMs(3, () => JSON.parse(big)) + medianMs(3, () => JSON.stringify(parsed));
    const putRoundTrip = roundTripMs();
    const bigPuts = [await putList(service, client, big), await putList(service, client, big), await putList(service, client, big)];
    const bigPut = { ms: median(bigPuts.map((p) => p.ms)), peak: Math.max(...bigPuts.map((p) => p.peak)) };
    const heap100k = await heapAfterGc(service);
    const at100k = await singleEntryLoads(service, 100_000, trivial);

    const getRoundTrip = roundTripMs();
    const gets: Array<{ ms: number; peak: number }> = [];
    for (let i = 0; i < 3; i++) {
      resetPeak(service.proc.pid!);
      const t = performance.now();
      const got = await client.request('GET', LIST);
      gets.push({ ms: performance.now() - t, peak: peakRss(service.proc.pid!) });
      if (got.status !== 200 || got.text.length < big.length / 2)
        throw new Error(`GET of the list answered ${got.status} with ${got.text.length} bytes`);
    }
    const getMs = median(gets.map((g) => g.ms));
    const getPeak = Math.max(...gets.map((g) => g.peak));
    const filters: Array<[string, number]> = [];
    for (const filter of ORDINARY_FILTERS) {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        const got = await client.request('GET', `${LIST}/interface?fetch=count&jsonb-filter=${encodeURIComponent(filter)}`);
        times.push(performance.now() - t);
        if (got.status !== 200) throw new Error(`jsonb-filter ${filter} answered ${got.status}: ${got.text.slice(0, 300)}`);
      }
      filters.push([filter, median(times)]);
    }
    client.close();

    const errors = at1k.get.errors + at1k.put.errors + at100k.get.errors + at100k.put.errors;

    rows.push(
      result('trivial http server, 200-byte GET (8 conns), before the 1k GETs', at1k.ceiling.perSecond, 'req/s', null, 'the ceiling'),
      result('trivial http server p99', at1k.ceiling.p99Ms, 'ms'),
      result('GET one entry, 1k stored (8 conns)', at1k.get.perSecond, 'req/s', at1k.ceiling.perSecond, '>= 0.5x trivial server'),
      result('GET one entry, 1k stored p99', at1k.get.p99Ms, 'ms'),
      result('trivial http server, 200-byte GET (8 conns), before the 100k GETs', at100k.ceiling.perSecond, 'req/s', null, 'the ceiling'),
      result('GET one entry, 100k stored (8 conns)', at100k.get.perSecond, 'req/s', at100k.ceiling.perSecond, '>= 0.5x trivial server'),
      result('GET one entry, 100k stored p99', at100k.get.p99Ms, 'ms'),
      result('PUT one entry durable, 1k stored (8 conns)', at1k.put.perSecond, 'writes/s', 2000, '>= 2,000 writes/s'),
      result('PUT one entry durable, 1k stored p99', at1k.put.p99Ms, 'ms'),
      result('PUT one entry durable, 1k stored: writes per durable commit', at1k.put.recordsPerFsync, 'records', null, 'group commit: > 1'),
      result(
        'PUT one entry durable, 1k stored: durable commit time (mean)',
        at1k.put.fsyncMeanMs,
        'ms',
        null,
        `ceiling 8 conns / commit = ${Math.round(8000 / Math.max(at1k.put.fsyncMeanMs, 0.001))}/s`,
      ),
      result(
        'PUT one entry durable, 100k stored (8 conns)',
        at100k.put.perSecond,
        'writes/s',
        at1k.put.perSecond,
        '>= 2,000/s and >= ~1x the 1k rate',
      ),
      result('PUT one entry durable, 100k stored p99', at100k.put.p99Ms, 'ms'),
      result(
        'PUT one entry durable, 100k stored: writes per durable commit',
        at100k.put.recordsPerFsync,
        'records',
        null,
        'group commit: > 1',
      ),
      result(
        'PUT one entry durable, 100k stored: durable commit time (mean)',
        at100k.put.fsyncMeanMs,
        'ms',
        null,
        `ceiling 8 conns / commit = ${Math.round(8000 / Math.max(at100k.put.fsyncMeanMs, 0.001))}/s`,
      ),
      result('PUT 100k-entry list, one request (median of 3)', bigPut.ms, 'ms', putRoundTrip, '<= 5x JSON.parse+stringify'),
      result('PUT 100k-entry list: service peak RSS', bigPut.peak / 2 ** 20, 'MB'),
      result('GET 100k-entry list (median of 3)', getMs, 'ms', getRoundTrip, '<= 3x JSON.parse+stringify'),
      result('GET 100k-entry list: service peak RSS', getPeak / 2 ** 20, 'MB'),
      ...filters.map(([filter, ms]) =>
        result(
          `GET 100k-entry list, fetch=count&jsonb-filter=${filter} (median of 3)`,
          ms,
          'ms',
          getMs,
          'the budget costs nothing measurable',
        ),
      ),
      result('heap per stored list entry (100k vs 1k, after gc)', (heap100k - heap1k) / 99_000, 'bytes', 1024, '< 1 KB'),
      result('service heap after gc: empty / 1k / 100k stored', heap100k / 2 ** 20, 'MB', heapEmpty / 2 ** 20),
      result('non-2xx answers during the loads', errors, 'count', null, '0'),
    );
  } finally {
    await stopChild(service);
    await stopChild(trivial);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

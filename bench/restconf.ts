/**
 * Benchmark: the real RESTCONF service (`rosetta start` in a child process, fresh data folder,
 * the test models of ietf-interfaces + iana-if-type through --yang, durable journal) beside a
 * trivial Node `http` server answering a fixed 200-byte body (the ceiling for this machine), also in
 * a child process.
 *
 * The loads are driven by wrk from its own process (bench/wrk.ts: `wrk -t1 -c8 --latency`, a few
 * seconds each, on 127.0.0.1): requests/s and p99 latency of GET and PUT of one list entry, with 1,000
 * and with 100,000 entries stored. The in-process client these rows used before topped out at
 * 9,400-20,000 requests/s whatever answered, so the service looked as fast as the trivial server;
 * wrk measures the trivial server at 21,000-57,000. Without wrk those rows are skipped, saying why.
 * Also measured: time and peak RSS of the service to PUT a 100,000-entry list in one request and to GET
 * it back, beside JSON.parse+JSON.stringify of the same body; heap per stored list entry (after gc).
 * For the durable PUTs, the child counts the journal's durable commits (a synced write each): writes
 * per commit (group commit at work) and the mean commit time under that load, which bounds what 8
 * connections can reach (8 / commit time when every commit covers all eight).
 * The machine is shared, so every ratio compares measurements taken back to back: the trivial server
 * (kept running, loaded with the same wrk script) is measured right before each GET and each PUT load
 * and is that row's baseline, and JSON.parse+stringify right before the large PUT and the large GET;
 * those two are the median of three requests (one GC pause or a busy neighbour would otherwise decide
 * a single-shot row).
 * jsonb-filter over the 100k list (fetch=count, median of 3), beside the plain GET of the list.
 * Goals are the issue's: GET >= 50% of the trivial server; PUT >= 2,000 durable writes/s and no slower
 * at 100k than at 1k; 100k PUT <= 5x and GET <= 3x of JSON.parse+JSON.stringify; < 1 KB per entry.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { serviceNodeFlags } from '@rosetta/core/bin/node-flags.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { interfacesDocument } from './data-codecs';
import { testModels } from './paths';
import { benchClient, type BenchClient } from './http-client';
import { result, type BenchResult, median } from './results';
import { type Load, type LoadRequest, loadTool, wrkLoad } from './wrk';

const CONNECTIONS = 8;
/** Seconds of each measured load (wrk takes whole seconds). */
const RUN_SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_RESTCONF_MS ?? 5000) / 1000));
const YANG_JSON = 'application/yang-data+json';
const ENTRY = '/rests/data/ietf-interfaces:interfaces/interface=';
const LIST = '/rests/data/ietf-interfaces:interfaces';
/** Ordinary filters over the 100k list: a comparison, and an unanchored like_regex (the costliest ordinary kind, 8 M steps). */
const ORDINARY_FILTERS = ['{@/enabled} == true', '{@/description} like_regex "rack 47"'];

export interface Child {
  readonly proc: ChildProcess;
  readonly url: string;
}

/**
 * Forks bench/restconf-child with `args` (node flags `execArgv`, its stderr to `stderr`, a file descriptor,
 * or this process's); resolves once it reports where it listens (bounded). The child runs with the Node
 * flags `npm start` gives the service (core/bin/node-flags.js); `execArgv` comes after them, so a flag
 * given there wins.
 */
export function startChild(args: string[], execArgv: readonly string[] = [], stderr: 'inherit' | number = 'inherit'): Promise<Child> {
  const proc = fork(path.join(__dirname, 'restconf-child.js'), args, {
    execArgv: ['--expose-gc', ...serviceNodeFlags(), ...execArgv],
    cwd: os.tmpdir(),
    // a log file given for stderr takes stdout too (the service's info lines), the terminal only errors
    stdio: ['ignore', typeof stderr === 'number' ? stderr : 'ignore', stderr, 'ipc'],
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
export function peakRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}
export function resetPeak(pid: number): void {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    /* older kernels: peak since start */
  }
}

interface PutLoad extends Load {
  /** Acknowledged writes per fsync during the load. */
  readonly recordsPerFsync: number;
  readonly fsyncMeanMs: number;
}

interface EntryLoads {
  readonly getCeiling: Load;
  readonly get: Load;
  readonly putCeiling: Load;
  readonly put: PutLoad;
}

/** The body of a PUT of entry eth<k> by request n, as a Lua expression: description and enabled change with n, so every PUT is a change. */
export const LUA_ENTRY_BODY = [
  `'{"ietf-interfaces:interface":[{"name":"eth'`,
  'k',
  `'","description":"write '`,
  'n',
  `'","type":"iana-if-type:ethernetCsmacd","enabled":'`,
  `(n % 2 == 0 and 'true' or 'false')`,
  `'}]}'`,
].join(' .. ');

/** Stores `count` interface entries eth0.. in the service `child` (one PUT of the list); throws unless it is stored. */
export async function storeEntries(child: Child, count: number): Promise<void> {
  const client = benchClient(child.url);
  try {
    const reply = await client.request('PUT', LIST, interfacesDocument(count));
    if (reply.status !== 201 && reply.status !== 204)
      throw new Error(`storing ${count} entries answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  } finally {
    client.close();
  }
}

/**
 * The single-entry loads the service benches share, among `stored` entries: a GET of entry eth<k>, and
 * a PUT of it whose description and enabled change with request n, so every write is a change.
 */
export function entryLoads(stored: number): { readonly get: LoadRequest; readonly put: LoadRequest } {
  const pathPrefix = `${ENTRY}eth`;
  return {
    get: { method: 'GET', pathPrefix, stored },
    put: { method: 'PUT', pathPrefix, stored, luaBody: LUA_ENTRY_BODY, contentType: YANG_JSON },
  };
}

/** The trivial server's rate now, loaded with the same script as a GET of one of `stored` entries. */
function ceilingNow(trivial: Child, stored: number): Promise<Load> {
  return wrkLoad(trivial.url, { method: 'GET', pathPrefix: `${ENTRY}eth`, stored }, RUN_SECONDS, CONNECTIONS);
}

/** GET and PUT of single entries among `stored` entries, each right after the trivial server's ceiling. */
async function singleEntryLoads(child: Child, stored: number, trivial: Child): Promise<EntryLoads> {
  const getCeiling = await ceilingNow(trivial, stored);
  const get = await wrkLoad(child.url, { method: 'GET', pathPrefix: `${ENTRY}eth`, stored }, RUN_SECONDS, CONNECTIONS);
  const putCeiling = await ceilingNow(trivial, stored);
  const before = await fsyncsOf(child);
  const put = await wrkLoad(
    child.url,
    { method: 'PUT', pathPrefix: `${ENTRY}eth`, stored, luaBody: LUA_ENTRY_BODY, contentType: YANG_JSON },
    RUN_SECONDS,
    CONNECTIONS,
  );
  const after = await fsyncsOf(child);
  const count = after.count - before.count;
  return {
    getCeiling,
    get,
    putCeiling,
    put: {
      ...put,
      recordsPerFsync: count === 0 ? 0 : put.answered / count,
      fsyncMeanMs: count === 0 ? 0 : (after.totalMs - before.totalMs) / count,
    },
  };
}

/** One second of each load, not measured. */
async function warmUp(service: Child, trivial: Child): Promise<void> {
  await wrkLoad(trivial.url, { method: 'GET', pathPrefix: `${ENTRY}eth`, stored: 1000 }, 1, CONNECTIONS);
  await wrkLoad(service.url, { method: 'GET', pathPrefix: `${ENTRY}eth`, stored: 1000 }, 1, CONNECTIONS);
  await wrkLoad(
    service.url,
    { method: 'PUT', pathPrefix: `${ENTRY}eth`, stored: 1000, luaBody: LUA_ENTRY_BODY, contentType: YANG_JSON },
    1,
    CONNECTIONS,
  );
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

/** The rows of the single-entry loads: each rate and p99 beside the trivial server's, measured right before. */
function loadRows(at1k: EntryLoads, at100k: EntryLoads): BenchResult[] {
  const rows: BenchResult[] = [];
  for (const [label, at] of [
    ['1k', at1k],
    ['100k', at100k],
  ] as const) {
    rows.push(
      result(
        `trivial http server, 200-byte GET (8 conns), before the ${label} GETs`,
        at.getCeiling.perSecond,
        'req/s',
        null,
        'the ceiling',
      ),
      result(label === '1k' ? 'trivial http server p99' : `trivial http server p99, before the ${label} GETs`, at.getCeiling.p99Ms, 'ms'),
      result(`GET one entry, ${label} stored (8 conns)`, at.get.perSecond, 'req/s', at.getCeiling.perSecond, '>= 0.5x trivial server'),
      result(`GET one entry, ${label} stored p99`, at.get.p99Ms, 'ms', at.getCeiling.p99Ms, "vs the trivial server's p99"),
      result(
        `trivial http server, 200-byte GET (8 conns), before the ${label} PUTs`,
        at.putCeiling.perSecond,
        'req/s',
        null,
        'the ceiling',
      ),
      result(
        `PUT one entry durable, ${label} stored (8 conns)`,
        at.put.perSecond,
        'writes/s',
        at.putCeiling.perSecond,
        '>= 2,000 writes/s; ratio to the trivial server',
      ),
      result(`PUT one entry durable, ${label} stored p99`, at.put.p99Ms, 'ms', at.putCeiling.p99Ms, "vs the trivial server's p99"),
      result(
        `PUT one entry durable, ${label} stored: writes per durable commit`,
        at.put.recordsPerFsync,
        'records',
        null,
        'group commit: > 1',
      ),
      result(
        `PUT one entry durable, ${label} stored: durable commit time (mean)`,
        at.put.fsyncMeanMs,
        'ms',
        null,
        `ceiling ${CONNECTIONS} conns / commit = ${Math.round((CONNECTIONS * 1000) / Math.max(at.put.fsyncMeanMs, 0.001))}/s`,
      ),
    );
  }
  const errors = at1k.get.errors + at1k.put.errors + at100k.get.errors + at100k.put.errors;
  rows.push(
    result('PUT one entry durable, 100k vs 1k stored', at100k.put.perSecond, 'writes/s', at1k.put.perSecond, '>= ~1x the 1k rate'),
    result('non-2xx answers during the loads', errors, 'count', null, '0'),
  );
  return rows;
}

export async function benchRestconf(): Promise<BenchResult[]> {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-yang-'));
  for (const f of ['ietf-interfaces@2018-02-20.yang', 'iana-if-type@2026-03-17.yang'])
    fs.symlinkSync(path.join(testModels, f), path.join(yangDir, f));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-data-'));
  const rows: BenchResult[] = [];
  const noLoads = loadTool();

  const trivial = await startChild(['trivial']);
  const service = await startChild(['service', '--port', '0', '--data-dir', dataDir, '--yang', yangDir]).catch(async (e: unknown) => {
    await stopChild(trivial);
    throw e;
  });
  try {
    const client = benchClient(service.url);
    const heapEmpty = await heapAfterGc(service);
    await putList(service, client, interfacesDocument(1000));
    const heap1k = await heapAfterGc(service);
    if (noLoads !== null) console.error(`bench: SKIPPING the HTTP load rows (GET and PUT of one entry, 8 conns): ${noLoads}`);
    // One unmeasured second of each load (JIT, connection set-up), so that the first measured phase is not also the coldest.
    if (noLoads === null) await warmUp(service, trivial);
    const at1k = noLoads === null ? await singleEntryLoads(service, 1000, trivial) : null;

    const big = interfacesDocument(100_000);
    const parsed = JSON.parse(big) as unknown;
    const roundTripMs = () => medianMs(3, () => JSON.parse(big)) + medianMs(3, () => JSON.stringify(parsed));
    const putRoundTrip = roundTripMs();
    const bigPuts = [await putList(service, client, big), await putList(service, client, big), await putList(service, client, big)];
    const bigPut = { ms: median(bigPuts.map((p) => p.ms)), peak: Math.max(...bigPuts.map((p) => p.peak)) };
    const heap100k = await heapAfterGc(service);
    const at100k = noLoads === null ? await singleEntryLoads(service, 100_000, trivial) : null;

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

    rows.push(
      ...(at1k === null || at100k === null ? [] : loadRows(at1k, at100k)),
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
    );
  } finally {
    await stopChild(service);
    await stopChild(trivial);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

/**
 * Benchmark (`ROSETTA_BENCH=operability`): what the operator's features cost.
 * - The OpenAPI document of the whole published OpenConfig release (bench/openapi-child.ts, a fresh
 *   process): time of the first, uncached generation of `GET /rests/openapi.json`'s text and the memory
 *   it takes; goal under 2 s. Skipped, saying so, without the shared YANG corpus (bench/paths.ts).
 * - Metrics and logging on vs off, in one process: services (`rosetta start` in child processes, the
 *   ietf-interfaces test models, 1,000 entries each, their log to a file) switched between the defaults
 *   ("on"), `"metrics": {"enabled": false}` with `"log": {"level": "silent"}` ("off"), and `"log":
 *   {"level": "debug"}` (an access line for every request, also reads: no goal, printed to show that
 *   cost) by rewriting their configuration file and sending SIGHUP (cli/reload-on-hangup.ts). Each
 *   round loads one process under the three settings in turn, a few seconds apart, with wrk in its own
 *   process; the goal (>= 0.95, cost < 5%) is read on the median of each round's on / off throughput.
 *   Separate processes per setting, alternated (this bench until 2026-11-28), read 0.77 to 1.42 for
 *   one build: two processes of one build differ by up to 10% in CPU a request (how each was
 *   compiled), and this host's speed drifts by a third over minutes; a pair inside one process and one
 *   round has neither. Even so, one pair of 3-second loads reads from 0.82 to 1.12: many short pairs
 *   (BENCH_OPERABILITY_ROUNDS rounds, default 24, of BENCH_OPERABILITY_PAIR_SECONDS, default 1, on each of
 *   BENCH_OPERABILITY_PAIRS processes, default 2), and the 95% confidence interval of their median
 *   printed beside it. The service CPU per request (/proc/PID/stat) is paired the same way. A fourth
 *   load per round repeats "on" ("again"): on / again is the same setting twice, the measure's own noise.
 * - The share of the service's CPU that metrics and logging code takes by its own time, from V8's
 *   sampling profile of the service (bench/restconf-child.ts) during a GET and a PUT load with both on:
 *   where to look (the garbage it makes is not in it), beside the share in socket writes.
 * - `/metrics` hammered by 50 connections (wrk in its own process) while another wrk process measures
 *   the p99 of single-entry GETs, beside the same p99 measured right before and right after without
 *   the hammering; goal: ratio <= 1.10, read on the median of the rounds' ratios, with its 95% interval
 *   and the after / before ratio (the measure's noise) beside it. BENCH_OPERABILITY_HAMMER_ROUNDS rounds
 *   (default 24) of BENCH_OPERABILITY_HAMMER_SECONDS loads (default 3).
 * BENCH_OPERABILITY_ONLY=hammer runs the hammering rows alone.
 * Without wrk the load rows are skipped with the reason (bench/wrk.ts).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cpuSeconds } from './fleet-processes';
import { sharedYang, sharedYangAbsent, testModels } from './paths';
import { type Child, entryLoads, startChild, stopChild, storeEntries } from './restconf';
import { median, result, type BenchResult } from './results';
import { type Load, type LoadRequest, loadTool, wrkLoad } from './wrk';

/** Rounds of the on/off loads on every process, and the seconds of each of their loads. */
const ROUNDS = Math.max(1, Math.round(Number(process.env.BENCH_OPERABILITY_ROUNDS ?? 24)));
const PAIR_SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_OPERABILITY_PAIR_SECONDS ?? 1)));
/** Rounds of the /metrics hammering (each side's figure the median of its loads). */
const HAMMER_ROUNDS = Math.max(1, Math.round(Number(process.env.BENCH_OPERABILITY_HAMMER_ROUNDS ?? 24)));
const HAMMER_SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_OPERABILITY_HAMMER_SECONDS ?? 3)));
/** `hammer` runs the /metrics hammering rows alone (what a change to the scrape needs measured). */
const ONLY = process.env.BENCH_OPERABILITY_ONLY;
/** Processes of each setting. */
const PAIRS = Math.max(1, Math.round(Number(process.env.BENCH_OPERABILITY_PAIRS ?? 2)));
const CONNECTIONS = 8;
const SCRAPERS = 50;
const STORED = 1000;
const { get: GET_ENTRY, put: PUT_ENTRY } = entryLoads(STORED);

interface OpenApiRun {
  readonly modules: number;
  readonly compileMs: number;
  readonly firstMs: number;
  readonly cachedMs: number;
  readonly bytes: number;
  readonly paths: number;
  readonly rssBefore: number;
  readonly peakRssDelta: number;
  readonly heapKept: number;
}

function openApiRows(): BenchResult[] {
  if (sharedYang === undefined) {
    console.error(`bench: SKIPPING the OpenAPI generation rows: they generate the OpenConfig release's document, and ${sharedYangAbsent}`);
    return [];
  }
  const child = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'openapi-child.js')], {
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`OpenAPI generation benchmark failed (${child.error?.message ?? child.status}): ${child.stderr}`);
  const run = JSON.parse(child.stdout.trim().split('\n').pop()!) as OpenApiRun;
  const mb = (bytes: number) => bytes / 2 ** 20;
  return [
    result(
      `OpenAPI document of ${run.modules} OpenConfig modules (${run.paths} paths), first generation`,
      run.firstMs / 1000,
      's',
      null,
      '< 2 s',
    ),
    result('OpenAPI document of OpenConfig: compiling its schema first (not part of the above)', run.compileMs / 1000, 's'),
    result('OpenAPI document of OpenConfig: second request (from the cache)', run.cachedMs, 'ms'),
    result('OpenAPI document of OpenConfig: size', mb(run.bytes), 'MB'),
    result(
      'OpenAPI document of OpenConfig: peak RSS growth while generating',
      mb(run.peakRssDelta),
      'MB',
      mb(run.rssBefore),
      'vs the RSS before',
    ),
    result('OpenAPI document of OpenConfig: heap kept by the cached document (after gc)', mb(run.heapKept), 'MB'),
  ];
}

/** Starts a service with the default settings on a fresh data folder and stores STORED entries. */
async function serviceOn(yangDir: string, folders: string[]): Promise<Reloadable> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-opdata-'));
  folders.push(dataDir);
  const configFile = path.join(dataDir, 'rosetta.json');
  fs.writeFileSync(configFile, JSON.stringify(SETTINGS.on));
  // the log to a file, as a service writes it in production (the terminal would get pino-pretty's text)
  const logFile = path.join(dataDir, 'service.log');
  const logFd = fs.openSync(logFile, 'a');
  const child = await startChild(
    ['service', '--port', '0', '--config', configFile, '--data-dir', dataDir, '--yang', yangDir],
    [],
    logFd,
  ).finally(() => fs.closeSync(logFd));
  await storeEntries(child, STORED);
  return { ...child, configFile, logFile, reloads: 0, said: 0, logRead: 0, logTail: '' };
}

/** The settings compared, switched in one process by a configuration reload (SIGHUP). */
type Side = 'on' | 'off' | 'every' | 'again';
type Sides<T> = Record<Side, T>;
/** `again` is `on` once more in the same round: on / again reads this measure's own noise. */
const SIDES: readonly Side[] = ['on', 'off', 'every', 'again'];
const SETTINGS: Sides<Record<string, unknown>> = {
  on: {},
  off: { metrics: { enabled: false }, log: { level: 'silent' } },
  every: { log: { level: 'debug' } },
  again: {},
};
const OFF_NAME = 'metrics off and log level silent';

/** A service whose settings the bench switches: its configuration file, its log, the reloads asked of it. */
type Reloadable = Child & {
  readonly configFile: string;
  readonly logFile: string;
  /** Reloads asked, and reload lines read from the log so far (up to byte logRead; logTail its last bytes). */
  reloads: number;
  said: number;
  logRead: number;
  logTail: string;
};

/** Puts `side`'s settings in force in `service`: writes them, sends SIGHUP, waits for the reload's log line (bounded). */
async function switchTo(service: Reloadable, side: Side): Promise<void> {
  fs.writeFileSync(service.configFile, JSON.stringify(SETTINGS[side]));
  service.proc.kill('SIGHUP');
  service.reloads += 1;
  // every reload writes its line: under the new level, or under the old one when the new is silent
  for (const deadline = Date.now() + 5000; ; ) {
    readNewLog(service);
    if (service.said >= service.reloads) return;
    if (Date.now() > deadline)
      throw new Error(`the service did not say it reloaded its configuration (${service.said} of ${service.reloads} reloads)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const RELOADED = /SIGHUP: configuration reloaded/g;

/**
 * Counts the reload lines written since the last call, reading only the log's new bytes (at log level
 * debug every request writes a line: the whole file grows by many megabytes a round).
 */
function readNewLog(service: Reloadable): void {
  const fd = fs.openSync(service.logFile, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= service.logRead) return;
    const chunk = Buffer.alloc(size - service.logRead);
    fs.readSync(fd, chunk, 0, chunk.length, service.logRead);
    service.logRead = size;
    // a line cut at the end of one read is whole in the next: count over the previous tail too
    const text = service.logTail + chunk.toString('utf8');
    const count = (t: string) => t.match(RELOADED)?.length ?? 0;
    service.said += count(text) - count(service.logTail);
    service.logTail = text.slice(-64);
  } finally {
    fs.closeSync(fd);
  }
}

/** A load, and the service CPU it took per answered request (µs, /proc/PID/stat). */
type CostedLoad = Load & { readonly cpuUs: number };

/** `request` on one service by its own wrk, with the service CPU it took. */
async function costedLoad(service: Child, request: LoadRequest): Promise<CostedLoad> {
  const pid = service.proc.pid!;
  const cpu0 = cpuSeconds(pid);
  const load = await wrkLoad(service.url, request, PAIR_SECONDS, CONNECTIONS);
  return { ...load, cpuUs: ((cpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, load.answered) };
}

/** One round: a load under each setting in turn, in one process, seconds apart. */
type Round = Sides<CostedLoad>;

/**
 * ROUNDS rounds of `request` on each process; in each round the three settings follow each other in
 * one process, the order turning from round to round so that none always comes first after a pause.
 */
async function alternate(services: readonly Reloadable[], request: LoadRequest): Promise<Round[]> {
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const service of services) {
      const loads: Partial<Round> = {};
      for (let k = 0; k < SIDES.length; k++) {
        const side = SIDES[(round + k) % SIDES.length]!;
        await switchTo(service, side);
        loads[side] = await costedLoad(service, request);
      }
      rounds.push(loads as Round);
    }
  return rounds;
}

/**
 * The 95% confidence interval of the median of `values` from their order statistics (the binomial
 * interval, normal approximation): with n pairs, the values at ranks n/2 -+ 1.96 sqrt(n)/2.
 */
function medianInterval(values: readonly number[]): { low: number; high: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const half = (1.96 * Math.sqrt(n)) / 2;
  const at = (rank: number) => sorted[Math.min(n - 1, Math.max(0, Math.round(rank)))]!;
  return { low: at(n / 2 - half - 1), high: at(n / 2 + half) };
}

/**
 * The goal is read on throughput, on / off, as the issue states it, paired: each round's "on" load
 * over the "off" load of the same process in the same round, a few seconds apart, and the median of
 * those ratios. Processes of one build differ by up to 10% in CPU a request, and this host's speed
 * drifts by a third over minutes; a pair inside one process and one round has neither. The service
 * CPU each request took is paired the same way and printed beside it.
 */
function costRows(what: string, unit: string, rounds: readonly Round[]): BenchResult[] {
  const pairs = `median of ${rounds.length} rounds in ${PAIRS} processes, the settings switched by reload`;
  const rate = (side: Side) => median(rounds.map((r) => r[side].perSecond));
  const cpu = (side: Side) => median(rounds.map((r) => r[side].cpuUs));
  const rateRatios = (side: Side) => rounds.map((r) => r[side].perSecond / r.off.perSecond);
  const cpuRatios = (side: Side) => rounds.map((r) => r[side].cpuUs / r.off.cpuUs);
  return [
    result(
      `${what}, metrics and logs on / ${OFF_NAME}, each round's pair (${pairs})`,
      median(rateRatios('on')),
      '×',
      null,
      '>= 0.95 (cost < 5%)',
    ),
    result(`${what}, on / off: 95% confidence interval of that median, low end`, medianInterval(rateRatios('on')).low, '×', null),
    result(`${what}, on / off: 95% confidence interval of that median, high end`, medianInterval(rateRatios('on')).high, '×', null),
    result(`${what}, metrics and logs on, vs ${OFF_NAME} (medians of the loads)`, rate('on'), unit, rate('off')),
    result(`${what}, an access line for every request (log level debug) / off, each round's pair`, median(rateRatios('every')), '×'),
    result(
      `${what}, on / on again in the same round (the same setting twice: this measure's noise), median`,
      median(rounds.map((r) => r.on.perSecond / r.again.perSecond)),
      '×',
    ),
    result(
      `${what}, on / on again: 95% confidence interval, low end`,
      medianInterval(rounds.map((r) => r.on.perSecond / r.again.perSecond)).low,
      '×',
    ),
    result(
      `${what}, on / on again: 95% confidence interval, high end`,
      medianInterval(rounds.map((r) => r.on.perSecond / r.again.perSecond)).high,
      '×',
    ),
    result(`${what}: service CPU per request, on / off, each round's pair`, median(cpuRatios('on')), '×', null, '<= 1.05'),
    result(`${what}: service CPU per request, on / off: 95% confidence interval, low end`, medianInterval(cpuRatios('on')).low, '×', null),
    result(
      `${what}: service CPU per request, on / off: 95% confidence interval, high end`,
      medianInterval(cpuRatios('on')).high,
      '×',
      null,
    ),
    result(`${what}: service CPU per request, metrics and logs on, vs ${OFF_NAME} (medians)`, cpu('on'), 'µs', cpu('off')),
    result(`${what}: service CPU per request, log level debug / off, each round's pair`, median(cpuRatios('every')), '×'),
    result(`${what} p99, on vs off (medians)`, median(rounds.map((r) => r.on.p99Ms)), 'ms', median(rounds.map((r) => r.off.p99Ms))),
  ];
}

/** Seconds of the load a CPU profile of the service is taken over. */
const PROFILE_SECONDS = 5;

/**
 * The scripts metrics and structured logging run: prom-client, pino and its writer, the service's
 * metrics/ and logging/ folders, and the request log's wrapper (restconf/request-log.ts, which also
 * gives every request its id in both settings: counted whole, so the share read is if anything high).
 */
const OPERABILITY_CODE: readonly RegExp[] = [
  /\/node_modules\/(prom-client|tdigest|bintrees)\//,
  /\/node_modules\/(pino|pino-std-serializers|sonic-boom|quick-format-unescaped|atomic-sleep|fast-redact|on-exit-leak-free|safe-stable-stringify)\//,
  /\/dist\/src\/(metrics|logging)\//,
  /\/dist\/src\/restconf\/request-log\.js$/,
];

/** Asks the service child for `message` and resolves with the field `field` of its answer. */
function ask<T>(service: Child, message: string, field: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (typeof m !== 'object' || m === null || !(field in m)) return;
      service.proc.off('message', onMessage);
      resolve(m[field] as T);
    };
    service.proc.on('message', onMessage);
    service.proc.send(message);
  });
}

/**
 * What share of the service's CPU goes to metrics and logging code, read from V8's sampling profile of
 * the service (every 200 us) during a load with both on: where to look, not the cost itself. Self time
 * is counted, a function V8 inlined counts where it was inlined, and the garbage the code makes is
 * collected in the collector's share: prom-client's own counting read 0.1% here while switching it off
 * saved 4-5% of a GET (metrics/plain-metrics.ts), so the goal is read on the paired loads.
 */
async function profileRows(service: Reloadable, request: LoadRequest, what: string): Promise<BenchResult[]> {
  await switchTo(service, 'on');
  await ask(service, 'profile-start', 'profiling');
  await wrkLoad(service.url, request, PROFILE_SECONDS, CONNECTIONS);
  const counts = await ask<Record<string, number>>(service, 'profile-stop', 'profile');
  let busy = 0;
  let operability = 0;
  let socketWrites = 0;
  for (const [script, samples] of Object.entries(counts)) {
    if (script === '(idle)') continue;
    busy += samples;
    if (OPERABILITY_CODE.some((code) => code.test(script))) operability += samples;
    if (script === '(writev)' || script === '(writeBuffer)' || script === '(writeUtf8String)') socketWrites += samples;
  }
  const share = (n: number) => (busy === 0 ? 0 : (100 * n) / busy);
  return [
    result(
      `${what}: share of the service's CPU in metrics and logging code, its own time only (V8 sampling profile of a ${PROFILE_SECONDS}-s load, both on; the garbage it makes is collected in the collector's time)`,
      share(operability),
      '%',
    ),
    result(`${what}: share of the service's CPU in socket writes (the kernel's loopback delivery included)`, share(socketWrites), '%'),
  ];
}

/** The GET p99 before, during and after 50 connections scrape /metrics: one round of the hammering rows. */
type HammerRound = { readonly before: Load; readonly during: Load; readonly after: Load; readonly scrapes: Load };

/**
 * HAMMER_ROUNDS rounds of: the GET p99 without scraping, then while SCRAPERS connections scrape /metrics
 * (the scrapers start a second before the measured load and outlast it by one), then without again,
 * each load its own wrk process. A round's ratio is the p99 during over the geometric mean of the two
 * around it, which cancels the host's drift across the round; after / before is the measure's own
 * noise (one pair of 3-second loads alone read from 0.77 to 1.57 between runs of one build).
 */
async function hammerRounds(service: Child): Promise<HammerRound[]> {
  const rounds: HammerRound[] = [];
  for (let round = 0; round < HAMMER_ROUNDS; round++) {
    const before = await wrkLoad(service.url, GET_ENTRY, HAMMER_SECONDS, CONNECTIONS);
    const hammer = wrkLoad(service.url, { method: 'GET', path: '/metrics' }, HAMMER_SECONDS + 2, SCRAPERS);
    await new Promise((r) => setTimeout(r, 1000));
    const during = await wrkLoad(service.url, GET_ENTRY, HAMMER_SECONDS, CONNECTIONS);
    const scrapes = await hammer;
    const after = await wrkLoad(service.url, GET_ENTRY, HAMMER_SECONDS, CONNECTIONS);
    rounds.push({ before, during, after, scrapes });
  }
  return rounds;
}

async function hammerRows(service: Child): Promise<BenchResult[]> {
  const rounds = await hammerRounds(service);
  const around = (r: HammerRound, field: 'p99Ms' | 'perSecond') => Math.sqrt(r.before[field] * r.after[field]);
  const p99Ratios = rounds.map((r) => r.during.p99Ms / around(r, 'p99Ms'));
  const noise = rounds.map((r) => r.after.p99Ms / r.before.p99Ms);
  const what = `GET one entry p99 (answered requests) while ${SCRAPERS} connections scrape /metrics`;
  const errors = (loads: Load[]) => loads.reduce((n, l) => n + l.errors, 0);
  return [
    // wrk's percentiles leave out requests that timed out (2 s), so a starved load reads a low p99: its rate and errors say so.
    result(
      `${what} / without, each round's ratio to the loads right before and after (median of ${HAMMER_ROUNDS} rounds)`,
      median(p99Ratios),
      '×',
      null,
      '<= 1.10',
    ),
    result(`${what}: 95% confidence interval of that median, low end`, medianInterval(p99Ratios).low, '×', null),
    result(`${what}: 95% confidence interval of that median, high end`, medianInterval(p99Ratios).high, '×', null),
    result("GET one entry p99 without scraping, after / before in the same round (this measure's noise), median", median(noise), '×', null),
    result(
      `${what}, vs without (medians of the loads)`,
      median(rounds.map((r) => r.during.p99Ms)),
      'ms',
      median(rounds.map((r) => around(r, 'p99Ms'))),
    ),
    result(
      'GET one entry while /metrics is scraped, vs without',
      median(rounds.map((r) => r.during.perSecond)),
      'req/s',
      median(rounds.map((r) => around(r, 'perSecond'))),
    ),
    result('GET one entry while /metrics is scraped: timeouts and non-2xx', errors(rounds.map((r) => r.during)), 'count', null, '0'),
    result(`/metrics scrapes answered by the ${SCRAPERS} connections`, median(rounds.map((r) => r.scrapes.perSecond)), 'scrapes/s'),
    result('/metrics scrapes: timeouts and non-2xx', errors(rounds.map((r) => r.scrapes)), 'count', null, '0'),
  ];
}

async function loadRows(): Promise<BenchResult[]> {
  const noLoads = loadTool();
  if (noLoads !== null) {
    console.error(`bench: SKIPPING the metrics and logging cost and the /metrics hammering rows: ${noLoads}`);
    return [];
  }
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-yang-'));
  for (const f of ['ietf-interfaces@2018-02-20.yang', 'iana-if-type@2026-03-17.yang'])
    fs.symlinkSync(path.join(testModels, f), path.join(yangDir, f));
  const folders = [yangDir];
  const services: Reloadable[] = [];
  try {
    for (let i = 0; i < PAIRS; i++) services.push(await serviceOn(yangDir, folders));
    // One unmeasured second of each load under each setting (JIT, connection set-up).
    for (const service of services)
      for (const side of SIDES) {
        await switchTo(service, side);
        for (const request of [GET_ENTRY, PUT_ENTRY]) await wrkLoad(service.url, request, 1, CONNECTIONS);
      }
    if (ONLY === 'hammer') return await hammerRows(services[0]!);
    const gets = await alternate(services, GET_ENTRY);
    const puts = await alternate(services, PUT_ENTRY);
    const profiles = [
      ...(await profileRows(services[0]!, GET_ENTRY, 'GET one entry (8 conns)')),
      ...(await profileRows(services[0]!, PUT_ENTRY, 'PUT one entry durable (8 conns)')),
    ];
    const errors = [...gets, ...puts].reduce((n, round) => n + SIDES.reduce((m, side) => m + round[side].errors, 0), 0);
    await switchTo(services[0]!, 'on');
    return [
      ...costRows('GET one entry (8 conns)', 'req/s', gets),
      ...costRows('PUT one entry durable (8 conns)', 'writes/s', puts),
      result('non-2xx answers during the on/off loads', errors, 'count', null, '0'),
      ...profiles,
      ...(await hammerRows(services[0]!)),
    ];
  } finally {
    for (const child of services) await stopChild(child);
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchOperability(): Promise<BenchResult[]> {
  return [...(ONLY === 'hammer' ? [] : openApiRows()), ...(await loadRows())];
}

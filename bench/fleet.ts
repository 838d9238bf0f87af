/**
 * Benchmark: a fleet of simulated devices in one service. The fleet simulator (`rosetta-sim`) and the
 * service (`rosetta start` with the NETCONF, CLI and FRR plugins, fresh data folder) each run in their
 * own processes; this process is only the client. For each fleet (500, 5,000 and 10,000 NETCONF devices
 * and 500 CLI devices, a fresh simulator and service each):
 * - install + sync-from-network: wall time, the service's CPU seconds (/proc/PID/stat utime+stime),
 *   devices and JSON lines per core-minute of that CPU (JSON lines: each node's configuration read back
 *   from the service and pretty-printed as RFC 7951 JSON), and RSS per device (after install and sync
 *   minus before, both after a full gc and once the service has been idle until its RSS stops falling,
 *   see memoryWhenIdle; the reading right after install is printed beside it);
 * - after uninstalling every node, the RSS beside the one at start (idle, and right after);
 * - on the 5,000 fleet: a transaction changing 1,000 devices (create-transaction, PATCH each node,
 *   calculate-diff, commit) checked on a device, its wall time and lines per core-minute; then a
 *   reconnect storm (the simulator restarts every device): time until all are connected again and the
 *   latency of GET /rests/operations meanwhile, from a probe in a process of its own (p99 and worst).
 * UniConfig's published figures stand in the baseline column (taken on 12 cores; ours are per core of
 * the service's own CPU, so comparable), the goals in the goal column.
 * BENCH_FLEET selects fleets (`nc500,cli500,nc5000,nc10000`, the default; any `nc<count>` or `cli<count>`);
 * BENCH_FLEET_PHASES=transaction (or `storm`, or both) runs those phases on every NETCONF fleet named
 * instead; BENCH_FLEET_PROFILE=<dir>
 * runs the 5,000 fleet's service under --cpu-prof, writing the profile there; BENCH_FLEET_HEAP_SNAPSHOT=<dir>
 * writes a heap snapshot of each fleet's service there once every device is installed and synced;
 * BENCH_FLEET_CONFIG=<json> gives the service a configuration (e.g. `{"fleet":{"connectConcurrency":32}}`)
 * and BENCH_FLEET_NODE_FLAGS Node or V8 flags of its own (`--trace-gc`), to compare settings run by run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchClient, type BenchClient } from './http-client';
import {
  cpuSeconds,
  fleetUnavailable,
  freePortRange,
  describeMemory,
  heapSnapshot,
  memoryAfterGc,
  memoryWhenIdle,
  startProbe,
  startService,
  startSimulator,
  type FleetDevice,
  type ServiceProcess,
  type SimulatorProcess,
} from './fleet-processes';
import {
  bounded,
  connectedCount,
  countLines,
  hasBulkRpcs,
  installAll,
  syncAll,
  transaction,
  uninstallAll,
  waitConnected,
} from './fleet-operations';
import { stopChild } from './restconf';
import { result, type BenchResult } from './results';

const UNICONFIG = {
  /** 5,000 NETCONF devices installed and synced in 16.5 minutes on 12 cores. */
  netconfLinesPerCoreMinute: 5126,
  installSyncSeconds5k: 16.5 * 60,
  cpuMsPerDevice: 2400,
  updateLinesPerCoreMinute: 43077,
  cliLinesPerCoreMinute: 59626,
};
const TRANSACTION_NODES = 1000;
const STORM_GOAL_S = 30;
const MB = 2 ** 20;
const fmt = (n: number) => n.toLocaleString('en-US');

interface Fleet {
  readonly key: string;
  readonly label: string;
  readonly netconf: number;
  readonly cli: number;
  /** The 1,000-device transaction runs on this fleet. */
  readonly transaction: boolean;
  /** The reconnect storm runs on this fleet. */
  readonly storm: boolean;
}

/**
 * The phases BENCH_FLEET_PHASES names (`transaction`, `storm`, comma-separated) for every NETCONF fleet,
 * so the transaction can be measured on a smaller fleet alone; unset: both, on the 5,000 fleet only
 * (or every one with BENCH_FLEET_ALL_PHASES=1).
 */
function phasesOf(netconf: number): { transaction: boolean; storm: boolean } {
  const named = process.env.BENCH_FLEET_PHASES;
  if (named !== undefined) {
    const phases = new Set(named.split(',').map((p) => p.trim()));
    for (const p of phases)
      if (p !== 'transaction' && p !== 'storm' && p !== '') throw new Error(`BENCH_FLEET_PHASES: unknown phase '${p}'`);
    return { transaction: netconf > 0 && phases.has('transaction'), storm: netconf > 0 && phases.has('storm') };
  }
  const both = netconf > 0 && (netconf === 5000 || process.env.BENCH_FLEET_ALL_PHASES === '1');
  return { transaction: both, storm: both };
}

/** The fleets run by default; BENCH_FLEET may name others as `nc<count>` or `cli<count>`. */
const DEFAULT_FLEETS = 'nc500,cli500,nc5000,nc10000';

/** The fleet a BENCH_FLEET key names, with the phases that run on it ({@link phasesOf}). */
function fleetOf(key: string): Fleet {
  const match = /^(nc|cli)(\d+)$/.exec(key);
  if (match === null) throw new Error(`BENCH_FLEET: '${key}' is not nc<count> or cli<count>`);
  const count = Number(match[2]);
  const netconf = match[1] === 'nc' ? count : 0;
  return {
    key,
    label: `${fmt(count)} ${netconf > 0 ? 'NETCONF' : 'CLI'}`,
    netconf,
    cli: count - netconf,
    ...phasesOf(netconf),
  };
}

const seconds = (ms: number) => ms / 1000;

export async function benchFleet(): Promise<BenchResult[]> {
  const unavailable = fleetUnavailable();
  if (unavailable !== null) {
    console.error(`bench: SKIPPING the fleet benchmark: ${unavailable}`);
    return [];
  }
  const fleets = (process.env.BENCH_FLEET ?? DEFAULT_FLEETS)
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map(fleetOf);
  const rows: BenchResult[] = [];
  for (const fleet of fleets) {
    console.log(`bench: fleet: ${fleet.label} devices`);
    try {
      rows.push(...(await benchOneFleet(fleet)));
    } catch (e) {
      const message = (e as Error).message;
      console.error(`bench: fleet: ${fleet.label} FAILED: ${message}`);
      rows.push(result(`fleet ${fleet.label}: FAILED`, 0, 'failed', null, message.slice(0, 200)));
    }
  }
  return rows;
}

/** One fleet on a fresh simulator and service; always stops both. */
async function benchOneFleet(fleet: Fleet): Promise<BenchResult[]> {
  const size = fleet.netconf + fleet.cli;
  const profileDir = fleet.transaction || fleet.storm ? process.env.BENCH_FLEET_PROFILE : undefined;
  const sim = await startFleetSimulator(fleet);
  let service: ServiceProcess | undefined;
  let http: BenchClient | undefined;
  try {
    if (profileDir !== undefined) fs.mkdirSync(profileDir, { recursive: true });
    service = await startService(size + 2000, profileDir);
    http = benchClient(service.url, 32);
    const rows = await measureFleet(fleet, sim, service, http).catch(async (e: unknown) => {
      await reportService(service!);
      throw e;
    });
    if (profileDir !== undefined) console.log(`bench: fleet: the service's CPU profile is written to ${profileDir} as it stops`);
    return rows;
  } finally {
    http?.close();
    if (service !== undefined) {
      await stopChild(service);
      // the service's own account of native memory handed back (service/native-memory.ts), if any
      for (const line of fs.readFileSync(path.join(service.dir, 'service.log'), 'utf8').split('\n'))
        if (line.includes('native memory')) console.log(`bench: fleet ${fleet.label}: service said: ${line}`);
      fs.rmSync(service.dir, { recursive: true, force: true });
    }
    await sim.stop();
  }
}

/**
 * After a failed phase: whether the service still runs (given a few seconds to finish dying, since a
 * reset connection is often the first sign of its end), its last log lines, and a copy of its log kept
 * beside the temporary folder that is about to be removed.
 */
async function reportService(service: ServiceProcess): Promise<void> {
  const proc = service.proc;
  const ended = () => proc.exitCode !== null || proc.signalCode !== null;
  for (let i = 0; i < 30 && !ended(); i++) await new Promise((r) => setTimeout(r, 100));
  const state = ended() ? `exited with ${proc.exitCode ?? proc.signalCode}` : 'still running';
  const kept = `${service.dir}.service.log`;
  fs.copyFileSync(path.join(service.dir, 'service.log'), kept);
  console.error(`bench: fleet: the service ${state}; its log is kept in ${kept}; its last lines:\n${service.logTail()}`);
}

/**
 * rosetta-sim on a free port range; tried three times, since another process on this shared machine may
 * take a port between the look and the listen.
 */
async function startFleetSimulator(fleet: Fleet): Promise<SimulatorProcess> {
  const size = fleet.netconf + fleet.cli;
  for (let attempt = 1; ; attempt++) {
    const args = ['--netconf', String(fleet.netconf), '--cli', String(fleet.cli), '--base-port', String(freePortRange(size))];
    try {
      return await startSimulator(args, 60_000 + size * 20);
    } catch (e) {
      if (attempt === 3 || /was not ready within/.test((e as Error).message)) throw e;
      console.error(`bench: fleet: ${(e as Error).message}; trying other ports`);
    }
  }
}

/** CPU seconds the simulator's processes have used (its stats), to tell its share of the machine from the service's. */
async function simulatorCpu(sim: SimulatorProcess): Promise<number> {
  const stats = await sim.command('stats');
  return typeof stats.cpuSeconds === 'number' ? stats.cpuSeconds : Number.NaN;
}

async function measureFleet(fleet: Fleet, sim: SimulatorProcess, service: ServiceProcess, http: BenchClient): Promise<BenchResult[]> {
  const pid = service.proc.pid!;
  const devices = sim.devices;
  const ids = devices.map((d) => d.id);
  const n = devices.length;
  const name = (what: string) => `fleet ${fleet.label}: ${what}`;
  const bulk = await hasBulkRpcs(http);
  console.log(`bench: fleet: installing with ${bulk ? 'install-multiple-nodes' : 'install-node, 32 in flight'}`);

  const atStart = (await memoryWhenIdle(service)).memory;
  const rssStart = atStart.rss;
  const cpu0 = cpuSeconds(pid);
  const simCpu0 = await simulatorCpu(sim);
  const t0 = performance.now();
  await bounded(`installing ${n} nodes`, 120_000 + n * 60, installAll(http, devices, bulk));
  const installMs = performance.now() - t0;
  await bounded(`sync-from-network of ${n} nodes`, 60_000 + n * 30, syncAll(http, ids));
  const installSyncMs = performance.now() - t0;
  const cpu = cpuSeconds(pid) - cpu0;
  const simCpu = (await simulatorCpu(sim)) - simCpu0;
  const connected = await connectedCount(http);
  if (connected !== n) throw new Error(`${connected} of ${n} nodes connected after install and sync`);
  const rightAfterInstall = await memoryAfterGc(service);
  const { memory: atInstalled, settledAfter: installedSettled } = await memoryWhenIdle(service);
  const rssInstalled = atInstalled.rss;
  const snapshotDir = process.env.BENCH_FLEET_HEAP_SNAPSHOT;
  if (snapshotDir !== undefined) console.log(`bench: fleet ${fleet.label}: heap snapshot in ${await heapSnapshot(service, snapshotDir)}`);

  const lines = await bounded('counting JSON lines', 60_000 + n * 20, countLines(http, ids));
  const totalLines = [...lines.values()].reduce((a, b) => a + b, 0);
  const coreMinutes = cpu / 60;
  const cli = fleet.cli > 0;
  const rows = [
    result(name('install wall time'), seconds(installMs), 's'),
    result(
      name('install + sync-from-network wall time'),
      seconds(installSyncMs),
      's',
      n === 5000 ? UNICONFIG.installSyncSeconds5k : null,
      n === 5000 ? 'baseline: UniConfig, 16.5 min on 12 cores' : '',
    ),
    result(name('install + sync service CPU'), cpu, 's', null, `the simulator's processes meanwhile: ${simCpu.toFixed(1)} s`),
    result(name('install + sync service CPU per device'), (cpu * 1000) / n, 'ms', UNICONFIG.cpuMsPerDevice, '<= 8 ms; baseline: UniConfig'),
    result(name('devices per core-minute (service CPU)'), n / coreMinutes, 'devices'),
    result(
      name(`JSON lines per core-minute (${Math.round(totalLines / n)} lines per device)`),
      totalLines / coreMinutes,
      'lines',
      cli ? UNICONFIG.cliLinesPerCoreMinute : UNICONFIG.netconfLinesPerCoreMinute,
      `baseline: UniConfig ${cli ? 'CLI' : 'NETCONF'}`,
    ),
    result(
      name('RSS per installed idle device'),
      (rssInstalled - rssStart) / n / 1024,
      'KB',
      null,
      `< 50 KB; idle ${Math.round(installedSettled)} s; right after install ${Math.round((rightAfterInstall.rss - rssStart) / n / 1024)} KB`,
    ),
  ];

  if (fleet.transaction) {
    rows.push(...(await orFailed(name('transaction'), () => measureTransaction(fleet, sim, service, http, devices, lines))));
  }
  if (fleet.storm) rows.push(...(await orFailed(name('reconnect storm'), () => measureStorm(fleet, sim, service, http, n))));

  await bounded(`uninstalling ${n} nodes`, 120_000 + n * 30, uninstallAll(http, devices, bulk));
  const rightAfterUninstall = await memoryAfterGc(service);
  const { memory: atEnd, settledAfter: endSettled } = await memoryWhenIdle(service);
  const rssEnd = atEnd.rss;
  // Where the memory sits (heap, buffers outside it, or neither: the allocator's pages), for docs/operations.md#memory.
  for (const [when, m] of [
    ['start', atStart],
    [`${n} installed, right after`, rightAfterInstall],
    [`${n} installed, idle ${Math.round(installedSettled)} s`, atInstalled],
    ['all uninstalled, right after', rightAfterUninstall],
    [`all uninstalled, idle ${Math.round(endSettled)} s`, atEnd],
  ] as const) {
    console.log(`bench: fleet ${fleet.label}: memory at ${when}: ${describeMemory(m)}`);
  }
  rows.push(
    result(
      name('RSS at start / installed / all uninstalled'),
      rssEnd / MB,
      'MB',
      rssStart / MB,
      `near the start (installed: ${Math.round(rssInstalled / MB)} MB; right after the uninstall: ${Math.round(rightAfterUninstall.rss / MB)} MB)`,
    ),
  );
  return rows;
}

/**
 * The rows of a phase, or one row saying it failed and why: the transaction and the storm each stand on
 * their own, so a failure of one still leaves the fleet's other rows and the uninstall measured. After a
 * failed storm the uninstall may find nodes still reconnecting; it removes them all the same.
 */
async function orFailed(what: string, phase: () => Promise<BenchResult[]>): Promise<BenchResult[]> {
  try {
    return await phase();
  } catch (e) {
    const message = (e as Error).message;
    console.error(`bench: fleet: ${what} FAILED: ${message}`);
    return [result(`${what}: FAILED`, 0, 'failed', null, message.slice(0, 200))];
  }
}

async function measureTransaction(
  fleet: Fleet,
  sim: SimulatorProcess,
  service: ServiceProcess,
  http: BenchClient,
  devices: readonly FleetDevice[],
  lines: ReadonlyMap<string, number>,
): Promise<BenchResult[]> {
  const ids = devices
    .filter((d) => d.kind === 'netconf')
    .slice(0, TRANSACTION_NODES)
    .map((d) => d.id);
  console.log(`bench: fleet: a transaction changing ${ids.length} nodes`);
  const cpu0 = cpuSeconds(service.proc.pid!);
  const t0 = performance.now();
  const times = await bounded(`the ${ids.length}-node transaction`, 300_000, transaction(http, ids, `bench ${Date.now()}`));
  const wallMs = performance.now() - t0;
  const cpu = cpuSeconds(service.proc.pid!) - cpu0;
  // the change reached the devices: the last one's running configuration holds it
  const last = ids[ids.length - 1]!;
  const running = JSON.stringify(await sim.command('running', [last]));
  if (!running.includes(times.location(last))) throw new Error(`after the commit, device ${last} does not hold the new location`);
  const txLines = ids.reduce((sum, id) => sum + (lines.get(id) ?? 0), 0);
  const name = (what: string) => `fleet ${fleet.label}: ${ids.length}-device transaction ${what}`;
  return [
    result(name('wall time (create, PATCH each, calculate-diff, commit)'), seconds(wallMs), 's', null, '< 5 s'),
    result(name('PATCH of each node (32 in flight)'), seconds(times.patchMs), 's'),
    result(name('calculate-diff'), seconds(times.diffMs), 's'),
    result(name('commit'), seconds(times.commitMs), 's'),
    result(name('service CPU'), cpu, 's'),
    result(
      name('JSON lines per core-minute (service CPU)'),
      txLines / (cpu / 60),
      'lines',
      UNICONFIG.updateLinesPerCoreMinute,
      'baseline: UniConfig update',
    ),
  ];
}

async function measureStorm(
  fleet: Fleet,
  sim: SimulatorProcess,
  service: ServiceProcess,
  http: BenchClient,
  n: number,
): Promise<BenchResult[]> {
  console.log(`bench: fleet: reconnect storm: the simulator restarts all ${n} devices`);
  const probe = await startProbe(`${service.url}/rests/operations`);
  const t0 = performance.now();
  let stormMs = 0;
  let failure: unknown;
  try {
    await sim.command('restart');
    // the service has seen the restart once some node is not connected; then all must come back
    await bounded(
      'the service noticing the restart',
      30_000,
      (async () => {
        while ((await connectedCount(http)) === n) await new Promise((r) => setTimeout(r, 100));
      })(),
    );
    await waitConnected(http, n, 180_000);
    stormMs = performance.now() - t0;
  } catch (e) {
    failure = e;
  }
  const latencies = await probe.finish();
  if (failure !== undefined) {
    const worst = `GET /rests/operations meanwhile: p99 ${latencies.p99Ms.toFixed(0)} ms, worst ${latencies.maxMs.toFixed(0)} ms`;
    throw new Error(`${(failure as Error).message} (${worst})`);
  }
  const name = (what: string) => `fleet ${fleet.label}: reconnect storm ${what}`;
  return [
    result(name('time until all connected again'), seconds(stormMs), 's', STORM_GOAL_S, `< ${STORM_GOAL_S} s`),
    result(name(`GET /rests/operations p99 (${fmt(latencies.count)} GETs)`), latencies.p99Ms, 'ms', null, '< 50 ms'),
    result(name('GET /rests/operations worst'), latencies.maxMs, 'ms', null, `p50 ${latencies.p50Ms.toFixed(1)} ms`),
    result(name('GET /rests/operations failed'), latencies.errors, 'count', null, '0'),
  ];
}

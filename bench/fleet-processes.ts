/**
 * The processes of the fleet benchmark and what it reads from them, so that bench/fleet.ts holds only the
 * phases: the fleet simulator (`rosetta-sim`, the SDK's bin, in its own process tree, spoken to by JSON
 * lines on stdin and stdout), the service (bench/restconf-child.ts's `rosetta start` with the NETCONF,
 * CLI and FRR plugins), the latency probe (bench/fleet-probe-child.ts, a client in a process of its own),
 * and the service's CPU time and RSS from /proc. Every wait is bounded and fails naming what it waited for.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as readline from 'node:readline';
import { repoRoot } from './paths';
import { startChild, type Child } from './restconf';

/** One simulated device as the simulator announces it (the shared fleet interface). */
export interface FleetDevice {
  readonly id: string;
  readonly kind: 'netconf' | 'cli';
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
}

export interface SimulatorProcess {
  readonly devices: readonly FleetDevice[];
  /** Sends one command line and resolves with its one answer line (rejects on `ok: false` or after `timeoutMs`). */
  command(cmd: string, ids?: readonly string[], timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** The rosetta-sim script, from the SDK's package.json `bin`. */
function simulatorScript(): string {
  const pkgFile = require.resolve('@rosetta/sdk/package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.['rosetta-sim'];
  if (bin === undefined) throw new Error('@rosetta/sdk has no rosetta-sim bin: the fleet simulator is not built into this tree');
  return path.resolve(path.dirname(pkgFile), bin);
}

/** Why the fleet benchmark cannot run here, or null. */
export function fleetUnavailable(): string | null {
  try {
    simulatorScript();
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Starts `rosetta-sim` with `args`; resolves once it prints its ready line (within `readyMs`). */
export function startSimulator(args: readonly string[], readyMs: number): Promise<SimulatorProcess> {
  const proc = spawn(process.execPath, [simulatorScript(), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true, // its own process group, so stop() ends its workers too
  });
  const lines = readline.createInterface({ input: proc.stdout! });
  const waiting: Array<(line: Record<string, unknown>) => void> = [];
  let onReady: ((line: Record<string, unknown>) => void) | undefined;
  lines.on('line', (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return; // not a protocol line
    }
    if (onReady !== undefined && line.ready === true) {
      onReady(line);
      onReady = undefined;
    } else waiting.shift()?.(line);
  });
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      process.kill(-proc.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`rosetta-sim ${args.join(' ')} was not ready within ${Math.round(readyMs / 1000)} s`));
    }, readyMs);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`rosetta-sim ${args.join(' ')} exited with ${code ?? signal} before it was ready`));
    });
    onReady = (line) => {
      clearTimeout(timer);
      const command = (cmd: string, ids?: readonly string[], timeoutMs = 120_000): Promise<Record<string, unknown>> =>
        new Promise((ok, fail) => {
          const t = setTimeout(() => fail(new Error(`rosetta-sim did not answer '${cmd}' within ${timeoutMs / 1000} s`)), timeoutMs);
          waiting.push((answer) => {
            clearTimeout(t);
            if (answer.ok === true) ok(answer);
            else fail(new Error(`rosetta-sim '${cmd}': ${String(answer.error)}`));
          });
          proc.stdin!.write(`${JSON.stringify(ids === undefined ? { cmd } : { cmd, ids })}\n`);
        });
      resolve({ devices: line.devices as FleetDevice[], command, stop });
    };
  });
}

/** Ports something listens on now (/proc/net/tcp and tcp6, state LISTEN). */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') ports.add(Number.parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/**
 * The test suite's real peers listen on these when a test starts them (test/peers: FRR's sshd, netconfd),
 * so a fleet must leave them free even when nothing listens there yet: a fleet on 10,000-15,000 made every
 * FRR test of a suite run beside it fail to start its peer.
 */
const PEER_PORTS = [Number(process.env.FRR_PEER_PORT ?? 10022), Number(process.env.NETCONF_PEER_PORT ?? 10830)];

/**
 * The first port of `count` consecutive ports that nothing listens on, below the ephemeral range (32768),
 * in steps of 1,000 from 10,000: the machine is shared, and another fleet may be playing on 20,000.
 */
export function freePortRange(count: number): number {
  const busy = listeningPorts();
  for (const port of PEER_PORTS) busy.add(port);
  for (let base = 10_000; base + count <= 32_768; base += 1000) {
    let free = true;
    for (let p = base; p < base + count && free; p++) free = !busy.has(p);
    if (free) return base;
  }
  throw new Error(`no ${count} free consecutive ports below 32768`);
}

/** The plugins the fleet's devices need, as a plugins.json in `dir`. */
export function fleetPlugins(dir: string): string {
  const file = path.join(dir, 'plugins.json');
  const plugins = ['plugins/netconf', 'plugins/cli', 'plugins/frr'].map((p) => ({ path: path.join(repoRoot, p), enabled: true }));
  fs.writeFileSync(file, JSON.stringify({ watch: false, plugins }));
  return file;
}

export interface ServiceProcess extends Child {
  readonly dir: string;
  /** The last lines the service wrote to stderr (its log: a line per device that reconnects, say). */
  logTail(lines?: number): string;
}

/**
 * Starts the service on a fresh data folder; with `cpuProfileDir`, under --cpu-prof (the profile is
 * written there when it stops). Its stderr goes to a file in the folder, not the bench's output: with
 * thousands of devices it logs thousands of lines. Its open-file limit is raised to `files` when that
 * is above its own (a device is a socket; as root, prlimit can raise the hard limit too).
 */
export async function startService(files: number, cpuProfileDir?: string): Promise<ServiceProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-fleet-'));
  const log = path.join(dir, 'service.log');
  const logFd = fs.openSync(log, 'a');
  const execArgv = [
    ...(cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`]),
    // BENCH_FLEET_NODE_FLAGS: Node or V8 flags for the service alone (`--trace-gc`, a heap setting to compare)
    ...(process.env.BENCH_FLEET_NODE_FLAGS?.split(' ').filter((flag) => flag !== '') ?? []),
  ];
  const args = ['service', '--port', '0', '--data-dir', path.join(dir, 'data'), '--plugins', fleetPlugins(dir)];
  // BENCH_FLEET_CONFIG: a service configuration (JSON) to compare settings, e.g. {"fleet":{"connectConcurrency":8}}
  if (process.env.BENCH_FLEET_CONFIG !== undefined) {
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(configFile, process.env.BENCH_FLEET_CONFIG);
    args.push('--config', configFile);
  }
  const child = await startChild(args, execArgv, logFd).finally(() => fs.closeSync(logFd));
  raiseFileLimit(child.proc.pid!, files);
  const logTail = (lines = 20) => fs.readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return { ...child, dir, logTail };
}

/** Raises a process's open-file limit to at least `files`; says so on stderr when it cannot. */
function raiseFileLimit(pid: number, files: number): void {
  const limits = fs.readFileSync(`/proc/${pid}/limits`, 'utf8');
  const soft = Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
  if (soft >= files) return;
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${files}:${files}`], { stdio: 'pipe' });
  } catch (e) {
    console.error(`bench: fleet: could not raise the service's open-file limit from ${soft} to ${files}: ${(e as Error).message}`);
  }
}

/** User plus system CPU seconds a process has used (/proc/PID/stat utime + stime). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name, which may itself hold spaces and parentheses
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(execClockTicks);
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}
const execClockTicks = (() => {
  try {
    return execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim();
  } catch {
    return '100';
  }
})();

/** Where a process's memory sits, in bytes (process.memoryUsage() after collecting garbage, and /proc). */
export interface MemoryUse {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Resident in the brk heap, where glibc's main arena mallocs small blocks (native memory: sockets, ciphers). */
  readonly mallocHeap: number;
}

/** Resident bytes of a process's `[heap]` mapping (/proc/PID/smaps), 0 when it cannot be read. */
function brkHeapRss(pid: number): number {
  try {
    const smaps = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
    const at = smaps.indexOf('[heap]');
    return at < 0 ? 0 : Number(/Rss:\s+(\d+) kB/.exec(smaps.slice(at))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Asks the service child to collect garbage twice, then reads its memory use. */
export function memoryAfterGc(child: Child): Promise<MemoryUse> {
  return new Promise((resolve) => {
    child.proc.once('message', (m: Omit<MemoryUse, 'mallocHeap'>) => resolve({ ...m, mallocHeap: brkHeapRss(child.proc.pid!) }));
    child.proc.send('gc');
  });
}

/** A process's memory once it has settled, and how long it took to settle (s). */
export interface IdleMemory {
  readonly memory: MemoryUse;
  readonly settledAfter: number;
}

/** V8 starts reducing its heap about 8 s after allocation has gone quiet (its memory reducer's first delay). */
const V8_MEMORY_REDUCER_DELAY_MS = 10_000;

/**
 * The memory of a process left idle for the delay of V8's memory reducer and then until its RSS stops
 * falling (two readings 3 s apart within 1 MB), at most `limitMs`. Right after a burst of work V8 still
 * holds the pages it grew into and hands them back only once allocation has been quiet for a few
 * seconds, so a reading taken at once measures the burst, not what an idle device costs (5,000 devices
 * installed: 482 MB at once, 325 MB idle; all uninstalled: 304 MB at once, 150 MB idle).
 */
export async function memoryWhenIdle(child: Child, limitMs = 40_000): Promise<IdleMemory> {
  const started = performance.now();
  await new Promise((r) => setTimeout(r, V8_MEMORY_REDUCER_DELAY_MS));
  let last = await memoryAfterGc(child);
  for (;;) {
    await new Promise((r) => setTimeout(r, 3000));
    const now = await memoryAfterGc(child);
    const settled = Math.abs(last.rss - now.rss) < 1048576;
    last = now;
    if (settled || performance.now() - started > limitMs) return { memory: now, settledAfter: (performance.now() - started) / 1000 };
  }
}

/** Asks the service child to write a heap snapshot into `dir`; resolves with its file (writing takes seconds). */
export function heapSnapshot(child: Child, dir: string): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (m: { snapshot?: string }) => {
      if (m.snapshot === undefined) return;
      child.proc.off('message', onMessage);
      resolve(m.snapshot);
    };
    child.proc.on('message', onMessage);
    child.proc.send({ snapshot: dir });
  });
}

/** One line of a process's memory use in MB: RSS, the heap used of its total, outside the heap, malloc's heap. */
export function describeMemory(m: MemoryUse): string {
  const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;
  return `RSS ${mb(m.rss)}, heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}, external ${mb(m.external)} (array buffers ${mb(m.arrayBuffers)}), malloc's brk heap ${mb(m.mallocHeap)}`;
}

export interface Latencies {
  readonly count: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface LatencyProbe {
  /** Stops the probe and resolves with the latencies it saw. */
  finish(): Promise<Latencies>;
}

/** Starts sequential GETs of `url` from a process of its own (bench/fleet-probe-child.ts). */
export function startProbe(url: string): Promise<LatencyProbe> {
  const proc: ChildProcess = fork(path.join(__dirname, 'fleet-probe-child.js'), [url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error('the latency probe did not start in 30 s'));
    }, 30_000);
    proc.once('message', () => {
      clearTimeout(timer);
      resolve({
        finish: () =>
          new Promise((done, fail) => {
            const t = setTimeout(() => {
              proc.kill('SIGKILL');
              fail(new Error('the latency probe did not report within 30 s'));
            }, 30_000);
            proc.once('message', (m) => {
              clearTimeout(t);
              proc.disconnect();
              done(m as Latencies);
            });
            proc.send('finish');
          }),
      });
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the latency probe exited with ${code}`));
    });
  });
}

/**
 * The one real FRR peer of a machine, shared by every test file and benchmark that needs it.
 *
 * vtysh talks to FRR's daemons through fixed sockets (/var/run/frr/*.vty), so only one FRR peer
 * (test/peers/frr-device.sh) can run per machine, while ava runs test files in parallel processes.
 * {@link acquireFrrPeer} serialises them with an inter-process lock and hands each holder the peer
 * freshly (re)started at its baseline configuration:
 * - the lock is a directory created atomically (`mkdir` fails with EEXIST when held) holding an `owner`
 *   file with the holder's pid; a lock whose owner process is gone (a crashed or killed worker) is
 *   recovered by renaming it aside first, so two recoverers never both delete a new holder's lock;
 * - waiting polls without blocking the event loop, and gives up after `waitMs` naming the holder;
 * - the lock is released on {@link FrrPeerLease.release} and, failing that, when the process exits;
 * - the peer is stopped on release only when it was not running before this lease started it, so a peer
 *   someone started by hand stays up, and no holder ever stops a peer another one is using.
 * {@link frrPeerUnavailable} says why the peer cannot run here (no FRR, no sshd, not root), for a loud skip.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The peer's login, as test/peers/frr-device.sh sets it up (its FRR_PEER_* variables override). */
export interface FrrPeerLogin {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
}

export interface FrrPeerOptions {
  /** Who holds the lock, for the messages of those waiting (default: the process's script). */
  readonly who?: string;
  /** Longest wait for the lock (ms, default 10 minutes). */
  readonly waitMs?: number;
  /** The start script (default: ROSETTA_FRR_PEER_SCRIPT, else the repository's test/peers/frr-device.sh). */
  readonly script?: string;
  /** The lock directory (default: ROSETTA_FRR_PEER_LOCK, else <tmpdir>/rosetta-frr-peer.lock). */
  readonly lockDir?: string;
}

/** The peer while a test file holds it. */
export interface FrrPeerLease extends FrrPeerLogin {
  /** How long this lease waited for the lock (ms). */
  readonly waitedMs: number;
  /** The running configuration, read on the device itself (vtysh as root), not through any client. */
  runningConfig(): string;
  /** Configuration lines applied on the device itself (`vtysh -f`, which goes on past a failing line). */
  configure(lines: readonly string[]): void;
  /** Stops the peer (it stays this lease's: a later start() brings it back at its baseline). */
  stop(): Promise<void>;
  /**
   * Stops FRR's daemons (zebra, staticd, bgpd, or the ones named), only those, by the pids the script
   * recorded, and waits for them to exit: sshd keeps serving and vtysh keeps answering, with nothing (or
   * less) behind it (what a device whose routing daemons crashed looks like). `start()` brings the whole
   * peer back (stopping the rest).
   */
  stopDaemons(only?: readonly FrrDaemon[]): Promise<void>;
  /** Starts the peer at its baseline configuration (no-op output when running already). */
  start(): Promise<void>;
  /** Leaves the peer as it was found (stopped if this lease started it) and releases the lock. Never throws. */
  release(): Promise<void>;
}

const REPO_SCRIPT = path.resolve(__dirname, '../../../../test/peers/frr-device.sh');

function scriptPath(options: FrrPeerOptions): string {
  return options.script ?? process.env.ROSETTA_FRR_PEER_SCRIPT ?? REPO_SCRIPT;
}

/** Why the real FRR peer cannot run on this machine, or undefined when it can. */
export function frrPeerUnavailable(options: FrrPeerOptions = {}): string | undefined {
  if (!fs.existsSync('/usr/lib/frr/zebra') || !fs.existsSync('/usr/bin/vtysh'))
    return 'FRR is not installed (apt-get install frr openssh-server)';
  if (!fs.existsSync('/usr/sbin/sshd')) return 'openssh-server is not installed (apt-get install openssh-server)';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'the FRR peer needs root to start its daemons';
  const script = scriptPath(options);
  if (!fs.existsSync(script)) return `the peer's start script ${script} is missing`;
  return undefined;
}

/** The login the script gives the peer. */
export function frrPeerLogin(): FrrPeerLogin {
  return {
    host: '127.0.0.1',
    port: Number(process.env.FRR_PEER_PORT ?? 10022),
    username: process.env.FRR_PEER_USER ?? 'frruser',
    password: process.env.FRR_PEER_PASS ?? 'frrpass',
  };
}

// Leases of this process, one after another (a process may acquire twice, e.g. a test and a benchmark).
let inProcess: Promise<unknown> = Promise.resolve();

/**
 * Waits for the machine's FRR peer, (re)starts it at its baseline configuration and hands it over.
 * Rejects when the lock is not free within `waitMs` (naming its holder) or the peer does not start.
 */
export function acquireFrrPeer(options: FrrPeerOptions = {}): Promise<FrrPeerLease> {
  const turn = inProcess.then(() => lease(options));
  // the next in-process acquirer waits for this lease's release, not only for its start
  inProcess = turn.then(
    (l) => l.released,
    () => undefined,
  );
  return turn.then((l) => l.lease);
}

async function lease(options: FrrPeerOptions): Promise<{ lease: FrrPeerLease; released: Promise<void> }> {
  const script = scriptPath(options);
  const lockDir = options.lockDir ?? process.env.ROSETTA_FRR_PEER_LOCK ?? path.join(os.tmpdir(), 'rosetta-frr-peer.lock');
  const started = Date.now();
  const unlock = await takeLock(lockDir, options.who ?? path.basename(process.argv[1] ?? 'node'), options.waitMs ?? 600_000);
  let done!: () => void;
  const released = new Promise<void>((r) => {
    done = r;
  });
  try {
    const wasRunning = (await peerScript(script, 'status')).ok;
    const baseline = await peerScript(script, wasRunning ? 'restart' : 'start');
    if (!baseline.ok) throw new Error(`the FRR peer did not ${wasRunning ? 'restart' : 'start'}: ${baseline.out.trim().slice(-2000)}`);
    let releasing: Promise<void> | undefined;
    const leaseObject: FrrPeerLease = {
      ...frrPeerLogin(),
      waitedMs: Date.now() - started,
      runningConfig: () => execFileSync('vtysh', ['-c', 'show running-config'], { encoding: 'utf8', timeout: 30_000 }),
      configure: (lines) => configureOnDevice(lines),
      stop: async () => {
        await peerScript(script, 'stop');
      },
      stopDaemons: (only) => stopDaemons(only),
      start: async () => {
        const r = await peerScript(script, 'start');
        if (!r.ok) throw new Error(`the FRR peer did not start: ${r.out.trim().slice(-2000)}`);
      },
      release: () => {
        releasing ??= (async () => {
          try {
            if (!wasRunning) await peerScript(script, 'stop');
          } finally {
            unlock();
            done();
          }
        })().catch(() => undefined);
        return releasing;
      },
    };
    return { lease: leaseObject, released };
  } catch (e) {
    unlock();
    done();
    throw e;
  }
}

/** Runs the start script (never installing packages: a test must not apt-get), collecting its output. */
function peerScript(script: string, command: 'start' | 'stop' | 'status' | 'restart'): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [script, command],
      { env: { ...process.env, FRR_PEER_NO_INSTALL: '1' }, timeout: 120_000, maxBuffer: 4 << 20 },
      (error, stdout, stderr) => {
        resolve({ ok: error === null, out: `${stdout}${stderr}` });
      },
    );
  });
}

const DAEMONS = ['bgpd', 'staticd', 'zebra'] as const;

/** The routing daemons the peer runs. */
export type FrrDaemon = (typeof DAEMONS)[number];

/** The script's state directory, where it records the daemons' pids. */
function stateDir(): string {
  return process.env.FRR_PEER_STATE ?? '/tmp/peer-frr';
}

async function stopDaemons(only: readonly FrrDaemon[] = DAEMONS): Promise<void> {
  const pids: number[] = [];
  for (const daemon of only) {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(stateDir(), `${daemon}.pid`), 'utf8').trim());
    } catch {
      continue; // not running
    }
    // only a process that is that daemon (the pid file may be stale and the pid reused)
    let exe = '';
    try {
      exe = fs.readlinkSync(`/proc/${pid}/exe`);
    } catch {
      continue;
    }
    if (!Number.isInteger(pid) || pid <= 1 || path.basename(exe) !== daemon) continue;
    try {
      process.kill(pid, 'SIGTERM');
      pids.push(pid);
    } catch {
      /* gone already */
    }
  }
  const deadline = Date.now() + 10_000;
  while (pids.some((pid) => isRunning(pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of pids)
    if (isRunning(pid))
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
}

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

function configureOnDevice(lines: readonly string[]): void {
  const file = path.join(os.tmpdir(), `rosetta-frr-config-${process.pid}-${Date.now()}.conf`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  try {
    spawnSync('vtysh', ['-f', file], { stdio: 'ignore', timeout: 30_000 });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

interface LockOwner {
  readonly pid: number;
  readonly who: string;
  readonly since: string;
}

function readOwner(dir: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(path.join(dir, 'owner'), 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock directory left by a process that is gone (or half-made long ago), set aside and removed. */
function recoverStale(dir: string): boolean {
  const owner = readOwner(dir);
  if (owner === undefined) {
    // mkdir and the owner file are not one step: a lock without owner is stale only once it is old
    let age = 0;
    try {
      age = Date.now() - fs.statSync(dir).mtimeMs;
    } catch {
      return true;
    }
    if (age < 10_000) return false;
  } else if (alive(owner.pid)) {
    return false;
  }
  const aside = `${dir}.stale-${process.pid}-${Date.now()}`;
  try {
    fs.renameSync(dir, aside);
  } catch {
    return true; // someone else recovered it first: try to take it
  }
  const moved = readOwner(aside);
  if (moved !== undefined && owner !== undefined && moved.pid !== owner.pid) {
    // a new holder took the lock between our look and the rename: give it back
    try {
      fs.renameSync(aside, dir);
    } catch {
      /* it has a newer lock by now; ours stays aside */
    }
    return false;
  }
  fs.rmSync(aside, { recursive: true, force: true });
  return true;
}

async function takeLock(dir: string, who: string, waitMs: number): Promise<() => void> {
  const deadline = Date.now() + waitMs;
  let pause = 50;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(
        path.join(dir, 'owner'),
        JSON.stringify({ pid: process.pid, who, since: new Date().toISOString() } satisfies LockOwner),
      );
      let held = true;
      const unlock = () => {
        if (!held) return;
        held = false;
        process.off('exit', unlock);
        if (readOwner(dir)?.pid === process.pid) fs.rmSync(dir, { recursive: true, force: true });
      };
      process.on('exit', unlock);
      return unlock;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new Error(`cannot create the FRR peer lock ${dir}: ${(e as Error).message}`);
    }
    if (recoverStale(dir)) continue;
    if (Date.now() > deadline) {
      const owner = readOwner(dir);
      throw new Error(
        `the FRR peer lock ${dir} is still held after ${waitMs} ms${owner ? ` by pid ${owner.pid} (${owner.who}) since ${owner.since}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(500, pause * 2);
  }
}

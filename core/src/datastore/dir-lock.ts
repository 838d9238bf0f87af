/**
 * One owner per data directory. The lock is a file named LOCK holding "pid, host name, token, start
 * time", created atomically by hard-linking a fully written temporary file (so nobody ever reads a
 * half-written lock). A lock left by a process that died (kill -9, power cut) is stale and taken over:
 * its pid no longer runs, or is a zombie (dead, not yet reaped by a parent or supervisor that reaps
 * late), or now names another process (its start time differs: the pid was reused), or it is our own
 * pid but not a lock this process holds (a previous incarnation whose pid was reused, as happens in
 * containers). A holder that is exiting (marked so by the kernel, or its main thread a zombie while
 * other threads finish, which may still complete a write in flight) is given a few seconds to be gone
 * before it is judged; one still there then is live. A lock from another host is never presumed stale.
 *
 * What a process is comes from /proc (Linux): the state and flags, and the start time (field 22 of
 * /proc/<pid>/stat, in clock ticks since boot). Without /proc the pid alone tells, and the lock carries
 * no start time. A lock without one (from there, or from a version that did not write it) is judged by
 * its pid alone; versions that did not write it read the first three lines of a lock and ignore the
 * fourth.
 *
 * A lock that cannot be read as one (damaged: cut short, a flipped byte, emptied) names no holder to
 * judge. It is taken over only when no process on this host has a file of the directory open, looked up
 * in /proc/<pid>/fd (a live holder keeps its journal segment open for its whole life); otherwise, or
 * without /proc, it is refused naming the lock file and the process, so that it never blocks start-up
 * without saying what to do, and is never trusted blindly either (docs/operations.md).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { FILE_MODE, removeIfPresent } from './durable-file';
import { temporarySuffix } from './data-directory';
import { JournalError } from './journal-error';

/** Name of the lock file inside a data directory. */
export const LOCK_FILE_NAME = 'LOCK';

/** Tokens of the locks this process holds, to tell our own live lock from a dead incarnation's. */
const heldTokens = new Set<string>();

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  /** The holder's start time (field 22 of /proc/<pid>/stat), when the lock records it. */
  readonly startTime?: string;
}

function parseOwner(text: string): LockOwner | undefined {
  const [pid, host, token, startTime] = text.split('\n');
  const pidNumber = Number(pid);
  if (!/^\d+$/.test(pid ?? '') || !Number.isSafeInteger(pidNumber) || pidNumber <= 0 || !host || !token) return undefined;
  // A flipped byte in the host name must not make the lock look like another host's, never presumed stale.
  if (!/^[\w.-]+$/.test(host) || !/^[0-9a-f]+$/.test(token)) return undefined;
  if (!startTime) return { pid: pidNumber, host, token };
  return /^\d+$/.test(startTime) ? { pid: pidNumber, host, token, startTime } : undefined;
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** How long a holder that is exiting is given to be gone before it is judged. */
const EXIT_GRACE_MS = 5_000;
const EXIT_POLL_MS = 50;

/** PF_EXITING among the flags of /proc/<pid>/stat (field 9): the process has begun to exit. */
const PF_EXITING = 0x4;

/** A process as /proc shows it. `dead`: a zombie, holding no files; `exiting`: see the top of this file. */
interface ProcessView {
  readonly state: 'gone' | 'dead' | 'exiting' | 'running';
  readonly startTime?: string;
}

/**
 * The fields of a /proc stat file from field 3 (the state) on, or undefined when the task is gone. The
 * command name before them is in parentheses and may itself hold spaces and parentheses.
 */
async function statFields(file: string): Promise<string[] | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    throw error;
  }
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

const isDeadState = (state: string | undefined) => state === 'Z' || state === 'X' || state === 'x';

let procAvailable: Promise<boolean> | undefined;

/**
 * What /proc says of `pid`; undefined where it cannot tell: there is no /proc, or it hides the processes
 * of other users (hidepid) and kill(0) finds one.
 */
async function viewProcess(pid: number): Promise<ProcessView | undefined> {
  if (
    !(await (procAvailable ??= fs.access('/proc/self/stat').then(
      () => true,
      () => false,
    )))
  )
    return undefined;
  const fields = await statFields(`/proc/${pid}/stat`);
  if (fields === undefined) return processIsRunning(pid) ? undefined : { state: 'gone' };
  const startTime = fields[19];
  let state: ProcessView['state'];
  if (isDeadState(fields[0])) state = (await otherThreadsLive(pid)) ? 'exiting' : 'dead';
  else state = (Number(fields[6]) & PF_EXITING) !== 0 ? 'exiting' : 'running';
  return startTime === undefined ? { state } : { state, startTime };
}

/** Whether a process whose main thread is a zombie still has threads that are not. */
async function otherThreadsLive(pid: number): Promise<boolean> {
  let tasks: string[];
  try {
    tasks = await fs.readdir(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  for (const task of tasks) {
    if (task === String(pid)) continue;
    const fields = await statFields(`/proc/${pid}/task/${task}/stat`);
    if (fields !== undefined && !isDeadState(fields[0])) return true;
  }
  return false;
}

let ownStartTime: Promise<string | undefined> | undefined;

/** This process's start time, as a holder's is recorded (undefined without /proc). */
function startTimeOfThisProcess(): Promise<string | undefined> {
  return (ownStartTime ??= viewProcess(process.pid).then(
    (view) => view?.startTime,
    () => undefined,
  ));
}

async function ownerIsAlive(owner: LockOwner): Promise<boolean> {
  if (owner.host !== os.hostname()) return true; // cannot tell: presume alive
  if (owner.pid === process.pid) return heldTokens.has(owner.token);
  const deadline = Date.now() + EXIT_GRACE_MS;
  for (;;) {
    const view = await viewProcess(owner.pid);
    if (view === undefined) return processIsRunning(owner.pid);
    if (view.state === 'gone' || view.state === 'dead') return false;
    if (owner.startTime !== undefined && view.startTime !== owner.startTime) return false; // another process has the pid now
    if (view.state === 'running' || Date.now() >= deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
  }
}

/** Whether `pid` (of a leftover temporary file) holds nothing any more: gone, or a zombie. */
async function processIsGone(pid: number): Promise<boolean> {
  const view = await viewProcess(pid);
  return view === undefined ? !processIsRunning(pid) : view.state === 'gone' || view.state === 'dead';
}

async function readLockText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The other processes on this host that have a file under `directory` open; undefined without /proc.
 * Processes whose descriptors cannot be read (another user's) are not seen: they cannot write a 0700
 * data directory they do not own anyway, root excepted.
 */
async function processesUsing(directory: string): Promise<number[] | undefined> {
  let pids: string[];
  try {
    pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return undefined;
  }
  const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
  const users: number[] = [];
  for (const pid of pids) {
    let descriptors: string[];
    try {
      descriptors = await fs.readdir(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const descriptor of descriptors) {
      const target = await fs.readlink(`/proc/${pid}/fd/${descriptor}`).catch(() => '');
      if (target.startsWith(prefix)) {
        users.push(Number(pid));
        break;
      }
    }
  }
  return users;
}

/** Temporary lock files ("LOCK.tmp-<pid>-…", "LOCK.stale.tmp-<pid>-…") of processes that died mid-way. */
const LEFTOVER_NAME = /^LOCK(?:\.stale)?\.tmp-(\d+)-[0-9a-z]+$/;

async function removeLeftovers(directory: string): Promise<void> {
  for (const name of await fs.readdir(directory)) {
    const match = LEFTOVER_NAME.exec(name);
    const pid = match ? Number(match[1]) : undefined;
    if (pid !== undefined && pid !== process.pid && (await processIsGone(pid))) {
      await removeIfPresent(path.join(directory, name)).catch(() => undefined);
    }
  }
}

/** An exclusive hold on one data directory, released with `release()`. */
export class DirectoryLock {
  private released = false;

  private constructor(
    /** Absolute path of the lock file. */
    readonly file: string,
    private readonly token: string,
  ) {}

  /**
   * Takes the directory, or rejects with JournalError `locked` naming the live holder. A stale lock
   * is taken over and reported through `log`.
   */
  static async acquire(directory: string, log: (message: string) => void): Promise<DirectoryLock> {
    const file = path.join(directory, LOCK_FILE_NAME);
    const token = randomBytes(12).toString('hex');
    const startTime = await startTimeOfThisProcess();
    const content = `${process.pid}\n${os.hostname()}\n${token}\n${startTime !== undefined ? `${startTime}\n` : ''}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const temporary = file + temporarySuffix();
      try {
        await fs.writeFile(temporary, content, { mode: FILE_MODE, flag: 'wx' });
        await fs.link(temporary, file);
        heldTokens.add(token);
        await removeLeftovers(directory);
        return new DirectoryLock(file, token);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        await removeIfPresent(temporary);
      }
      const seen = await readLockText(file);
      if (seen === undefined) continue; // released meanwhile: try again
      const owner = parseOwner(seen);
      if (owner === undefined) {
        const users = await processesUsing(directory);
        if (users === undefined) {
          throw new JournalError(
            'locked',
            `${file} is damaged (not a lock this program wrote) and without /proc it cannot be told whether a process uses ${directory}; remove it if none does`,
          );
        }
        if (users.length > 0) {
          throw new JournalError('locked', `${file} is damaged, and process ${users.join(', ')} has files of ${directory} open`);
        }
      } else if (await ownerIsAlive(owner)) {
        throw new JournalError(
          'locked',
          `${directory} is in use by process ${owner.pid} on ${owner.host} (${file}; remove it only if that process is gone)`,
        );
      }
      // Stale. Move it aside, then check we moved the lock we judged stale and not one a racing process
      // took over a moment ago; if we did, put it back and give up.
      const aside = `${file}.stale${temporarySuffix()}`;
      try {
        await fs.rename(file, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if ((await readLockText(aside)) !== seen) {
        await fs.rename(aside, file).catch(() => undefined);
        throw new JournalError('locked', `${directory} was taken by another process while recovering a stale lock`);
      }
      await removeIfPresent(aside);
      log(
        owner === undefined
          ? `took over the damaged lock ${file}: no process has files of ${directory} open`
          : `took over the stale lock of process ${owner.pid} on ${directory}`,
      );
    }
    throw new JournalError('locked', `could not take the lock on ${directory}: it keeps changing hands`);
  }

  /** Gives the directory up; removes the lock file only if it is still ours. Safe to call twice. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldTokens.delete(this.token);
    const text = await readLockText(this.file);
    if (text !== undefined && parseOwner(text)?.token === this.token) await removeIfPresent(this.file);
  }
}

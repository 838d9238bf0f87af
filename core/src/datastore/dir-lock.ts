/**
 * One owner per data directory. The lock is a file named LOCK holding "pid, host name, token", created
 * atomically by hard-linking a fully written temporary file (so nobody ever reads a half-written lock).
 * A lock left by a process that died (kill -9, power cut) is stale and taken over: its pid no longer
 * runs, or it is our own pid but not a lock this process holds (a previous incarnation whose pid was
 * reused, as happens in containers). A lock from another host is never presumed stale.
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
}

function parseOwner(text: string): LockOwner | undefined {
  const [pid, host, token] = text.split('\n');
  const pidNumber = Number(pid);
  if (!Number.isSafeInteger(pidNumber) || pidNumber <= 0 || !host || !token) return undefined;
  return { pid: pidNumber, host, token };
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

function ownerIsAlive(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return true; // cannot tell: presume alive
  if (owner.pid === process.pid) return heldTokens.has(owner.token);
  return processIsRunning(owner.pid);
}

async function readLockText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Temporary lock files ("LOCK.tmp-<pid>-…", "LOCK.stale.tmp-<pid>-…") of processes that died mid-way. */
const LEFTOVER_NAME = /^LOCK(?:\.stale)?\.tmp-(\d+)-[0-9a-z]+$/;

async function removeLeftovers(directory: string): Promise<void> {
  for (const name of await fs.readdir(directory)) {
    const match = LEFTOVER_NAME.exec(name);
    const pid = match ? Number(match[1]) : undefined;
    if (pid !== undefined && pid !== process.pid && !processIsRunning(pid)) {
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
    const content = `${process.pid}\n${os.hostname()}\n${token}\n`;
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
        throw new JournalError('locked', `${file} exists but is not a lock this program wrote; remove it if no process uses ${directory}`);
      }
      if (ownerIsAlive(owner)) {
        throw new JournalError('locked', `${directory} is in use by process ${owner.pid} on ${owner.host}`);
      }
      // Stale. Move it aside, then check we moved the lock we judged stale and not one a racing process
      // took over a moment ago; if we did, put it back and give up.
      const aside = file + '.stale' + temporarySuffix();
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
      log(`took over the stale lock of process ${owner.pid} on ${directory}`);
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

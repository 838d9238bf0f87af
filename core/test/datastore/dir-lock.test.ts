/**
 * The data directory lock against real processes: a holder that is a zombie (killed, not yet reaped by
 * a parent that reaps late) or whose pid now names another process is stale, and the store and the
 * service start; a holder that is exiting is waited for; a live holder, a real second service on the
 * same directory included, is refused with its pid. Linux only (/proc); zombies are made by a shell
 * that execs a program which never reaps the child the shell left behind.
 */
import test, { type ExecutionContext } from 'ava';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONFIG_DIRECTORY } from '../../src/datastore';
import { Journal } from '../../src/datastore/journal';
import { LOCK_FILE_NAME } from '../../src/datastore/dir-lock';
import { startTestService } from '../../src/service/test-service';

const BIN = path.resolve(__dirname, '../../../bin/rosetta.js');
const PYTHON = spawnSync('python3', ['-c', 'import ctypes'], { stdio: 'ignore' }).status === 0;

function temporaryDirectory(t: ExecutionContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-lock-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Fields of /proc/<pid>/stat from field 3 (the state) on; undefined once the process is gone. */
function stat(pid: number): string[] | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const startTime = (pid: number) => stat(pid)![19]!;

/** The child processes of `parent`, as /proc lists them. */
function childrenOf(parent: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => stat(pid)?.[1] === String(parent));
}

async function until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Spawns `sh -c script` (killed at the end of the test); the shell execs a program that never reaps. */
function spawnShell(t: ExecutionContext, script: string, args: readonly string[] = []): ChildProcess {
  const shell = spawn('sh', ['-c', script, 'sh', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    shell.kill('SIGKILL');
  });
  return shell;
}

/** A zombie: the background child of a shell that exec'd a sleep, which never reaps it. */
async function zombie(t: ExecutionContext): Promise<number> {
  const parent = spawnShell(t, 'sleep 0 & exec sleep 60');
  return until('a zombie', () => childrenOf(parent.pid!).find((pid) => stat(pid)?.[0] === 'Z'));
}

/** Writes the lock the way the service does: pid, host, token, then the start time when given. */
function writeLock(directory: string, pid: number, start?: string): void {
  fs.mkdirSync(directory, { recursive: true });
  fs.writeFileSync(
    path.join(directory, LOCK_FILE_NAME),
    `${pid}\n${os.hostname()}\n0123456789abcdef\n${start !== undefined ? `${start}\n` : ''}`,
    { mode: 0o600 },
  );
}

/** The pid a directory's lock names. */
const lockHolder = (directory: string) => Number(fs.readFileSync(path.join(directory, LOCK_FILE_NAME), 'utf8').split('\n')[0]);

async function openJournal(directory: string): Promise<{ logs: string[]; close: () => Promise<void> }> {
  const logs: string[] = [];
  const journal = await Journal.open(directory, { log: (line) => logs.push(line) });
  return { logs, close: () => journal.close() };
}

test('a lock whose holder is a zombie is stale: the service starts on the directory, with or without a start time in the lock', async (t) => {
  const pid = await zombie(t);
  for (const start of [startTime(pid), undefined]) {
    const dataDir = temporaryDirectory(t);
    writeLock(path.join(dataDir, CONFIG_DIRECTORY), pid, start);
    const s = await startTestService({ plugins: [], dataDir, label: 'lock' });
    t.is(lockHolder(path.join(dataDir, CONFIG_DIRECTORY)), process.pid);
    await s.stop();
  }
});

test("the lock records the holder's start time, so a pid that names another process now is stale", async (t) => {
  const directory = temporaryDirectory(t);
  const { close } = await openJournal(directory);
  const [pid, host, token, start, rest] = fs.readFileSync(path.join(directory, LOCK_FILE_NAME), 'utf8').split('\n');
  t.deepEqual([Number(pid), host, rest], [process.pid, os.hostname(), '']);
  t.regex(token!, /^[0-9a-f]{24}$/);
  t.is(start, startTime(process.pid));
  await close();

  const unrelated = spawnShell(t, 'exec sleep 60').pid!;
  await until('the sleep to run', () => (stat(unrelated)?.[0] === 'S' ? true : undefined));
  writeLock(directory, unrelated, String(Number(startTime(unrelated)) - 1));
  const reused = await openJournal(directory);
  await reused.close();
  t.true(
    reused.logs.some((line) => line.includes(`stale lock of process ${unrelated}`)),
    reused.logs.join('\n'),
  );

  for (const start of [startTime(unrelated), undefined]) {
    writeLock(directory, unrelated, start);
    const refused = await t.throwsAsync(Journal.open(directory, { log: () => undefined }));
    t.is((refused as { code?: string }).code, 'locked');
    t.regex(
      refused?.message ?? '',
      new RegExp(`in use by process ${unrelated}\\b`),
      start === undefined ? 'a lock without a start time: the live pid holds' : 'the same start time: the holder itself',
    );
  }
});

test('a real second service on the same directory is refused; once that one is killed and left unreaped, the next starts', async (t) => {
  const dataDir = temporaryDirectory(t);
  const cwd = temporaryDirectory(t);
  // The service runs as the child of a shell that execs a sleep: killed, it stays a zombie.
  const parent = spawn(
    'sh',
    ['-c', 'cd "$1" && "$2" "$3" start --port 0 --data-dir "$4" & exec sleep 120', 'sh', cwd, process.execPath, BIN, dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.teardown(() => {
    parent.kill('SIGKILL');
  });
  let output = '';
  parent.stdout!.on('data', (d) => {
    output += d;
  });
  parent.stderr!.on('data', (d) => {
    output += d;
  });
  await until(`the first service to listen (${output})`, () => (/listening on .*\/rests/.test(output) ? true : undefined), 60_000);
  const service = childrenOf(parent.pid!)[0]!;

  const refused = await t.throwsAsync(startTestService({ plugins: [], dataDir, label: 'lock' }));
  t.regex(refused?.message ?? '', new RegExp(`in use by process ${service}\\b`));

  process.kill(service, 'SIGKILL');
  await until('the killed service to be a zombie', () => (stat(service)?.[0] === 'Z' ? true : undefined));
  const next = await startTestService({ plugins: [], dataDir, label: 'lock' });
  t.is(lockHolder(path.join(dataDir, CONFIG_DIRECTORY)), process.pid);
  await next.stop();
});

/** A process whose main thread exits while another thread sleeps `seconds` more: its main thread is a zombie meanwhile. */
async function mainThreadGone(t: ExecutionContext, seconds: number): Promise<number> {
  const script = `import ctypes, threading, time\nthreading.Thread(target=time.sleep, args=(${seconds},)).start()\nctypes.CDLL(None).pthread_exit(None)\n`;
  const parent = spawnShell(t, `python3 -c "$1" & exec sleep 60`, [script]);
  return until('a zombie main thread', () => childrenOf(parent.pid!).find((pid) => stat(pid)?.[0] === 'Z'));
}

(PYTHON ? test : test.skip)(
  'a holder whose threads are still finishing is given a few seconds: taken over once it is gone, refused while it lives on',
  async (t) => {
    const directory = temporaryDirectory(t);
    const finishing = await mainThreadGone(t, 1);
    writeLock(directory, finishing, startTime(finishing));
    const began = Date.now();
    const waited = await openJournal(directory);
    await waited.close();
    t.true(Date.now() - began >= 300, 'the lock was judged only once the last thread was gone');
    t.true(
      waited.logs.some((line) => line.includes(`stale lock of process ${finishing}`)),
      waited.logs.join('\n'),
    );

    const living = await mainThreadGone(t, 60);
    writeLock(directory, living, startTime(living));
    const refused = await t.throwsAsync(Journal.open(directory, { log: () => undefined }));
    t.regex(refused?.message ?? '', new RegExp(`in use by process ${living}\\b`));
  },
);

/**
 * A real PostgreSQL for the tests and benchmarks: Debian's `postgresql` server binaries
 * (/usr/lib/postgresql/<version>/bin, or on the PATH), a fresh cluster made by initdb in a private
 * temporary folder, listening on a free loopback port only, with password (SCRAM) authentication for
 * one user, so that the tests also meet a wrong password the way a deployment would. initdb refuses to
 * run as root: as root the cluster belongs to the `postgres` user Debian's package creates. Tests that
 * need it skip loudly when {@link postgresAbsent} gives a reason.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const USER = 'rosetta';
const PASSWORD = 'rosetta-test-secret';
const DATABASE = 'rosetta';

/** Where the server binaries are: the newest of Debian's versioned folders, else the PATH. */
function binDir(): string | undefined {
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(debian, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(debian, versions[0]!, 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v postgres'], { encoding: 'utf8' });
  return which.status === 0 ? path.dirname(which.stdout.trim()) : undefined;
}

/** The unprivileged owner of the cluster when running as root (uid, gid), else undefined (ourselves). */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const entry = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (entry === undefined) return undefined;
  const [, , uid, gid] = entry.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Why a real PostgreSQL cannot be started here, or undefined when it can. */
export function postgresAbsent(): string | undefined {
  const bin = binDir();
  if (bin === undefined || !fs.existsSync(path.join(bin, 'initdb')))
    return 'PostgreSQL server binaries (initdb, postgres) not found: install the Debian package postgresql';
  if (process.getuid?.() === 0 && clusterOwner() === undefined)
    return 'running as root and there is no postgres user to own the cluster (initdb refuses root): install the Debian package postgresql';
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  /** `postgresql://rosetta:<password>@127.0.0.1:<port>/rosetta` */
  readonly url: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** Stops the server (fast shutdown), keeping its folder; `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
  /** A new, empty database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
}

/** Runs `file` as the cluster's owner, failing with its output. */
function runAsOwner(bin: string, file: string, args: string[]): void {
  const owner = clusterOwner();
  const r = spawnSync(path.join(bin, file), args, { encoding: 'utf8', ...(owner ?? {}), timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${r.stderr}${r.stdout}`);
}

/**
 * Makes a cluster in a new temporary folder and starts it on a free loopback port; resolves once it
 * accepts connections (bounded). Call `destroy` when done.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const absent = postgresAbsent();
  if (absent !== undefined) throw new Error(absent);
  const bin = binDir()!;
  const owner = clusterOwner();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-pg-'));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  fs.mkdirSync(socketDir);
  const pwFile = path.join(root, 'pw');
  fs.writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner !== undefined) for (const p of [root, socketDir, pwFile]) fs.chownSync(p, owner.uid, owner.gid);
  runAsOwner(bin, 'initdb', ['-D', dataDir, '-U', USER, '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--no-locale']);
  fs.rmSync(pwFile);
  const port = await freePort();
  let server: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    output = '';
    const proc = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-k',
        socketDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
        '-c',
        'shared_buffers=64MB',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...(owner ?? {}) },
    );
    proc.stdout!.on('data', (d) => {
      output += d;
    });
    proc.stderr!.on('data', (d) => {
      output += d;
    });
    server = proc;
    for (const deadline = Date.now() + 60_000; ; ) {
      if (/database system is ready to accept connections/.test(output)) return;
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`postgres did not start: ${output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const proc = server;
    server = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGINT'); // fast shutdown: open sessions are ended, the cluster is left consistent
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  const urlOf = (database: string) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const psql = (sql: string) => {
    const r = spawnSync(
      path.join(bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', USER, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql],
      {
        encoding: 'utf8',
        env: { ...process.env, PGPASSWORD: PASSWORD },
      },
    );
    if (r.status !== 0) throw new Error(`psql ${sql} failed: ${r.stderr}`);
  };
  psql(`CREATE DATABASE ${DATABASE}`);
  return {
    url: urlOf(DATABASE),
    port,
    user: USER,
    password: PASSWORD,
    database: DATABASE,
    stop,
    start,
    async destroy() {
      await stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      psql(`CREATE DATABASE ${name}`);
      return urlOf(name);
    },
  };
}

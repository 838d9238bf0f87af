/**
 * How the service reaches its PostgreSQL database: the configured URL checked for shape, the password
 * taken from the URL, else the configured password file, else PGPASSWORD, and the URL as it may be
 * printed (password withheld). A message from here names the field at fault and never holds the password.
 */
import * as fs from 'node:fs';

/** What node-postgres needs to connect. */
export interface DatabaseSettings {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  readonly password: string | undefined;
  /** `sslmode=require` or `verify-full` in the URL; absent or `disable`: plain TCP (loopback, a private network). */
  readonly ssl: false | { readonly rejectUnauthorized: boolean };
}

/** The `database` configuration: where and how to read the password (service/config.ts checks its shape). */
export interface DatabaseLocation {
  readonly url: string;
  readonly passwordFile: string | undefined;
  /** Entries from which a top-level list of the Config datastore is kept as rows too (datastore/list-rows.ts). */
  readonly largeListEntries?: number;
  /** Milliseconds of this instance's read lease on each journal (read-lease.ts); 0: none. */
  readonly readLeaseMs?: number;
}

const SSL_MODES = ['disable', 'require', 'verify-full'] as const;

/** Why `url` is not a usable database URL (naming the part), or undefined when it is. */
export function databaseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `is not a URL (expected postgresql://user:password@host:5432/dbname): ${printableUrl(url)}`;
  }
  if (parsed.protocol !== 'postgresql:' && parsed.protocol !== 'postgres:')
    return `must start with postgresql://, not ${parsed.protocol}//`;
  if (parsed.hostname === '') return 'names no host (postgresql://user@host:5432/dbname)';
  if (parsed.username === '') return 'names no user (postgresql://user@host:5432/dbname)';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) return 'names no database after the host (postgresql://user@host:5432/dbname)';
  for (const [key, value] of parsed.searchParams) {
    if (key !== 'sslmode') return `has the parameter ${key}, which is not supported (only sslmode)`;
    if (!(SSL_MODES as readonly string[]).includes(value)) return `sslmode must be one of ${SSL_MODES.join(', ')}, not ${value}`;
  }
  return undefined;
}

/** `url` with its password, if any, written as `***`: what a message may print. */
export function printableUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/**
 * The settings to connect with; throws an Error naming the field (`database.url`,
 * `database.passwordFile`) when they cannot be read. `env` is the process's environment (PGPASSWORD).
 */
export function databaseSettings(location: DatabaseLocation, env: NodeJS.ProcessEnv = process.env): DatabaseSettings {
  const problem = databaseUrlProblem(location.url);
  if (problem !== undefined) throw new Error(`database.url ${problem}`);
  const parsed = new URL(location.url);
  let password = parsed.password === '' ? undefined : decodeURIComponent(parsed.password);
  if (password === undefined && location.passwordFile !== undefined) {
    try {
      password = fs.readFileSync(location.passwordFile, 'utf8').split('\n')[0]!.replace(/\r$/, '');
    } catch (e) {
      throw new Error(
        `database.passwordFile: cannot read ${location.passwordFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  if (password === undefined && env['PGPASSWORD'] !== undefined && env['PGPASSWORD'] !== '') password = env['PGPASSWORD'];
  const sslmode = parsed.searchParams.get('sslmode') ?? 'disable';
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? 5432 : Number(parsed.port),
    database: decodeURIComponent(parsed.pathname.slice(1)),
    user: decodeURIComponent(parsed.username),
    password,
    ssl: sslmode === 'disable' ? false : { rejectUnauthorized: sslmode === 'verify-full' },
  };
}

/**
 * The service's connection to its PostgreSQL database: a pool of node-postgres clients, opened and
 * migrated (migrations.ts) before anything is read, and closed last. Each client names this instance
 * (`application_name`: host and pid), so that PostgreSQL's pg_stat_activity, and this service's own
 * messages about a held journal, say which instance holds what.
 */
import * as os from 'node:os';
import { Pool, type PoolClient } from 'pg';
import { databaseErrorOf } from './database-error';
import { migrate } from './migrations';
import { databaseSettings, printableUrl, type DatabaseLocation } from './settings';

export interface Database {
  readonly pool: Pool;
  /** The URL as messages print it (password withheld). */
  readonly where: string;
  /** This instance's name in the database's session list: `rosetta <host> pid <pid>`. */
  readonly instance: string;
  /** `database.largeListEntries`, if set: entries from which a list is kept as rows too (datastore/list-rows.ts). */
  readonly largeListEntries: number | undefined;
  /** Milliseconds of this instance's read lease on each journal (read-lease.ts); 0: every read asks the database. */
  readonly readLeaseMs: number;
  /** `UP` when the last probe reached the database, else why not (readiness: service/readiness.ts). */
  state(): string;
  close(): Promise<void>;
}

/** How often an idle service checks it still reaches its database, so readiness follows an outage. */
const PROBE_INTERVAL_MS = 2000;

/** Clients in the pool: a few writers' group commits and readers at once, far under max_connections. */
const POOL_SIZE = 8;
const CONNECT_TIMEOUT_MS = 5000;
/** Long enough that its renewals (a third of it) cost nothing; short, since a killed reader holds writers up to it. */
export const DEFAULT_READ_LEASE_MS = 3000;

/**
 * Connects to the database `location` names and brings its tables up to date; rejects with a
 * DatabaseError (`refused`, `unreachable`, `newer-schema`, ...) whose message names `database.url`,
 * or an Error naming the field that could not be read. `log` gets the migrations applied and errors of
 * idle connections.
 */
export async function openDatabase(location: DatabaseLocation, log: (message: string) => void): Promise<Database> {
  const settings = databaseSettings(location);
  const where = printableUrl(location.url);
  const instance = `rosetta ${os.hostname()} pid ${process.pid}`;
  const pool = new Pool({
    host: settings.host,
    port: settings.port,
    database: settings.database,
    user: settings.user,
    ...(settings.password !== undefined ? { password: settings.password } : {}),
    ssl: settings.ssl === false ? false : { rejectUnauthorized: settings.ssl.rejectUnauthorized },
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: instance,
  });
  // An idle client whose connection breaks emits here; unheard, it would end the process.
  pool.on('error', (error) => log(`database ${where}: an idle connection failed: ${error.message}`));
  try {
    const applied = await migrate(pool, where);
    if (applied.length > 0) log(`database ${where}: applied migrations ${applied.join(', ')}`);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseErrorOf(error, 'database.url', where);
  }
  let state = 'UP';
  let probing = false;
  const probe = setInterval(() => {
    if (probing) return;
    probing = true;
    pool
      .query('SELECT 1')
      .then(
        () => {
          state = 'UP';
        },
        (error: unknown) => {
          state = `unreachable: ${databaseErrorOf(error, 'probe', where).message}`;
        },
      )
      .finally(() => {
        probing = false;
      });
  }, PROBE_INTERVAL_MS);
  probe.unref();
  let closing: Promise<void> | undefined;
  return {
    pool,
    where,
    instance,
    largeListEntries: location.largeListEntries,
    readLeaseMs: location.readLeaseMs ?? DEFAULT_READ_LEASE_MS,
    state: () => state,
    close: () => {
      clearInterval(probe);
      closing ??= pool.end();
      return closing;
    },
  };
}

/** The client of a transaction: checked out of the pool, released with `done` (destroyed when `broken`). */
export interface TransactionClient extends PoolClient {
  done(broken?: boolean): void;
}

/** A client of `pool` for one transaction, whose connection failing is that transaction's error, not the process's. */
export async function checkout(pool: Pool, doing: string, where: string): Promise<TransactionClient> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw databaseErrorOf(error, doing, where);
  }
  // a checked-out client's broken connection is an 'error' event: unheard, it would end the process
  const ignore = () => undefined;
  client.on('error', ignore);
  return Object.assign(client, {
    done(broken = false) {
      client.removeListener('error', ignore);
      client.release(broken);
    },
  });
}

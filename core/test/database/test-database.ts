/**
 * The databases of the RESTCONF request suite run on PostgreSQL (core/test/on-postgres/): one private
 * cluster per test process (postgres-server.ts), started on first use, a fresh database for every data
 * folder (a service restarted on its folder gets its database back).
 */
import { type PostgresServer, startPostgres } from '../postgres-server';

let server: Promise<PostgresServer> | undefined;
let databases = 0;

/** The URL of a new empty database on this process's cluster (started on the first call). */
export async function freshTestDatabase(): Promise<string> {
  server ??= startPostgres();
  databases += 1;
  const name = `suite${process.pid}_${databases}`;
  return (await server).createDatabase(name);
}

const byFolder = new Map<string, Promise<string>>();

/** The database of data folder `dataDir`: a new one the first time. */
export function databaseForFolder(dataDir: string): Promise<string> {
  let url = byFolder.get(dataDir);
  if (url === undefined) {
    url = freshTestDatabase();
    byFolder.set(dataDir, url);
  }
  return url;
}

/** Databases made so far in this process: the suite's proof that its services ran on PostgreSQL. */
export function testDatabasesMade(): number {
  return databases;
}

/** Stops this process's cluster, if one was started, and removes its folder. */
export async function stopTestDatabase(): Promise<void> {
  const started = server;
  server = undefined;
  if (started !== undefined) await (await started).destroy();
}

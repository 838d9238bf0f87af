/**
 * Read leases (database/read-lease.ts) in a real PostgreSQL: an instance holding one reads without asking
 * the database for the journal's head, and still reads every write another instance acknowledged (the
 * writer waits for it to take the write in); an instance that stops hearing the others (its LISTEN
 * session cut, as when it is killed or cut off) holds writers up only until its lease ends, and then reads
 * by asking again. Skips loudly without PostgreSQL's server binaries.
 */
import type { ExecutionContext } from 'ava';
import { Client } from 'pg';
import { type Database, databaseSettings, openDatabase } from '../../src/database';
import { ConfigStore } from '../../src/datastore';
import { schema } from '../data/fixture';
import type { PostgresServer } from '../postgres-server';
import { postgresTests } from './postgres-tests';
import { dataDirectory, entryEdit, readEntry } from '../datastore/store-fixture';

const pgTest = postgresTests('read-lease');
const ctx = schema();
let databases = 0;

type T = ExecutionContext<{ server: PostgresServer }>;

async function freshDatabase(t: T): Promise<string> {
  databases += 1;
  return t.context.server.createDatabase(`lease${process.pid}_${databases}`);
}

/** A store on its own pool with a read lease of `readLeaseMs`, and a count of the head queries its pool sends. */
async function instance(t: T, url: string, readLeaseMs: number): Promise<{ store: ConfigStore; db: Database; heads: () => number }> {
  const db = await openDatabase({ url, passwordFile: undefined, readLeaseMs }, () => undefined);
  let heads = 0;
  const pool = db.pool as unknown as { query: (...args: unknown[]) => unknown };
  const query = pool.query.bind(pool);
  pool.query = (...args: unknown[]) => {
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : first?.text;
    if (text !== undefined && /^SELECT position, compacted FROM journal_heads/.test(text)) heads += 1;
    return query(...args);
  };
  const store = await ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined, database: db });
  t.teardown(async () => {
    await store.close();
    await db.close();
  });
  return { store, db, heads: () => heads };
}

/** Head queries one catch-up before a read sends (0: the lease answered). */
async function queriesOfARead(reader: { store: ConfigStore; heads: () => number }): Promise<number> {
  const before = reader.heads();
  await reader.store.catchUp();
  return reader.heads() - before;
}

async function until(what: string, check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`still not: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The leases but the writer's running now behind the journal's head: a writer answered while one is
 * would break read-your-writes.
 */
async function leasesBehind(client: Client, writer: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM journal_readers r JOIN journal_heads h ON h.journal = r.journal
     WHERE r.journal = 'config' AND r.instance <> $1 AND r.expires > now() AND r.position < h.position`,
    [writer],
  );
  return Number(rows[0]!.n);
}

/** The lease row of the only instance holding one on the Config journal (the writer, opened first). */
async function onlyLease(client: Client): Promise<string> {
  let rows: Array<{ instance: string }> = [];
  await until('the first instance holds its lease', async () => {
    rows = (await client.query<{ instance: string }>("SELECT instance FROM journal_readers WHERE journal = 'config'")).rows;
    return rows.length === 1;
  });
  return rows[0]!.instance;
}

async function adminClient(t: T, url: string): Promise<Client> {
  const s = databaseSettings({ url, passwordFile: undefined });
  const client = new Client({ host: s.host, port: s.port, user: s.user, password: s.password, database: s.database });
  await client.connect();
  t.teardown(() => client.end());
  return client;
}

pgTest('a reader holding a lease asks nothing before a read, and reads every write another instance acknowledged', async (t) => {
  const url = await freshDatabase(t);
  const admin = await adminClient(t, url);
  const writer = await instance(t, url, 3000);
  const writerLease = await onlyLease(admin);
  const reader = await instance(t, url, 3000);
  const asking = await instance(t, url, 0);
  await until('the reader holds its lease', async () => (await queriesOfARead(reader)) === 0);
  for (let i = 0; i < 40; i++) {
    await writer.store.apply([entryEdit(ctx, { name: `eth${i}`, description: `v${i}` })]);
    t.is(await leasesBehind(admin, writerLease), 0, `write ${i} was answered while a lease still lacked it`);
    t.is(await queriesOfARead(reader), 0, `the read after write ${i} asked the database`);
    t.is(readEntry(reader.store.current(), `eth${i}`)?.description, `v${i}`, `the reader missed write ${i}`);
    // the counter counts: an instance without a lease asks before every read
    t.is(await queriesOfARead(asking), 1);
    t.is(readEntry(asking.store.current(), `eth${i}`)?.description, `v${i}`);
  }
  // the other way round, and a write of the lease holder itself
  await reader.store.apply([entryEdit(ctx, { name: 'eth0', description: 'from the reader' })]);
  await until('the writer holds its lease', async () => (await queriesOfARead(writer)) === 0);
  t.is(readEntry(writer.store.current(), 'eth0')?.description, 'from the reader');
});

pgTest('a reader that stops hearing the others holds writes up only until its lease ends, then reads by asking', async (t) => {
  const url = await freshDatabase(t);
  const admin = await adminClient(t, url);
  const writer = await instance(t, url, 600);
  const writerLease = await onlyLease(admin);
  const listening = async () =>
    (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN rosetta_journal;%'")).rows.map(
      (r) => r.pid,
    );
  await until('the writer listens', async () => (await listening()).length === 1);
  const writers = await listening();
  const reader = await instance(t, url, 600);
  await until('the reader holds its lease', async () => (await queriesOfARead(reader)) === 0);
  const cut = (await listening()).filter((pid) => !writers.includes(pid));
  t.is(cut.length, 1, 'the reader has one LISTEN session');
  // cut off: it hears no commit and acknowledges none; its row runs on until it ends
  await admin.query('SELECT pg_terminate_backend($1)', [cut[0]]);
  await writer.store.apply([entryEdit(ctx, { name: 'eth1', description: 'while the reader is deaf' })]);
  t.is(await leasesBehind(admin, writerLease), 0, 'answered while the deaf reader’s lease still ran');
  t.true((await queriesOfARead(reader)) >= 1, 'the deaf reader still trusted its lease');
  t.is(readEntry(reader.store.current(), 'eth1')?.description, 'while the reader is deaf');
  // heard again (its session is opened anew), it takes a lease again and acknowledges writes as they come
  await until('the reader holds its lease again', async () => (await queriesOfARead(reader)) === 0, 8000);
  await writer.store.apply([entryEdit(ctx, { name: 'eth2', description: 'heard again' })]);
  t.is(await queriesOfARead(reader), 0);
  t.is(readEntry(reader.store.current(), 'eth2')?.description, 'heard again');
});

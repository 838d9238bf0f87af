/**
 * The Config datastore in a real PostgreSQL (database/): the service's migrations (applied once,
 * several instances starting at once, a newer database refused), the connection's errors (wrong
 * password, nothing listening, no such database) naming database.url and never the password, the
 * password from the URL, a file or PGPASSWORD, the journal's restart, snapshot and group commit, a
 * gap refused, and one writer at a time. Skips loudly without PostgreSQL's server binaries.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { encodeJson } from '../../src/data';
import { type Database, DatabaseError, databaseSettings, openDatabase, SCHEMA_VERSION } from '../../src/database';
import { ConfigStore } from '../../src/datastore';
import { schema } from '../data/fixture';
import type { PostgresServer } from '../postgres-server';
import { postgresTests } from './postgres-tests';
import { dataDirectory, entryEdit, readEntry } from '../datastore/store-fixture';
import { IANA_IF_TYPE, INTERFACES, modelYangDir } from '../restconf/http-fixture';
import { openStream } from '../restconf/streams-client';
import { type RosettaProcess, startRosetta } from './rosetta-process';

const pgTest = postgresTests('database');
const ctx = schema();
let databases = 0;

/** A new empty database on the server and its URL. */
async function freshDatabase(t: { context: { server: PostgresServer } }): Promise<string> {
  databases += 1;
  return t.context.server.createDatabase(`db${process.pid}_${databases}`);
}

type T = import('ava').ExecutionContext<{ server: PostgresServer }>;

async function opened(t: T, url: string, readLeaseMs?: number): Promise<Database> {
  const db = await openDatabase({ url, passwordFile: undefined, ...(readLeaseMs !== undefined ? { readLeaseMs } : {}) }, () => undefined);
  t.teardown(() => db.close());
  return db;
}

pgTest('migrations: applied once, also by instances starting together; a database from a newer build is refused', async (t) => {
  const url = await freshDatabase(t);
  const lines: string[] = [];
  const [a, b, c] = await Promise.all([0, 1, 2].map(() => openDatabase({ url, passwordFile: undefined }, (line) => lines.push(line))));
  await Promise.all([a!.close(), b!.close(), c!.close()]);
  t.is(lines.filter((l) => l.includes('applied migrations')).length, 1, lines.join('\n'));
  const client = new Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  const versions = await client.query('SELECT version FROM rosetta_schema ORDER BY version');
  t.deepEqual(
    versions.rows.map((r) => r.version),
    Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
  );
  await client.query("INSERT INTO rosetta_schema (version, name) VALUES (999, 'from the future')");
  const refused = await t.throwsAsync(
    openDatabase({ url, passwordFile: undefined }, () => undefined),
    { instanceOf: DatabaseError },
  );
  t.is((refused as DatabaseError).code, 'newer-schema');
  t.regex(refused!.message, /schema version 999, newer than the \d+ this build/);
  t.notRegex(refused!.message, new RegExp(t.context.server.password));
});

pgTest('connection errors name database.url and never print the password', async (t) => {
  const { server } = t.context;
  const wrong = server.url.replace(server.password, 'not-the-password-xyz');
  const refused = await t.throwsAsync(
    openDatabase({ url: wrong, passwordFile: undefined }, () => undefined),
    { instanceOf: DatabaseError },
  );
  t.is((refused as DatabaseError).code, 'refused');
  t.regex(
    refused!.message,
    /^database\.url: postgresql:\/\/rosetta:\*\*\*@127\.0\.0\.1:\d+\/rosetta refused: password authentication failed/,
  );
  t.notRegex(refused!.message, /not-the-password-xyz/);
  const noDb = await t.throwsAsync(
    openDatabase({ url: server.url.replace(/\/rosetta$/, '/nosuchdb'), passwordFile: undefined }, () => undefined),
  );
  t.is((noDb as DatabaseError).code, 'refused');
  t.regex(noDb!.message, /nosuchdb/);
  // a port nothing listens on: the server's own, stopped is slow; a closed loopback port answers at once
  const nowhere = await t.throwsAsync(
    openDatabase({ url: `postgresql://rosetta:${server.password}@127.0.0.1:1/rosetta`, passwordFile: undefined }, () => undefined),
  );
  t.is((nowhere as DatabaseError).code, 'unreachable');
  t.notRegex(nowhere!.message, new RegExp(server.password));
});

pgTest('the password comes from the URL, else database.passwordFile, else PGPASSWORD', async (t) => {
  const { server } = t.context;
  const bare = server.url.replace(`:${server.password}@`, '@');
  t.is(databaseSettings({ url: server.url, passwordFile: undefined }, {}).password, server.password);
  t.is(databaseSettings({ url: bare, passwordFile: undefined }, { PGPASSWORD: 'from-env' }).password, 'from-env');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-pw-')), 'pw');
  fs.writeFileSync(file, `${server.password}\nignored second line\n`, { mode: 0o600 });
  t.is(databaseSettings({ url: bare, passwordFile: file }, { PGPASSWORD: 'from-env' }).password, server.password);
  const db = await openDatabase({ url: bare, passwordFile: file }, () => undefined);
  await db.close();
  t.throws(() => databaseSettings({ url: bare, passwordFile: `${file}.missing` }, {}), {
    message: /^database\.passwordFile: cannot read .*ENOENT/,
  });
  t.throws(() => databaseSettings({ url: 'mysql://u@h/d', passwordFile: undefined }, {}), {
    message: /^database\.url must start with postgresql:\/\//,
  });
  t.throws(() => databaseSettings({ url: 'postgresql://u:secret@h', passwordFile: undefined }, {}), { message: /names no database/ });
  t.throws(() => databaseSettings({ url: 'postgresql://u:secret@h/d?pool=9', passwordFile: undefined }, {}), { message: /parameter pool/ });
});

pgTest('the Config datastore in the database: restart, snapshots, group commits, a gap refused', async (t) => {
  const db = await opened(t, await freshDatabase(t));
  const dir = dataDirectory(t);
  const open = () => ConfigStore.open(dir, ctx, { log: () => undefined, database: db, journal: { compactAfterRecords: 10 } });
  const store = await open();
  // concurrent writers share commits: 40 changes, fewer INSERTs
  await Promise.all(Array.from({ length: 40 }, (_, i) => store.apply([entryEdit(ctx, { name: `eth${i % 15}`, description: `v${i}` })])));
  t.true(store.stats.batchesWritten < 40, `${store.stats.batchesWritten} group commits for 40 concurrent changes`);
  for (let i = 40; i < 45; i++) await store.apply([entryEdit(ctx, { name: `eth${i % 15}`, description: `v${i}` })]);
  const expected = encodeJson(store.current());
  await store.close();
  const client = new Client(poolSettings(db));
  await client.connect();
  t.teardown(() => client.end());
  const snapshots = await client.query("SELECT position FROM journal_snapshots WHERE journal = 'config'");
  t.true(snapshots.rows.length <= 2, 'snapshots before the previous one are removed with the records they stand for');
  const reopened = await open();
  t.is(encodeJson(reopened.current()), expected);
  t.is(readEntry(reopened.current(), 'eth14')?.description, 'v44');
  await reopened.apply([entryEdit(ctx, { name: 'eth99', description: 'after the restart' })]);
  await reopened.apply([entryEdit(ctx, { name: 'eth98', description: 'and one more' })]);
  await reopened.close();
  // a record removed by hand leaves a gap: refused, naming the journal and the position
  const last = await client.query("SELECT max(position) AS p FROM journal_records WHERE journal = 'config'");
  await client.query("DELETE FROM journal_records WHERE journal = 'config' AND position = $1", [Number(last.rows[0].p) - 1]);
  const gap = await t.throwsAsync(open());
  t.is((gap as DatabaseError).code, 'corrupt');
  t.regex(gap!.message, /journal config: record \d+ is missing/);
});

pgTest('several stores on one database: read-your-writes, conflicting writes serialized, none lost', async (t) => {
  const url = await freshDatabase(t);
  // each store its own pool, as each instance has
  const stores = await Promise.all(
    [0, 1, 2].map(async () => ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined, database: await opened(t, url) })),
  );
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  const [a, b, c] = stores as [ConfigStore, ConfigStore, ConfigStore];
  await a.apply([entryEdit(ctx, { name: 'eth1', description: 'from a' })]);
  await b.catchUp();
  t.is(readEntry(b.current(), 'eth1')?.description, 'from a', 'a write acknowledged by one store is read by another right after');
  await b.apply([entryEdit(ctx, { name: 'eth1', description: 'from b' })]);
  await a.catchUp();
  t.is(readEntry(a.current(), 'eth1')?.description, 'from b');
  // Concurrent writes from the three: each creates its own entries and all create one shared entry
  // (create fails when it exists: only a write applied on the newest data can tell).
  const outcomes = await Promise.all(
    stores.flatMap((store, s) => [
      ...Array.from({ length: 30 }, (_, i) =>
        store.apply([entryEdit(ctx, { name: `s${s}e${i}`, description: `${s}/${i}` })]).then(() => 'ok'),
      ),
      store.apply([entryEdit(ctx, { name: 'shared', description: `created by ${s}` }, 'create')]).then(
        () => 'created',
        (error: Error) => (/exist/.test(error.message) ? 'exists' : error.message),
      ),
    ]),
  );
  t.is(outcomes.filter((o) => o === 'created').length, 1, outcomes.join(' '));
  t.is(outcomes.filter((o) => o === 'exists').length, 2, outcomes.join(' '));
  await Promise.all(stores.map((s) => s.catchUp()));
  const trees = stores.map((s) => encodeJson(s.current()));
  t.is(trees[1], trees[0]);
  t.is(trees[2], trees[0]);
  for (let s = 0; s < 3; s++) for (let i = 0; i < 30; i++) t.is(readEntry(c.current(), `s${s}e${i}`)?.description, `${s}/${i}`);
  // what a fresh instance recovers is the same tree
  const fresh = await ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined, database: await opened(t, url) });
  t.is(encodeJson(fresh.current()), trees[0]);
  await fresh.close();
});

pgTest('a store idle while others compact the journal catches up by reloading, then writes on the newest data', async (t) => {
  const url = await freshDatabase(t);
  const lines: string[] = [];
  // the idle one holds no read lease: one that does takes every commit in as it is announced
  const open = async (log: (m: string) => void, readLeaseMs?: number) =>
    ConfigStore.open(dataDirectory(t), ctx, { log, database: await opened(t, url, readLeaseMs), journal: { compactAfterRecords: 5 } });
  const busy = await open(() => undefined);
  const idle = await open((line) => lines.push(line), 0);
  t.teardown(async () => {
    await busy.close();
    await idle.close();
  });
  for (let i = 0; i < 40; i++) await busy.apply([entryEdit(ctx, { name: `eth${i}`, description: `v${i}` })]);
  // snapshots are written in the background of the writes: one more, then wait for its line
  await new Promise((r) => setTimeout(r, 300));
  await idle.apply([entryEdit(ctx, { name: 'eth0', description: 'from the idle one' })]);
  t.is(readEntry(idle.current(), 'eth39')?.description, 'v39');
  t.true(
    lines.some((l) => /compacted records/.test(l)),
    `the idle store said it reloaded: ${lines.join(' | ')}`,
  );
  await busy.catchUp();
  t.is(readEntry(busy.current(), 'eth0')?.description, 'from the idle one');
  t.is(encodeJson(busy.current()), encodeJson(idle.current()));
});

/** The connection settings of a database's pool, for a client of the test's own. */
function poolSettings(db: Database): Record<string, unknown> {
  const o = db.pool.options as unknown as Record<string, unknown>;
  return { host: o['host'], port: o['port'], user: o['user'], password: o['password'], database: o['database'] };
}

const IF = '/rests/data/ietf-interfaces:interfaces';

pgTest(
  'rosetta start --database: the Config datastore lives in the database, whatever the data folder; a wrong password stops start-up naming database.url',
  async (t) => {
    const url = await freshDatabase(t);
    const yang = modelYangDir([INTERFACES, IANA_IF_TYPE]);
    const first = await startRosetta(['--database', url, '--data-dir', dataDirectory(t), '--yang', yang]);
    t.truthy(first.url, first.output());
    t.regex(first.output(), /datastores in postgresql:\/\/rosetta:\*\*\*@/);
    const put = await fetch(`${first.url}${IF}/interface=eth7`, {
      method: 'PUT',
      headers: { 'content-type': 'application/yang-data+json' },
      body: JSON.stringify({
        'ietf-interfaces:interface': [{ name: 'eth7', type: 'iana-if-type:ethernetCsmacd', description: 'kept in PostgreSQL' }],
      }),
    });
    t.is(put.status, 201, await put.text());
    await first.stop();
    t.notRegex(first.output(), new RegExp(t.context.server.password), 'no log line holds the password');
    // another data folder: what comes back can only have come from the database
    const second = await startRosetta(['--database', url, '--data-dir', dataDirectory(t), '--yang', yang]);
    t.truthy(second.url, second.output());
    const got = await fetch(`${second.url}${IF}/interface=eth7`);
    t.is(got.status, 200);
    t.regex(await got.text(), /kept in PostgreSQL/);
    await second.stop();
    const wrong = url.replace(t.context.server.password, 'wrong-password-123');
    const refused = await startRosetta(['--database', wrong, '--data-dir', dataDirectory(t), '--yang', yang]);
    t.is(refused.code, 1);
    t.regex(refused.output(), /database\.url: postgresql:\/\/rosetta:\*\*\*@.* refused: password authentication failed/);
    t.notRegex(refused.output(), /wrong-password-123/);
  },
);

pgTest('the database stopped: a write answers 503 and changes nothing; started again, writes go on by themselves', async (t) => {
  const { server } = t.context;
  const db = await opened(t, await freshDatabase(t));
  const store = await ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined, database: db });
  t.teardown(() => store.close());
  await store.apply([entryEdit(ctx, { name: 'eth1', description: 'before' })]);
  const before = encodeJson(store.current());
  await server.stop();
  try {
    const refused = await t.throwsAsync(store.apply([entryEdit(ctx, { name: 'eth2', description: 'while down' })]));
    t.is((refused as { status?: number }).status, 503, refused?.message);
    t.regex(refused!.message, /database cannot take the change now/);
    t.is(encodeJson(store.current()), before, 'nothing of the refused write is visible');
    // a second write while it is still down: refused the same way, not hung
    const again = await t.throwsAsync(store.apply([entryEdit(ctx, { name: 'eth3', description: 'still down' })]));
    t.is((again as { status?: number }).status, 503);
  } finally {
    await server.start();
  }
  await store.apply([entryEdit(ctx, { name: 'eth4', description: 'after' })]);
  t.is(readEntry(store.current(), 'eth4')?.description, 'after');
  t.is(readEntry(store.current(), 'eth2'), undefined);
  t.is(readEntry(store.current(), 'eth1')?.description, 'before');
});

/** A PUT of interface `name` with `description` through `url`; its status. */
async function putEntry(url: string, name: string, description: string): Promise<number> {
  const reply = await fetch(`${url}${IF}/interface=${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/yang-data+json' },
    body: JSON.stringify({ 'ietf-interfaces:interface': [{ name, type: 'iana-if-type:ethernetCsmacd', description }] }),
  });
  await reply.arrayBuffer();
  return reply.status;
}

/** The description of interface `name` read through `url`, or the status when it is not 200. */
async function readDescription(url: string, name: string): Promise<string | number> {
  const reply = await fetch(`${url}${IF}/interface=${name}/description`);
  if (reply.status !== 200) return reply.status;
  return ((await reply.json()) as Record<string, string>)['ietf-interfaces:description']!;
}

/** A service on `url` (each its own data folder), and two of them running, stopped when the test ends. */
async function twoInstances(t: T): Promise<{ start: () => Promise<RosettaProcess>; a: RosettaProcess; b: RosettaProcess }> {
  const url = await freshDatabase(t);
  const yang = modelYangDir([INTERFACES, IANA_IF_TYPE]);
  const start = () => startRosetta(['--database', url, '--data-dir', dataDirectory(t), '--yang', yang]);
  const [a, b] = await Promise.all([start(), start()]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]).then(() => undefined));
  return { start, a, b };
}

pgTest(
  'two instances on one database: read-your-writes, concurrent writes to one leaf, kill -9 mid-stream loses nothing acknowledged',
  async (t) => {
    const { a, b } = await twoInstances(t);
    t.truthy(a!.url, a!.output());
    t.truthy(b!.url, b!.output());
    const one = a!.url!;
    const other = b!.url!;
    // a write acknowledged by one instance is read by the other right after, both ways
    for (let i = 0; i < 10; i++) {
      const [writer, reader] = i % 2 === 0 ? [one, other] : [other, one];
      t.true([201, 204].includes(await putEntry(writer, `eth${i}`, `written ${i}`)));
      t.is(await readDescription(reader, `eth${i}`), `written ${i}`);
    }
    // both write one leaf at once: every write is acknowledged, and both read the same last value
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => putEntry(i % 2 === 0 ? one : other, 'shared', `write ${i}`)));
    t.true(
      statuses.every((s) => s === 201 || s === 204),
      statuses.join(' '),
    );
    const seen = [await readDescription(one, 'shared'), await readDescription(other, 'shared')];
    t.is(seen[0], seen[1]);
    t.regex(String(seen[0]), /^write \d+$/);
    // a stream of writes to one instance, killed in the middle: each acknowledged write is on the other
    const acknowledged: number[] = [];
    const stream = (async () => {
      for (let i = 0; ; i++) {
        const status = await putEntry(one, `stream${i}`, `v${i}`).catch(() => 0);
        if (status !== 201 && status !== 204) return;
        acknowledged.push(i);
      }
    })();
    await new Promise((r) => setTimeout(r, 400));
    await a!.kill();
    await stream;
    t.true(acknowledged.length > 5, `${acknowledged.length} writes acknowledged before the kill`);
    for (const i of acknowledged) t.is(await readDescription(other, `stream${i}`), `v${i}`);
    // the killed instance's open transaction, if any, was rolled back: the survivor writes at once
    t.is(await putEntry(other, 'after', 'the kill'), 201);
    // the database stopped: reads and writes answer 503, readiness says why; started again, all goes on by itself
    const { server } = t.context;
    await server.stop();
    try {
      t.is(await readDescription(other, 'after'), 503);
      t.is(await putEntry(other, 'during', 'the outage'), 503);
      const ready = await until(async () => {
        const reply = await fetch(`${other}/rests/ready`);
        const body = (await reply.json()) as { checks: Record<string, string> };
        return reply.status === 503 && /unreachable/.test(body.checks['database'] ?? '') ? body : undefined;
      });
      t.truthy(ready, 'readiness names the unreachable database');
      t.notRegex(JSON.stringify(ready), new RegExp(server.password));
    } finally {
      await server.start();
    }
    t.is(await until(async () => ((await readDescription(other, 'after')) === 'the kill' ? true : undefined)), true);
    t.is(await putEntry(other, 'during', 'after the outage'), 201);
    t.is(await until(async () => ((await fetch(`${other}/rests/ready`)).status === 200 ? true : undefined)), true);
  },
);

/** Polls `probe` every 200 ms for up to 10 s; its first defined answer, or undefined. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T | undefined> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
  }
  return undefined;
}

pgTest(
  'data-change events of every instance reach every instance’s subscribers, in one order, with one id each: any instance resumes a Last-Event-ID',
  async (t) => {
    const { start, a, b } = await twoInstances(t);
    const streams = await Promise.all([a!, b!].map((i) => openStream(`${i.url}/rests/streams/json/data-change`)));
    t.teardown(() => {
      for (const s of streams) s.close();
    });
    // writes through both, one after the other: each instance's subscribers hear all of them
    for (let i = 0; i < 6; i++) t.true([201, 204].includes(await putEntry(i % 2 === 0 ? a!.url! : b!.url!, `ev${i}`, `event ${i}`)));
    const heard = await Promise.all(streams.map((s) => s.waitFor(6, 10_000)));
    const order = (messages: readonly { data: string }[]) => messages.map((m) => /event (\d)/.exec(m.data)?.[1]).join('');
    t.is(order(heard[0]!), '012345', 'a heard its own writes and b’s, in commit order');
    t.is(order(heard[1]!), '012345', 'b heard the same, in the same order');
    const ids = (messages: readonly { id?: string }[]) => messages.map((m) => m.id ?? '?');
    t.deepEqual(ids(heard[1]!), ids(heard[0]!), 'an event has the same id on every instance');
    // a subscriber of a reconnecting to b with the last id it saw gets what followed there
    const resumed = await openStream(`${b!.url}/rests/streams/json/data-change`, { 'last-event-id': heard[0]![2]!.id! });
    t.teardown(() => resumed.close());
    t.deepEqual(ids(await resumed.waitFor(3, 10_000)), ids(heard[0]!.slice(3)));
    t.is(order(resumed.messages), '345');
    // an instance started after them replays them too, under the same ids (the database is the replay log)
    const c = await start();
    t.teardown(() => c.stop());
    const late = await openStream(`${c.url}/rests/streams/json/data-change`, { 'last-event-id': heard[0]![0]!.id! });
    t.teardown(() => late.close());
    t.deepEqual(ids(await late.waitFor(5, 10_000)), ids(heard[0]!.slice(1)));
    t.is(order(late.messages), '12345');
    // and hears the next write through a with that id too
    t.true([201, 204].includes(await putEntry(a!.url!, 'ev6', 'event 6')));
    const next = await Promise.all([streams[0]!.waitFor(7, 10_000), late.waitFor(6, 10_000)]);
    t.is(next[1]!.at(-1)!.id, next[0]!.at(-1)!.id);
    t.is(order(next[1]!.slice(-1)), '6');
  },
);

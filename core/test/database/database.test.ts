/**
 * The Config datastore in a real PostgreSQL (database/): the service's migrations (applied once,
 * several instances starting at once, a newer database refused), the connection's errors (wrong
 * password, nothing listening, no such database) naming database.url and never the password, the
 * password from the URL, a file or PGPASSWORD, the journal's restart, snapshot and group commit, a
 * gap refused, and one writer at a time. Skips loudly without PostgreSQL's server binaries.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { Client } from 'pg';
import { encodeJson } from '../../src/data';
import { type Database, DatabaseError, databaseSettings, openDatabase, SCHEMA_VERSION } from '../../src/database';
import { ConfigStore } from '../../src/datastore';
import { schema } from '../data/fixture';
import { type PostgresServer, postgresAbsent, startPostgres } from '../postgres-server';
import { dataDirectory, entryEdit, readEntry } from '../datastore/store-fixture';
import { IANA_IF_TYPE, INTERFACES, modelYangDir } from '../restconf/http-fixture';

const test = anyTest as TestFn<{ server: PostgresServer }>;
const absent = postgresAbsent();
if (absent !== undefined) console.warn(`\n*** database tests: SKIPPING the PostgreSQL tests: ${absent} ***\n`);
const pgTest = absent === undefined ? test.serial : test.serial.skip;
const ctx = schema();
let databases = 0;

test.before(async (t) => {
  if (absent === undefined) t.context.server = await startPostgres();
});
test.after.always(async (t) => {
  await t.context.server?.destroy();
});

/** A new empty database on the server and its URL. */
async function freshDatabase(t: { context: { server: PostgresServer } }): Promise<string> {
  databases += 1;
  return t.context.server.createDatabase(`db${process.pid}_${databases}`);
}

async function opened(t: import('ava').ExecutionContext<{ server: PostgresServer }>, url: string): Promise<Database> {
  const db = await openDatabase({ url, passwordFile: undefined }, () => undefined);
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

pgTest('the Config datastore in the database: restart, snapshots, group commits, one writer at a time, a gap refused', async (t) => {
  const db = await opened(t, await freshDatabase(t));
  const dir = dataDirectory(t);
  const open = () => ConfigStore.open(dir, ctx, { log: () => undefined, database: db, journal: { compactAfterRecords: 10 } });
  const store = await open();
  // concurrent writers share commits: 40 changes, fewer INSERTs
  await Promise.all(Array.from({ length: 40 }, (_, i) => store.apply([entryEdit(ctx, { name: `eth${i % 15}`, description: `v${i}` })])));
  t.true(store.stats.batchesWritten < 40, `${store.stats.batchesWritten} group commits for 40 concurrent changes`);
  const second = await t.throwsAsync(ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined, database: db }));
  t.is((second as DatabaseError).code, 'held');
  t.regex(second!.message, /another instance has it open \(rosetta .* pid \d+/);
  for (let i = 40; i < 45; i++) await store.apply([entryEdit(ctx, { name: `eth${i % 15}`, description: `v${i}` })]);
  const expected = encodeJson(store.current());
  await store.close();
  const client = new Client(poolSettings(db));
  await client.connect();
  t.teardown(() => client.end());
  const snapshots = await client.query("SELECT position FROM journal_snapshots WHERE journal = 'config'");
  t.is(snapshots.rows.length, 1, 'older snapshots are removed with the records they stand for');
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

/** The connection settings of a database's pool, for a client of the test's own. */
function poolSettings(db: Database): Record<string, unknown> {
  const o = db.pool.options as unknown as Record<string, unknown>;
  return { host: o['host'], port: o['port'], user: o['user'], password: o['password'], database: o['database'] };
}

const BIN = path.resolve(__dirname, '../../../bin/rosetta.js');
const IF = '/rests/data/ietf-interfaces:interfaces';

/** `rosetta start` with `args`; resolves with its URL once it listens, or its exit code and output. */
function startRosetta(args: string[]): Promise<{ url?: string; code?: number | null; output: () => string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // 'close', not 'exit': the process may exit before its last output has been read from the pipes
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  const stop = async () => {
    if (proc.exitCode === null) proc.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve) => {
    const seen = (d: Buffer) => {
      out += d;
      const where = /listening on (\S+)\/rests/.exec(out);
      if (where && /modules loaded/.test(out)) resolve({ url: where[1]!, output: () => out, stop });
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', seen);
    void exited.then((code) => resolve({ code, output: () => out, stop }));
  });
}

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

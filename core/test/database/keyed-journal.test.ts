/**
 * The keyed journal (datastore/keyed-journal.ts) kept in a real PostgreSQL, shared by several
 * instances, as the uniconfig actual configurations are: a change made by one is taken in by the
 * others (each told of it, in order) on `catchUp` and soon after by itself (NOTIFY), a change is made
 * on the newest map, compaction keeps the map whole, and a reopened journal reads it back.
 * Skips loudly without PostgreSQL's server binaries.
 */
import { type Database, openDatabase } from '../../src/database';
import { KeyedJournal, type KeyedChange } from '../../src/datastore/keyed-journal';
import type { PostgresServer } from '../postgres-server';
import { postgresTests } from './postgres-tests';
import { dataDirectory } from '../datastore/store-fixture';

const pgTest = postgresTests('shared keyed journal');

type T = import('ava').ExecutionContext<{ server: PostgresServer }>;

async function member(t: T, url: string, heard: KeyedChange[][] = []): Promise<KeyedJournal> {
  const database: Database = await openDatabase({ url, passwordFile: undefined }, () => undefined);
  const journal = await KeyedJournal.open(dataDirectory(t), {
    database: { database, name: 'test-keyed' },
    onForeign: (changes) => heard.push([...changes]),
    compactAfterRecords: 5,
  });
  t.teardown(async () => {
    await journal.close();
    await database.close();
  });
  return journal;
}

pgTest('instances share one map: changes taken in on catchUp and by NOTIFY, in order; compaction keeps it whole', async (t) => {
  const url = await t.context.server.createDatabase(`keyed${process.pid}`);
  const heardByB: KeyedChange[][] = [];
  const a = await member(t, url);
  const b = await member(t, url, heardByB);
  await a.set([
    ['n1', { box: 1 }],
    ['n2', { box: 2 }],
  ]);
  await b.catchUp();
  t.deepEqual(b.get('n1'), { box: 1 });
  t.deepEqual(heardByB, [
    [
      ['n1', { box: 1 }],
      ['n2', { box: 2 }],
    ],
  ]);
  // b's own change is made on the newest map: a's removal of n1 comes first
  await a.set([['n1', null]]);
  await b.set([['n3', 'three']]);
  t.is(b.get('n1'), undefined);
  t.deepEqual([...b.all().keys()].sort(), ['n2', 'n3']);
  // many changes (compaction every 5 records), then a fresh member reads the same map
  for (let i = 0; i < 12; i++) await (i % 2 === 0 ? a : b).set([[`k${i}`, i]]);
  const c = await member(t, url);
  await a.catchUp();
  t.deepEqual(Object.fromEntries(c.all()), Object.fromEntries(a.all()));
  t.is(c.all().size, 14);
  // b hears a's later changes by itself, without asking (NOTIFY)
  const before = heardByB.length;
  await a.set([['late', true]]);
  for (let i = 0; i < 50 && b.get('late') === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  t.is(b.get('late'), true);
  t.true(heardByB.length > before);
});

/**
 * jsonb-filter inside PostgreSQL (datastore/list-rows.ts, large-lists.ts, restconf/query/jsonb-filter-sql.ts)
 * against a real PostgreSQL 15: the rows of large lists follow every kind of change (an entry put,
 * merged, deleted; the whole list replaced; the list growing past the threshold and shrinking under
 * it; another instance's writes); PostgreSQL's SQL/JSON path selects the same entries as the
 * instance's own evaluator for every filter of the evaluator's tests (the oracle: PostgreSQL is the
 * language's definition); and a filter the rows cannot answer exactly runs in the instance. Also: an
 * instance missing a module writes no snapshot of the shared journal (it would drop what it parks).
 * Skips loudly without PostgreSQL's server binaries.
 */
import { Client } from 'pg';
import type { Edit } from '../../src/data/edit';
import type { DataRoot, ListNode } from '../../src/data/tree';
import { type Database, openDatabase } from '../../src/database';
import { ConfigStore, entryDocument, listName } from '../../src/datastore';
import { entryKey } from '../../src/data/list';
import { filterInDatabase } from '../../src/restconf/query';
import { filterAsJsonPath } from '../../src/restconf/query/jsonb-filter-sql';
import { filterEntries } from '../../src/restconf/query/jsonb-filter';
import { parseJsonbFilter } from '../../src/restconf/query/jsonb-filter-parse';
import type { PostgresServer } from '../postgres-server';
import { postgresTests } from './postgres-tests';
import { dataDirectory, entryEdit, interfacesSchema } from '../datastore/store-fixture';
import { ietfSchema, tree } from '../restconf/fixture';
import { JSONB_INTERFACES, JSONB_PAIRS } from '../restconf/jsonb-fixture';
import { IANA_IF_TYPE, INTERFACES, modelYangDir } from '../restconf/http-fixture';
import { startTestService } from '../../src/service/test-service';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext } from '../../src/yang/schema';
import { MODEL_DIRS } from '../data/fixture';

const pgTest = postgresTests('large-list');
const ctx = ietfSchema();
let databases = 0;

type T = import('ava').ExecutionContext<{ server: PostgresServer }>;

async function freshDatabase(t: T): Promise<string> {
  databases += 1;
  return t.context.server.createDatabase(`ll${process.pid}_${databases}`);
}

async function openStore(t: T, url: string, largeListEntries: number): Promise<{ store: ConfigStore; db: Database }> {
  const db = await openDatabase({ url, passwordFile: undefined, largeListEntries }, () => undefined);
  const store = await ConfigStore.open(dataDirectory(t), ctx, { database: db, log: () => undefined });
  t.teardown(async () => {
    await store.close();
    await db.close();
  });
  return { store, db };
}

async function sql(t: T, url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  return client;
}

const replaceAll = (root: DataRoot): Edit => ({ operation: 'replace', target: [], value: root });

function listsOf(root: DataRoot): ListNode[] {
  const out: ListNode[] = [];
  for (const top of root.children) if (top.kind === 'container') for (const c of top.children) if (c.kind === 'list') out.push(c);
  return out;
}

/** Every large list's rows as the tree says they must be, against the table. */
async function assertRowsMatch(t: T, client: Client, root: DataRoot, threshold: number): Promise<void> {
  const expected = new Map<string, unknown>();
  for (const list of listsOf(root))
    if (list.entries.length >= threshold)
      for (const e of list.entries) expected.set(`${listName(list.schema)} ${entryKey(e)}`, JSON.parse(entryDocument(e)));
  const { rows } = await client.query<{ list: string; entry: string; doc: unknown }>(
    "SELECT list, entry, doc FROM list_entries WHERE journal = 'config'",
  );
  const actual = new Map(rows.map((r) => [`${r.list} ${r.entry}`, r.doc]));
  t.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
  for (const [key, doc] of expected) t.deepEqual(actual.get(key), doc, key);
}

const ROOT = tree(ctx, {
  'ietf-interfaces:interfaces': { interface: JSONB_INTERFACES },
  'rc-extra:box': { pair: [...JSONB_PAIRS, { a: 'w', b: 300, v: 'Ünïcode ☃ \u{1F600}' }] },
});

/** The filters of the evaluator's own tests (query-jsonb.test.ts) that name the entry only, and more. */
const INTERFACE_FILTERS = [
  '{@/enabled} == true',
  '{@/enabled} != true',
  '{@/ietf-ip:ipv4/mtu} > 1500',
  '{@/ipv4/mtu} >= 1500',
  '{@/ipv4/mtu} < 1500.5',
  '{@/ipv4/mtu} <> 1500',
  '{@/ipv4/mtu} <= 1.5e3',
  "{@/name} == 'lo0'",
  '{@/name} > "eth1"',
  '{@/type} == "iana-if-type:softwareLoopback"',
  '{@/name} == 1',
  '({@/name} == 1) is unknown',
  '{@/ipv4/address/prefix-length} == 16',
  '{@/ipv4/address/ip} == "10.0.0.1"',
  '{@/enabled} == true || {@/ipv4/mtu} == 9000',
  '{@/type} == "iana-if-type:ethernetCsmacd" && !({@/enabled} == false)',
  '!({@/name} == 1)',
  '{@/name} == 1 || {@/name} == "lo0"',
  '({@/name} == 1 && {@/name} == "nope") is unknown',
  '({@/name} == 1 || {@/name} == "nope") is unknown',
  '{@/name} like_regex "^eth[0-1]$"',
  '{@/description} like_regex "core"',
  '{@/description} like_regex "CORE"',
  '{@/description} like_regex "UPLINK" flag "i"',
  '{@/description} like_regex "\\\\d"',
  '{@/description} like_regex "a.b" flag "q"',
  '{@/description} like_regex "^(a+)+$"',
  '{@/name} starts with "eth"',
  'exists({@/description})',
  '!exists({@/ipv4})',
  'exists({@/ipv4/address})',
  '{@/ipv4/address} == 1',
  '{@/ipv4} == {@/ipv4}',
  '{@/enabled} == null',
  '{@/enabled} != null',
  '{@/enabled} < true',
  '{@/ipv4/mtu} == {@/ipv4/address/prefix-length}',
];
const PAIR_FILTERS = [
  '{@/u} == null',
  '{@/u} != null',
  '{@/u} < 1',
  '{@/u} <= null',
  '{@/u} < null',
  '{@/u} >= null',
  '({@/u} > null) is unknown',
  '{@/u} == {@/u}',
  '{@/u} > false',
  '{@/u} == true',
  '{@/u} starts with "te"',
  '{@/b} < 0',
  '{@/b} == -2.0',
  '{@/b} >= 300',
  '{@/v} like_regex "☃"',
  '{@/v} > "Ü"',
  'exists({@}) && {@/a} != "x"',
];

pgTest('the rows of large lists follow every kind of change, and a list under the threshold has none', async (t) => {
  const url = await freshDatabase(t);
  const { store } = await openStore(t, url, 4);
  const client = await sql(t, url);
  await store.apply([replaceAll(ROOT)]);
  await assertRowsMatch(t, client, store.current(), 4);
  t.is((await client.query('SELECT count(*)::int AS n FROM list_entries')).rows[0].n, 8);

  await store.apply([entryEdit(ctx, { name: 'eth1', description: 'now described' })]);
  await store.apply([entryEdit(ctx, { name: 'eth9', enabled: true }, 'create')]);
  await store.apply([{ operation: 'delete', target: [...entryEditTarget('lo0')] }]);
  await assertRowsMatch(t, client, store.current(), 4);
  // merging the whole list, then replacing the container: rows of changed entries only, and the gone ones removed
  const s = interfacesSchema(ctx);
  const merged = tree(ctx, { 'ietf-interfaces:interfaces': { interface: [{ name: 'eth2', enabled: false }, { name: 'eth7' }] } });
  await store.apply([{ operation: 'merge', target: [{ schema: s.interfaces }], value: merged.children[0]! }]);
  await assertRowsMatch(t, client, store.current(), 4);
  // shrinking under the threshold drops the list's rows; growing past it brings them all back
  const small = tree(ctx, { 'ietf-interfaces:interfaces': { interface: [{ name: 'a' }, { name: 'b' }] } });
  await store.apply([{ operation: 'replace', target: [{ schema: s.interfaces }], value: small.children[0]! }]);
  await assertRowsMatch(t, client, store.current(), 4);
  t.is((await client.query("SELECT count(*)::int AS n FROM list_entries WHERE list LIKE '/ietf-interfaces%'")).rows[0].n, 0);
  await store.apply([entryEdit(ctx, { name: 'c' }), entryEdit(ctx, { name: 'd' })]);
  await assertRowsMatch(t, client, store.current(), 4);
  t.is((await client.query("SELECT count(*)::int AS n FROM list_entries WHERE list LIKE '/ietf-interfaces%'")).rows[0].n, 4);
  // the whole datastore deleted
  await store.apply([{ operation: 'delete', target: [{ schema: s.interfaces }] }]);
  await assertRowsMatch(t, client, store.current(), 4);
});

function entryEditTarget(name: string): Edit['target'] {
  return entryEdit(ctx, { name }).target;
}

pgTest('another instance writing keeps the rows one set; a store opened on a database without rows builds them', async (t) => {
  const url = await freshDatabase(t);
  const client = await sql(t, url);
  const { store: a } = await openStore(t, url, 3);
  const { store: b } = await openStore(t, url, 3);
  await a.apply([replaceAll(ROOT)]);
  await b.catchUp();
  await b.apply([entryEdit(ctx, { name: 'eth0', description: 'from b' })]);
  await a.apply([entryEdit(ctx, { name: 'eth5' }, 'create')]);
  await b.catchUp();
  await assertRowsMatch(t, client, b.current(), 3);
  // rows lost (a database from before the rows, or built for another threshold): the next start rebuilds them
  await client.query('DELETE FROM list_entries; UPDATE journal_heads SET large_lists = NULL');
  const { store: c } = await openStore(t, url, 2);
  await assertRowsMatch(t, client, c.current(), 2);
  t.is((await client.query("SELECT large_lists FROM journal_heads WHERE journal = 'config'")).rows[0].large_lists, 2);
  // a later instance configured otherwise follows the database's threshold
  const lines: string[] = [];
  const db = await openDatabase({ url, passwordFile: undefined, largeListEntries: 50 }, () => undefined);
  const d = await ConfigStore.open(dataDirectory(t), ctx, { database: db, log: (l) => lines.push(l) });
  t.teardown(async () => {
    await d.close();
    await db.close();
  });
  t.true(
    lines.some((l) => /largeListEntries is 50, but .* from 2 entries: using 2/.test(l)),
    lines.join('\n'),
  );
  await d.apply([entryEdit(ctx, { name: 'eth6' }, 'create')]);
  await assertRowsMatch(t, client, d.current(), 2);
});

pgTest('PostgreSQL selects the same entries as the instance for every filter (the oracle), from the rows', async (t) => {
  const url = await freshDatabase(t);
  const { store } = await openStore(t, url, 1);
  await store.apply([replaceAll(ROOT)]);
  const [interfaces, pairs] = listsOf(store.current());
  const key = (l: ListNode) => l.entries.map(entryKey);
  for (const [list, filters] of [
    [interfaces!, INTERFACE_FILTERS],
    [pairs!, PAIR_FILTERS],
  ] as const) {
    for (const text of filters) {
      const filter = parseJsonbFilter(text);
      t.not(filterAsJsonPath(filter, list.schema), undefined, `${text} has a SQL/JSON path form`);
      const inDatabase = await filterInDatabase(store, list, filter, true);
      t.not(inDatabase, undefined, `${text} ran in the database`);
      const inInstance = await filterEntries(list, filter, store.current());
      t.deepEqual(key(inDatabase!), key(inInstance), `${text} -> ${filterAsJsonPath(filter, list.schema)}`);
    }
  }
});

pgTest('the database answers from its rows; what they cannot answer exactly runs in the instance', async (t) => {
  const url = await freshDatabase(t);
  const { store } = await openStore(t, url, 2);
  const client = await sql(t, url);
  await store.apply([replaceAll(ROOT)]);
  const [interfaces] = listsOf(store.current());
  // a row changed by hand shows the filter ran in PostgreSQL
  await client.query(`UPDATE list_entries SET doc = jsonb_set(doc, '{description}', '"planted"') WHERE entry = 'eth1'`);
  const planted = await filterInDatabase(store, interfaces!, parseJsonbFilter('{@/description} == "planted"'));
  t.is(
    await filterInDatabase(store, interfaces!, parseJsonbFilter('{@/description} like_regex "planted"')),
    undefined,
    'a scan stays in the instance',
  );
  t.deepEqual(
    (await filterInDatabase(store, interfaces!, parseJsonbFilter('{@/description} like_regex "planted"'), true))?.entries.map(entryKey),
    ['eth1'],
  );
  t.deepEqual(planted?.entries.map(entryKey), ['eth1']);
  // absolute paths, and a prefix that is not a string, have no exact form: undefined, and the instance filters
  for (const text of ['{$/example-jukebox:jukebox/player/gap} > 1', '{@/name} starts with {@/description}', '{@/nothing} == 1']) {
    t.is(filterAsJsonPath(parseJsonbFilter(text), interfaces!.schema), undefined, text);
    t.is(await filterInDatabase(store, interfaces!, parseJsonbFilter(text), true), undefined, text);
  }
  // a list under the threshold, and a list node that is not the store's, are filtered in the instance
  const small = tree(ctx, { 'ietf-interfaces:interfaces': { interface: [{ name: 'only' }] } });
  t.is(await filterInDatabase(store, listsOf(small)[0]!, parseJsonbFilter('{@/name} == "only"'), true), undefined);
});

pgTest(
  'over HTTP: a GET with jsonb-filter on a large list is answered from the database, with sortby, paging and fetch=count',
  async (t) => {
    const url = await freshDatabase(t);
    const yang = modelYangDir([INTERFACES, IANA_IF_TYPE]);
    const svc = await startTestService({
      plugins: [],
      yangDirs: [yang],
      config: { database: { url, largeListEntries: 3 } },
      label: 'large-lists',
    });
    t.teardown(() => svc.stop());
    const client = await sql(t, url);
    const entries = Array.from({ length: 6 }, (_, i) => ({
      name: `eth${i}`,
      type: 'iana-if-type:ethernetCsmacd',
      description: `port ${i}`,
    }));
    const put = await svc.request('PUT', '/rests/data/ietf-interfaces:interfaces', {
      'ietf-interfaces:interfaces': { interface: entries },
    });
    t.is(put.status, 201, put.text);
    // planted in the rows only: an answer holding eth4 came from PostgreSQL
    await client.query(`UPDATE list_entries SET doc = jsonb_set(doc, '{description}', '"planted"') WHERE entry IN ('eth4', 'eth1')`);
    const filter = encodeURIComponent('{@/description} == "planted"');
    const base = `/rests/data/ietf-interfaces:interfaces/interface?jsonb-filter=${filter}`;
    const names = (reply: { json: { 'ietf-interfaces:interface'?: { name: string }[] } }) =>
      (reply.json['ietf-interfaces:interface'] ?? []).map((e) => e.name);
    for (const content of ['', '&content=config']) {
      const got = await svc.request('GET', `${base}${content}`);
      t.is(got.status, 200, got.text);
      t.deepEqual(names(got), ['eth1', 'eth4'], content);
    }
    t.deepEqual(names(await svc.request('GET', `${base}&sortby=name(desc)&limit=1`)), ['eth4']);
    t.is((await svc.request('GET', `${base}&fetch=count`)).text.trim(), '2');
    // the entries answered are the instance's (the rows only chose them)
    t.regex((await svc.request('GET', base)).text, /port 4/);
  },
);

pgTest('an instance missing a module writes no snapshot: the data it parks stays in the database for the others', async (t) => {
  const url = await freshDatabase(t);
  const { store: full } = await openStore(t, url, 1000);
  await full.apply([replaceAll(ROOT)]);
  // an instance whose schema lacks rc-extra: it parks the box, then writes enough to ask for compaction
  const repo = new ModuleRepository([...MODEL_DIRS]);
  const lacking = compileSchema(repo, { modules: ['ietf-interfaces', 'ietf-ip', 'iana-if-type'] });
  const db = await openDatabase({ url, passwordFile: undefined }, () => undefined);
  const lines: string[] = [];
  const partial = await ConfigStore.open(dataDirectory(t), lacking, {
    database: db,
    log: (l) => lines.push(l),
    journal: { compactAfterRecords: 5 },
  });
  t.teardown(async () => {
    await partial.close();
    await db.close();
  });
  for (let i = 0; i < 8; i++) await partial.apply([entryEditIn(lacking, `p${i}`)]);
  await new Promise((r) => setTimeout(r, 200));
  t.true(
    lines.some((l) => /no snapshot from this instance: it parks data of rc-extra/.test(l)),
    lines.join('\n'),
  );
  // a new instance with every module reads the box back
  const { store: later } = await openStore(t, url, 1000);
  t.is(listsOf(later.current()).find((l) => l.schema.name === 'pair')?.entries.length, 4);
  t.is(listsOf(later.current()).find((l) => l.schema.name === 'interface')?.entries.length, 12);
});

function entryEditIn(context: SchemaContext, name: string): Edit {
  const s = interfacesSchema(context);
  const value = tree(context, { 'ietf-interfaces:interfaces': { interface: [{ name }] } }).children[0]!;
  return { operation: 'merge', target: [{ schema: s.interfaces }], value };
}

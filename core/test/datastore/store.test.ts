// The Config and Operational datastores (datastore/config-store.ts, operational-store.ts, index.ts) on
// the real ietf-interfaces model: restart, snapshots and replay, all-or-nothing applies, serialized
// writers, readers on old versions, acknowledgement only after fsync, I/O failure and reload, and a
// schema that lost nodes between runs.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataError, decodeJson, encodeJson, type Edit } from '../../src/data';
import { openDatastores, ConfigStore, type ConfigStoreOptions } from '../../src/datastore';
import type { DataRoot } from '../../src/data/tree';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext } from '../../src/yang/schema';
import { MODEL_DIRS, schema } from '../data/fixture';
import { bulkEdit, dataDirectory, entryEdit, entryTarget, interfaceList, readEntry } from './store-fixture';

const ctx = schema();

async function open(
  t: import('ava').ExecutionContext,
  directory: string,
  options: ConfigStoreOptions = {},
  context = ctx,
): Promise<ConfigStore> {
  const store = await ConfigStore.open(directory, context, { log: () => undefined, ...options });
  t.teardown(() => store.close());
  return store;
}

test('restart keeps every change: merge, create, replace, delete, remove and insert order', async (t) => {
  const dir = dataDirectory(t);
  const store = await open(t, dir);
  await store.apply([entryEdit(ctx, { name: 'eth0', description: 'uplink', enabled: true })]);
  await store.apply([entryEdit(ctx, { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' }, 'create')]);
  await store.apply([entryEdit(ctx, { name: 'eth2', description: 'gone soon' })]);
  await store.apply([entryEdit(ctx, { name: 'eth0', description: 'replaced' }, 'replace')]);
  await store.apply([{ operation: 'delete', target: entryTarget(ctx, 'eth2') }]);
  await store.apply([{ operation: 'remove', target: entryTarget(ctx, 'absent') }]);
  // An ordered-by user list with insert before a point, from the data-kinds test module.
  const rules = decodeJson({ 'data-kinds:kinds': { rule: [{ name: 'a' }, { name: 'c' }] } }, ctx).node!;
  await store.apply([{ operation: 'merge', target: [], value: { kind: 'root', children: [rules] } }]);
  const kinds = rules.schema;
  const rule = (kinds as { children: readonly { name: string }[] }).children.find(
    (c) => c.name === 'rule',
  ) as unknown as import('../../src/yang/schema').ListSchema;
  const b = decodeJson({ 'data-kinds:rule': [{ name: 'b' }] }, ctx, { parent: kinds }).node!;
  await store.apply([
    {
      operation: 'create',
      target: [{ schema: kinds }, { schema: rule, keys: ['b'] }],
      value: b,
      insert: { where: 'before', point: ['c'] },
    },
  ]);
  const before = encodeJson(store.current());
  await store.close();

  const reopened = await open(t, dir);
  t.is(encodeJson(reopened.current()), before);
  t.deepEqual(readEntry(reopened.current(), 'eth0'), { name: 'eth0', description: 'replaced' });
  t.is(readEntry(reopened.current(), 'eth2'), undefined);
  t.true(before.includes('"rule":[{"name":"a"},{"name":"b"},{"name":"c"}]'));
});

test('snapshots on compaction: the tree survives through snapshot + replay, and old files go', async (t) => {
  const dir = dataDirectory(t);
  const store = await open(t, dir, { journal: { compactAfterRecords: 10 } });
  for (let i = 0; i < 45; i++) await store.apply([entryEdit(ctx, { name: `eth${i % 20}`, description: `v${i}` })]);
  const expected = encodeJson(store.current());
  await store.close();
  const files = fs.readdirSync(dir);
  t.true(
    files.some((f) => f.includes('snapshot')),
    files.join(' '),
  );
  const reopened = await open(t, dir);
  t.is(encodeJson(reopened.current()), expected);
  t.is(readEntry(reopened.current(), 'eth4')?.description, 'v44');
});

test('a failing edit or check changes nothing, in memory or on disk; a multi-edit apply is all or nothing', async (t) => {
  const dir = dataDirectory(t);
  const store = await open(t, dir);
  await store.apply([entryEdit(ctx, { name: 'eth0', description: 'kept' })]);
  const version = store.current();
  const records = store.stats.segmentRecords;

  const exists = await t.throwsAsync(store.apply([entryEdit(ctx, { name: 'eth9' }), entryEdit(ctx, { name: 'eth0' }, 'create')]), {
    instanceOf: DataError,
  });
  t.is(exists!.first.tag, 'data-exists');
  await t.throwsAsync(
    store.apply([entryEdit(ctx, { name: 'eth9' })], () => {
      throw new DataError({ tag: 'invalid-value', path: '/ietf-interfaces:interfaces', message: 'rejected by validation' });
    }),
    { message: /rejected by validation/ },
  );
  await t.throwsAsync(store.apply([{ operation: 'delete', target: entryTarget(ctx, 'nope') }]), { instanceOf: DataError });

  t.is(store.current(), version);
  t.is(store.stats.segmentRecords, records);
  t.is(readEntry(store.current(), 'eth9'), undefined);
  await store.close();
  const reopened = await open(t, dir);
  t.is(readEntry(reopened.current(), 'eth9'), undefined);
  t.deepEqual(readEntry(reopened.current(), 'eth0'), { name: 'eth0', description: 'kept' });
});

test('concurrent writers are serialized in call order and share fsyncs (group commit)', async (t) => {
  const store = await open(t, dataDirectory(t));
  const seen: Array<{ previous: DataRoot; next: DataRoot }> = [];
  const writes = Array.from({ length: 200 }, (_, i) =>
    store.apply([entryEdit(ctx, { name: `eth${i % 10}`, description: `write ${i}` })], (next, previous) => {
      seen.push({ previous, next });
    }),
  );
  const results = await Promise.all(writes);
  t.is(seen.length, 200);
  for (let i = 1; i < seen.length; i++) t.is(seen[i]!.previous, seen[i - 1]!.next, `write ${i} built on write ${i - 1}`);
  for (const [i, root] of results.entries()) t.is(root, seen[i]!.next);
  t.is(store.current(), results[199]);
  for (let k = 0; k < 10; k++) t.is(readEntry(store.current(), `eth${k}`)?.description, `write ${190 + k}`);
  t.true(store.stats.batchesWritten < 200, `${store.stats.batchesWritten} fsyncs for 200 writes`);
  t.log(`200 concurrent writes: ${store.stats.batchesWritten} group commits`);
});

test('readers keep an old version unchanged while a large apply runs, and see a change only once it is durable', async (t) => {
  let release!: () => void;
  let gate = Promise.resolve();
  const store = await open(t, dataDirectory(t), {
    journal: {
      io: {
        sync: async (file) => {
          await gate;
          await file.datasync();
        },
      },
    },
  });
  await store.apply([bulkEdit(ctx, 1000)]);
  const old = store.current();
  const oldText = encodeJson(old);

  gate = new Promise((resolve) => {
    release = resolve;
  });
  let done = false;
  const large = store.apply([bulkEdit(ctx, 50_000, 'ge')]).then((root) => {
    done = true;
    return root;
  });
  await new Promise((resolve) => setTimeout(resolve, 200)); // applied and appended, not yet fsync'ed
  t.false(done);
  t.is(store.current(), old, 'an unacknowledged change is not visible');
  t.is(interfaceList(store.current())?.entries.length, 1000);
  release();
  const next = await large;
  t.is(store.current(), next);
  t.is(interfaceList(next)?.entries.length, 50_000);
  t.is(encodeJson(old), oldText, 'the old version is unchanged');
  // A single-entry edit of the big list leaves the version before it intact too.
  const before = store.current();
  await store.apply([entryEdit(ctx, { name: 'ge100', description: 'edited' })]);
  t.is(readEntry(before, 'ge100')?.description, 'port 100');
  t.is(readEntry(store.current(), 'ge100')?.description, 'edited');
});

test('a failed fsync rejects with operation-failed, changes nothing visible, and the next write reloads from disk', async (t) => {
  let failNext = false;
  const dir = dataDirectory(t);
  const store = await open(t, dir, {
    journal: {
      io: {
        sync: async (file) => {
          if (failNext) {
            failNext = false;
            throw new Error('EIO: injected');
          }
          await file.datasync();
        },
      },
    },
  });
  await store.apply([entryEdit(ctx, { name: 'eth0', description: 'durable' })]);
  const version = store.current();
  failNext = true;
  const failed = await t.throwsAsync(store.apply([entryEdit(ctx, { name: 'eth1', description: 'lost?' })]), { instanceOf: DataError });
  t.is(failed!.first.tag, 'operation-failed');
  t.is(store.current(), version);
  // The journal stopped; the next writer reopens it and continues from what is on disk.
  await store.apply([entryEdit(ctx, { name: 'eth2', description: 'after' })]);
  t.is(readEntry(store.current(), 'eth0')?.description, 'durable');
  t.is(readEntry(store.current(), 'eth2')?.description, 'after');
  const seen = encodeJson(store.current());
  await store.close();
  t.is(encodeJson((await open(t, dir)).current()), seen);
});

test('a journal record holds only the edited subtree', async (t) => {
  const store = await open(t, dataDirectory(t));
  await store.apply([bulkEdit(ctx, 10_000)]);
  const before = store.stats.segmentBytes;
  await store.apply([entryEdit(ctx, { name: 'eth77', description: 'one entry' })]);
  const bytes = store.stats.segmentBytes - before;
  t.true(bytes < 300, `${bytes} bytes`);
  t.log(`record of a one-entry merge with 10,000 entries stored: ${bytes} bytes`);
});

const SCHEMA_V1 = `module store-test {
  yang-version 1.1; namespace "urn:rosetta:test:store"; prefix st;
  container box {
    leaf keep { type string; }
    leaf old { type string; }
    leaf narrowed { type string; }
    list item { key id; leaf id { type string; } leaf size { type uint32; } leaf legacy { type string; } }
  }
  container retired { leaf x { type string; } }
}`;
const SCHEMA_V2 = `module store-test {
  yang-version 1.1; namespace "urn:rosetta:test:store"; prefix st;
  container box {
    leaf keep { type string; }
    leaf narrowed { type uint8; }
    list item { key id; leaf id { type string; } leaf size { type uint32; } }
  }
}`;

function compileText(text: string): SchemaContext {
  const repo = new ModuleRepository([...MODEL_DIRS]);
  repo.addText('store-test.yang', text);
  return compileSchema(repo, { modules: ['store-test'] });
}

test('a node the schema lost between runs is dropped with a log line naming it; the rest stays', async (t) => {
  const v1 = compileText(SCHEMA_V1);
  const v2 = compileText(SCHEMA_V2);
  const dir = dataDirectory(t);
  const doc = (json: unknown): Edit => ({ operation: 'merge', target: [], value: decodeJson(json, v1).root });
  const first = await open(t, dir, { journal: { compactAfterRecords: 2 } }, v1);
  await first.apply([
    doc({
      'store-test:box': {
        keep: 'k',
        old: 'o',
        narrowed: 'wide',
        item: [
          { id: 'a', size: 1, legacy: 'l' },
          { id: 'b', size: 2, legacy: 'l' },
        ],
      },
    }),
  ]);
  await first.apply([doc({ 'store-test:retired': { x: '1' } })]); // compaction: these two are in a snapshot
  await first.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const again = await open(t, dir, {}, v1);
  await again.apply([doc({ 'store-test:box': { item: [{ id: 'c', size: 3, legacy: 'l' }] } })]); // a record after it
  const retired = v1.data.find((n) => n.name === 'retired')!;
  await again.apply([
    { operation: 'merge', target: [{ schema: retired }], value: decodeJson({ 'store-test:retired': { x: '2' } }, v1).node! },
  ]);
  await again.close();

  const logs: string[] = [];
  const upgraded = await open(t, dir, { log: (m) => logs.push(m) }, v2);
  const text = encodeJson(upgraded.current());
  t.is(text, '{"store-test:box":{"keep":"k","item":[{"id":"a","size":1},{"id":"b","size":2},{"id":"c","size":3}]}}');
  const all = logs.join('\n');
  t.regex(all, /dropping \/store-test:box\/old/);
  t.regex(all, /dropping \/store-test:box\/item\/legacy \(2 instances\)/);
  t.regex(all, /narrowed/);
  t.regex(all, /store-test:retired/);
  t.log(all);
  // Writes continue on the new schema.
  await upgraded.apply([{ operation: 'merge', target: [], value: decodeJson({ 'store-test:box': { narrowed: 7 } }, v2).root }]);
  t.regex(encodeJson(upgraded.current()), /"narrowed":7/);
});

test('openDatastores: config persists under dataDir, operational is in memory and immediate', async (t) => {
  const dir = dataDirectory(t);
  const stores = await openDatastores(dir, ctx, { log: () => undefined });
  await stores.config.apply([entryEdit(ctx, { name: 'eth0', description: 'config' })]);
  const op = stores.operational.apply([entryEdit(ctx, { name: 'eth0', description: 'state' })]);
  await op;
  t.is(readEntry(stores.operational.current(), 'eth0')?.description, 'state');
  await t.throwsAsync(stores.operational.apply([{ operation: 'delete', target: entryTarget(ctx, 'x') }]), { instanceOf: DataError });
  t.is(readEntry(stores.operational.current(), 'eth0')?.description, 'state');
  await stores.close();
  await t.throwsAsync(stores.config.apply([entryEdit(ctx, { name: 'eth1' })]), { instanceOf: DataError });
  t.true(fs.existsSync(path.join(dir, 'config')));
  const again = await openDatastores(dir, ctx, { log: () => undefined });
  t.teardown(() => again.close());
  t.is(readEntry(again.config.current(), 'eth0')?.description, 'config');
  t.is(readEntry(again.operational.current(), 'eth0'), undefined);
});

// A write prepared by the caller (PreparedWrite: the RESTCONF commit applies the edits once for the
// data.beforeWrite taps): the datastores use the caller's tree when it was built on the version the
// write builds on, and apply the edits again when another write landed in between. `newest()` is that
// version: acknowledged writes plus those still being made durable.
import test from 'ava';
import { applyEdits, encodeJson } from '../../src/data';
import { ConfigStore, OperationalStore } from '../../src/datastore';
import { schema } from '../data/fixture';
import { dataDirectory, entryEdit, readEntry } from './store-fixture';

const ctx = schema();

test('Config: a prepared tree on the newest version is used as is; a stale one is not', async (t) => {
  const store = await ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined });
  t.teardown(() => store.close());
  await store.apply([entryEdit(ctx, { name: 'eth0', description: 'first' })]);

  const edits = [entryEdit(ctx, { name: 'eth1', description: 'prepared' })];
  const base = store.newest();
  const next = applyEdits(base, edits, ctx);
  const stored = await store.apply(edits, undefined, { tree: { base, next } });
  t.is(stored, next, "the caller's tree became the stored version, not a second copy");
  t.is(store.current(), next);

  // Prepared on a version another write has since replaced: the edits are applied again on the real base.
  const staleBase = store.newest();
  const late = [entryEdit(ctx, { name: 'eth2', description: 'late' })];
  const staleNext = applyEdits(staleBase, late, ctx);
  await store.apply([entryEdit(ctx, { name: 'eth3', description: 'in between' })]);
  const result = await store.apply(late, undefined, { tree: { base: staleBase, next: staleNext } });
  t.not(result, staleNext);
  t.deepEqual(readEntry(result, 'eth3'), { name: 'eth3', description: 'in between' }, 'the write in between is kept');
  t.deepEqual(readEntry(result, 'eth2'), { name: 'eth2', description: 'late' });
});

test('Config: newest() includes a write that is applied but not yet durable; current() does not', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const store = await ConfigStore.open(dataDirectory(t), ctx, {
    log: () => undefined,
    journal: {
      io: {
        sync: async (file) => {
          if (held) await gate;
          await file.datasync();
        },
      },
    },
  });
  t.teardown(() => store.close());
  await store.apply([entryEdit(ctx, { name: 'eth0', description: 'durable' })]);
  held = true;
  const pending = store.apply([entryEdit(ctx, { name: 'eth1', description: 'in flight' })]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(readEntry(store.current(), 'eth1'), undefined);
  t.deepEqual(readEntry(store.newest(), 'eth1'), { name: 'eth1', description: 'in flight' });
  release();
  await pending;
  t.is(store.current(), store.newest());
});

test('Operational: the same rule (prepared tree used only on its own base)', async (t) => {
  const store = new OperationalStore(ctx);
  const edits = [entryEdit(ctx, { name: 'eth0', description: 'state' })];
  const base = store.current();
  const next = applyEdits(base, edits, ctx);
  t.is(await store.apply(edits, undefined, { tree: { base, next } }), next);
  const other = applyEdits(base, [entryEdit(ctx, { name: 'eth9' })], ctx);
  const result = await store.apply([entryEdit(ctx, { name: 'eth9' })], undefined, { tree: { base, next: other } });
  t.not(result, other);
  t.true(encodeJson(result).includes('"eth0"') && encodeJson(result).includes('"eth9"'));
});

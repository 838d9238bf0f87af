// The keyed journal (a durable map): changes made at once share fsyncs, every acknowledged change is read
// back after a reopen (removals too), and a compaction's snapshot gives the same map.
import test from 'ava';
import type { FileHandle } from 'node:fs/promises';
import { KeyedJournal } from '../../src/datastore/keyed-journal';
import { temporaryDirectory } from './journal-fixture';

/** I/O that counts the group commits (one fsync each). */
function countingSyncs() {
  const counted = { syncs: 0 };
  const io = {
    sync: async (file: FileHandle) => {
      counted.syncs++;
      await file.datasync();
    },
  };
  return { counted, io };
}

test('200 changes made at once share a few fsyncs and are all read back after a reopen', async (t) => {
  const directory = temporaryDirectory(t);
  const { counted, io } = countingSyncs();
  const store = await KeyedJournal.open(directory, { io });
  const keys = Array.from({ length: 200 }, (_, i) => `node-${i}`);
  await Promise.all(keys.map((key, i) => store.set([[key, { lines: i }]])));
  t.true(counted.syncs < 20, `${counted.syncs} fsyncs for 200 changes`);
  await store.set([
    ['node-7', null],
    ['node-8', 'replaced'],
  ]);
  await store.close();

  const reopened = await KeyedJournal.open(directory);
  t.is(reopened.all().size, 199);
  t.deepEqual(reopened.get('node-0'), { lines: 0 });
  t.is(reopened.get('node-7'), undefined);
  t.is(reopened.get('node-8'), 'replaced');
  await reopened.close();
});

test('a compaction snapshot holds the whole map: reopening gives it back', async (t) => {
  const directory = temporaryDirectory(t);
  const store = await KeyedJournal.open(directory, { compactAfterRecords: 10 });
  for (let i = 0; i < 25; i++) await store.set([[`k${i % 12}`, i]]);
  await store.set([['k0', null]]);
  const expected = new Map(store.all());
  await store.close();
  const reopened = await KeyedJournal.open(directory);
  t.deepEqual(new Map(reopened.all()), expected);
  t.is(reopened.get('k11'), 23);
  await reopened.close();
});

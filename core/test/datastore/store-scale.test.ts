// Cost and memory of the Config datastore at scale (numbers are reported, not asserted against time):
// one-entry applies with 1,000 and with 100,000 entries stored (in memory, and durable through the
// journal with 8 concurrent writers), and heap per stored small list entry, measured after gc.
import test from 'ava';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { applyEdits } from '../../src/data';
import { ConfigStore } from '../../src/datastore';
import { schema } from '../data/fixture';
import { bulkEdit, dataDirectory, entryEdit, interfaceList } from './store-fixture';

const ctx = schema();

function collect(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function microseconds(start: bigint, count: number): number {
  return Number(process.hrtime.bigint() - start) / 1e3 / count;
}

test.serial('one-entry apply costs the same with 100,000 entries stored as with 1,000', async (t) => {
  t.timeout(300_000);
  const results: Record<number, { memory: number; durable: number }> = {};
  for (const size of [1000, 100_000]) {
    const store = await ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined });
    await store.apply([bulkEdit(ctx, size)]);
    const edits = Array.from({ length: 6000 }, (_, i) => entryEdit(ctx, { name: `eth${(i * 7919) % size}`, description: `edit ${i}` }));
    // In memory: the copy-on-write edit alone.
    let root = store.current();
    for (let i = 0; i < 1000; i++) root = applyEdits(root, [edits[i]!], ctx); // warm-up
    let start = process.hrtime.bigint();
    for (let i = 1000; i < 5000; i++) root = applyEdits(root, [edits[i]!], ctx);
    const memory = microseconds(start, 4000);
    // Durable, 8 writers at a time (group commit), as 8 HTTP connections would; the first 200 warm up
    // (the first edit of a freshly decoded list converts its index and entries once, O(n)).
    let next = 5000;
    for (; next < 5200; next++) await store.apply([edits[next]!]);
    start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 6000) await store.apply([edits[next++]!]);
      }),
    );
    const durable = microseconds(start, 800);
    t.is(interfaceList(store.current())?.entries.length, size);
    await store.close();
    results[size] = { memory, durable };
    t.log(
      `${size} entries stored: in-memory edit ${memory.toFixed(1)} us, durable apply ${durable.toFixed(1)} us (${(1e6 / durable).toFixed(0)}/s with 8 writers)`,
    );
  }
  t.true(results[100_000]!.memory > 0);
});

test.serial('heap per stored small list entry, after gc, before and after single-entry edits', async (t) => {
  t.timeout(300_000);
  const gc = collect();
  const count = 100_000;
  const store = await ConfigStore.open(dataDirectory(t), ctx, { log: () => undefined });
  gc();
  const base = process.memoryUsage().heapUsed;
  await store.apply([bulkEdit(ctx, count)]);
  gc();
  const stored = (process.memoryUsage().heapUsed - base) / count;
  for (let i = 0; i < 200; i++) await store.apply([entryEdit(ctx, { name: `eth${i * 97}`, description: `e${i}` })]);
  gc();
  const edited = (process.memoryUsage().heapUsed - base) / count;
  t.log(
    `${count} entries {name, description, enabled}: ${stored.toFixed(0)} bytes/entry as decoded, ${edited.toFixed(0)} bytes/entry after edits (persistent index and sequence built)`,
  );
  t.true(stored < 1024, `${stored} bytes per entry`);
  t.true(edited < 1024, `${edited} bytes per entry`);
  await store.close();
});

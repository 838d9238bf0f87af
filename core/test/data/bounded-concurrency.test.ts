/**
 * The bounded-concurrency runner: never more than the bound in flight, and that many when there is
 * work for them; results in input order whatever order the work finishes in; `stop` leaves the items
 * not yet started unstarted while those in flight finish; a throw rejects only after everything in
 * flight has settled. Work is released by hand (no timers), so the tests say nothing about speed.
 */
import test from 'ava';
import { mapBounded } from '../../src/data/bounded-concurrency';

/** Work whose items finish when the test says so; counts how many run at once. */
function gatedWork() {
  const gates = new Map<number, () => void>();
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const work = async (item: number): Promise<number> => {
    started.push(item);
    running++;
    most = Math.max(most, running);
    await new Promise<void>((r) => gates.set(item, r));
    running--;
    return item * 10;
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    work,
    started,
    most: () => most,
    running: () => running,
    /** Finishes `item` and lets the runner start the next. */
    finish: async (item: number) => {
      gates.get(item)!();
      await settle();
    },
    settle,
  };
}

test('at most `limit` in flight, results in input order though the work finishes out of order', async (t) => {
  const g = gatedWork();
  const items = [1, 2, 3, 4, 5, 6, 7];
  const done = mapBounded(items, 3, g.work);
  await g.settle();
  t.deepEqual(g.started, [1, 2, 3], 'three started, the rest wait');
  await g.finish(2);
  t.deepEqual(g.started, [1, 2, 3, 4], 'one finishing lets the next start');
  for (const item of [4, 3, 1, 7, 5, 6]) {
    if (g.started.includes(item)) await g.finish(item);
    else t.fail(`item ${item} was not started`);
  }
  t.deepEqual(await done, [10, 20, 30, 40, 50, 60, 70]);
  t.is(g.most(), 3);
});

test('stop: items not yet started stay unstarted (undefined), those in flight finish', async (t) => {
  const g = gatedWork();
  let stopped = false;
  const done = mapBounded([1, 2, 3, 4, 5], 2, g.work, { stop: () => stopped });
  await g.settle();
  stopped = true;
  await g.finish(1);
  t.is(g.running(), 1, 'item 2 is still in flight, nothing new started');
  await g.finish(2);
  t.deepEqual(await done, [10, 20, undefined, undefined, undefined]);
  t.deepEqual(g.started, [1, 2]);
});

test('a throw rejects with the first error once the work in flight has settled, and starts nothing more', async (t) => {
  const g = gatedWork();
  const done = mapBounded([1, 2, 3, 4], 2, async (item) => {
    if (item === 1) throw new Error('item 1 broke');
    return g.work(item);
  });
  let settled = false;
  void done.catch(() => {
    settled = true;
  });
  await g.settle();
  t.deepEqual(g.started, [2], 'item 2 was in flight when item 1 threw; 3 and 4 never start');
  t.false(settled, 'not rejected while item 2 runs');
  await g.finish(2);
  await t.throwsAsync(done, { message: 'item 1 broke' });
  t.deepEqual(g.started, [2]);
});

test('no items, or a bound larger than the items, or a bound below one', async (t) => {
  t.deepEqual(await mapBounded([], 4, async (x: number) => x), []);
  t.deepEqual(await mapBounded([1, 2], 100, async (x) => x + 1), [2, 3]);
  const g = gatedWork();
  const done = mapBounded([1, 2], 0, g.work);
  await g.settle();
  t.deepEqual(g.started, [1], 'a bound of 0 runs one at a time');
  await g.finish(1);
  await g.finish(2);
  t.deepEqual(await done, [10, 20]);
});

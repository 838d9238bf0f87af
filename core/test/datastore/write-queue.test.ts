// The per-datastore writer queue: strict call order, one task at a time, failures do not block.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { WriteQueue } from '../../src/datastore/write-queue';

test('tasks run one at a time in call order, whatever their durations', async (t) => {
  const queue = new WriteQueue();
  const events: string[] = [];
  let running = 0;
  const task = (name: string, ms: number) => async (): Promise<string> => {
    running += 1;
    t.is(running, 1, `${name} overlapped another task`);
    events.push(`start ${name}`);
    await sleep(ms);
    events.push(`end ${name}`);
    running -= 1;
    return name;
  };
  const results = await Promise.all([queue.run(task('a', 20)), queue.run(task('b', 1)), queue.run(task('c', 10))]);
  t.deepEqual(results, ['a', 'b', 'c']);
  t.deepEqual(events, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
});

test('a failing or throwing task rejects its own run only and the next task still runs', async (t) => {
  const queue = new WriteQueue();
  const failing = queue.run(async () => {
    await sleep(5);
    throw new Error('rejected write');
  });
  const throwing = queue.run(() => {
    throw new Error('sync throw');
  });
  const after = queue.run(() => 'ran');
  await t.throwsAsync(failing, { message: 'rejected write' });
  await t.throwsAsync(throwing, { message: 'sync throw' });
  t.is(await after, 'ran');
  t.is(queue.size, 0);
});

test('size counts queued and running tasks; idle waits for all of them', async (t) => {
  const queue = new WriteQueue();
  let finished = 0;
  for (let i = 0; i < 5; i++) {
    void queue.run(async () => {
      await sleep(2);
      finished += 1;
    });
  }
  t.is(queue.size, 5);
  await queue.idle();
  t.is(finished, 5);
  t.is(queue.size, 0);
});

test('a task queued from inside a running task runs after it, not inside it (no deadlock, no reentry)', async (t) => {
  const queue = new WriteQueue();
  const order: string[] = [];
  let inner: Promise<void> | undefined;
  await queue.run(() => {
    inner = queue.run(() => {
      order.push('inner');
    });
    order.push('outer');
  });
  await inner;
  t.deepEqual(order, ['outer', 'inner']);
});

test('10,000 queued tasks complete in order without stack growth', async (t) => {
  const queue = new WriteQueue();
  const seen: number[] = [];
  const runs = Array.from({ length: 10_000 }, (_, i) => queue.run(() => seen.push(i)));
  await Promise.all(runs);
  t.is(seen.length, 10_000);
  t.true(seen.every((value, index) => value === index));
});

/**
 * The jobs board alone: items counted against the total, a job's state from its items and its own end,
 * progress lines every twentieth of a job and none for a job of one item, and the finished jobs kept
 * bounded by number and by age; the lines of a job of one node name what its items are and the node.
 */
import test from 'ava';
import { FINISHED_KEPT, FINISHED_KEPT_MS, JobBoard } from '../../src/jobs';

function board() {
  const lines: string[] = [];
  return { lines, jobs: new JobBoard({ log: (l) => lines.push(l), progressMs: 3_600_000 }) };
}

test('a job counts its items, logs its progress every twentieth and its end, and fails when an item does', (t) => {
  const { lines, jobs } = board();
  const job = jobs.start({
    kind: 'install-multiple-nodes',
    total: 40,
    doing: 'installing',
    done: 'installed',
    detail: ', at most 4 at once',
  });
  t.is(lines[0], 'installing 40 node(s), at most 4 at once');
  for (let i = 0; i < 39; i++) job.item(i === 5 ? 'N5: refused' : undefined);
  t.like(jobs.list()[0], { kind: 'install-multiple-nodes', state: 'running', total: 40, done: 39, failed: 1 });
  t.is(jobs.list()[0]!.finished, undefined);
  t.deepEqual(
    lines.filter((l) => /^installing \d+\/40/.test(l)),
    Array.from({ length: 19 }, (_, i) => `installing ${(i + 1) * 2}/40${(i + 1) * 2 > 5 ? ' (1 failed)' : ''}`),
  );
  t.deepEqual([...jobs.runningByKind()], [['install-multiple-nodes', { jobs: 1, remaining: 1 }]]);
  job.item();
  job.finish();
  t.like(jobs.list()[0], { state: 'failed', done: 40, failed: 1, error: 'N5: refused' });
  t.truthy(jobs.list()[0]!.finished);
  t.regex(lines.at(-1)!, /^installed 39\/40 node\(s\) in [\d.]+ s; 1 failed, the first: N5: refused$/);
  t.is(jobs.runningByKind().size, 0);
});

test('a job of one node logs nothing and names its node; a job that fails whole says why', async (t) => {
  const { lines, jobs } = board();
  await jobs.run({ kind: 'sync-from-network', total: 1, doing: 'syncing', done: 'synced', nodeId: 'R1' }, async (job) => job.item());
  t.deepEqual(lines, []);
  t.like(jobs.list()[0], { kind: 'sync-from-network', nodeId: 'R1', state: 'succeeded', done: 1, failed: 0 });
  await t.throwsAsync(
    jobs.run({ kind: 'sync-from-network', total: 3, doing: 'syncing', done: 'synced' }, async () => {
      throw new Error('the store is closed');
    }),
  );
  t.like(jobs.list()[1], { state: 'failed', done: 0, error: 'the store is closed' });
  t.regex(lines.at(-1)!, /^synced 0\/3 node\(s\) in [\d.]+ s; it failed: the store is closed$/);
});

test('finished jobs are kept at most FINISHED_KEPT and FINISHED_KEPT_MS; running ones always', (t) => {
  const { jobs } = board();
  const running = jobs.start({ kind: 'uninstall-multiple-nodes', total: 2, doing: 'uninstalling', done: 'uninstalled' });
  for (let i = 0; i < FINISHED_KEPT + 5; i++)
    jobs.start({ kind: 'sync-from-network', total: 2, doing: 'syncing', done: 'synced' }).finish();
  const kept = jobs.list();
  t.is(kept.length, FINISHED_KEPT + 1);
  t.is(kept[0]!.id, running.id, 'the running job stays');
  t.is(kept[1]!.id, running.id + 6, 'the five oldest finished jobs went');
  const later = jobs.list(Date.now() + FINISHED_KEPT_MS + 1000);
  t.deepEqual(
    later.map((j) => j.id),
    [running.id],
  );
  running.finish();
});

test('a job of a node counts its own items: its lines name what an item is and the node', (t) => {
  const { lines, jobs } = board();
  const job = jobs.start({ kind: 'schema-download', total: 2, doing: 'downloading', done: 'downloaded', items: 'module(s)', nodeId: 'R1' });
  job.item();
  job.item('ietf-x: get-schema failed: no matches found');
  job.finish();
  t.deepEqual(lines.slice(0, 2), ['downloading 2 module(s) of R1', 'downloading 1/2 of R1']);
  t.regex(
    lines.at(-1)!,
    /^downloaded 1\/2 module\(s\) of R1 in [\d.]+ s; 1 failed, the first: ietf-x: get-schema failed: no matches found$/,
  );
  t.like(jobs.list()[0], { kind: 'schema-download', nodeId: 'R1', state: 'failed', total: 2, done: 2, failed: 1 });
});

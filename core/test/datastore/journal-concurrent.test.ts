// Concurrent group commits (and, last, the O_DSYNC descriptor the default I/O commits through): appends that arrive while an fsync is in flight get their own commit started
// at once (up to maxConcurrentCommits), yet acknowledgements keep append order, a failed commit takes every
// later one down with it, and a snapshot's rotation waits for the commits before it. The fsyncs are held
// open by the tests (gates), so the interleavings are forced, not hoped for.
import test from 'ava';
import * as fs from 'node:fs';
import { constants as fsConstants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { JournalError } from '../../src/datastore/journal-error';
import { journalFiles, openCollecting, temporaryDirectory } from './journal-fixture';

/** An fsync that waits until the test opens it; counts how many are in flight at once. */
function gatedSync() {
  const gates: Array<{ open: () => void; fail: (e: Error) => void }> = [];
  let inFlight = 0;
  let most = 0;
  const waiting: Array<() => void> = [];
  const sync = async (file: FileHandle): Promise<void> => {
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      await new Promise<void>((open, fail) => {
        gates.push({ open, fail });
        for (const w of waiting.splice(0)) w();
      });
      await file.datasync();
    } finally {
      inFlight--;
    }
  };
  /** Resolves once `n` fsyncs have started. */
  const started = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (gates.length >= n ? resolve() : waiting.push(check));
      check();
    });
  return { sync, gates, started, most: () => most };
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );

test('appends during an fsync start their own commit; acknowledgements still come in append order', async (t) => {
  const directory = temporaryDirectory(t);
  const gated = gatedSync();
  const { journal } = await openCollecting(t, directory, { io: { sync: gated.sync } });
  const order: string[] = [];
  const first = journal.append('a').then(() => order.push('a'));
  await gated.started(1);
  const second = [journal.append('b').then(() => order.push('b')), journal.append('c').then(() => order.push('c'))];
  await gated.started(2); // started while the first is still in flight: no waiting for it
  t.is(gated.most(), 2);
  // The later commit's fsync finishes first; it must not be acknowledged before the earlier one.
  gated.gates[1]!.open();
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.deepEqual(order, [], 'b and c wait for a');
  t.is(journal.durablePosition, 0);
  gated.gates[0]!.open();
  await Promise.all([first, ...second]);
  t.deepEqual(order, ['a', 'b', 'c']);
  t.is(journal.durablePosition, 3);
  t.is(journal.stats.batchesWritten, 2);
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.deepEqual(reopened.records, ['a', 'b', 'c']);
});

test('no more than maxConcurrentCommits are in flight; the rest wait and are batched together', async (t) => {
  const directory = temporaryDirectory(t);
  const gated = gatedSync();
  const { journal } = await openCollecting(t, directory, { io: { sync: gated.sync }, maxConcurrentCommits: 2 });
  const acks = [journal.append('1')];
  await gated.started(1);
  acks.push(journal.append('2'));
  await gated.started(2);
  for (let i = 3; i <= 6; i++) acks.push(journal.append(String(i)));
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.is(gated.gates.length, 2, 'the third commit waits for a free slot');
  gated.gates[0]!.open();
  await gated.started(3);
  gated.gates[1]!.open();
  gated.gates[2]!.open();
  await Promise.all(acks);
  t.is(gated.most(), 2);
  t.is(journal.stats.batchesWritten, 3, 'records 3..6 went in one commit');
  await journal.close();
  t.deepEqual((await openCollecting(t, directory)).records, ['1', '2', '3', '4', '5', '6']);
});

test('a failed fsync rejects its commit and every later one, even one whose own fsync succeeded', async (t) => {
  const directory = temporaryDirectory(t);
  const gated = gatedSync();
  const { journal } = await openCollecting(t, directory, { io: { sync: gated.sync } });
  await Promise.all([journal.append('kept'), gated.started(1).then(() => gated.gates[0]!.open())]);
  const doomed = settle(journal.append('doomed'));
  await gated.started(2);
  const behind = settle(journal.append('behind'));
  await gated.started(3);
  gated.gates[2]!.open(); // the later commit is durable first...
  await new Promise((resolve) => setTimeout(resolve, 30));
  gated.gates[1]!.fail(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })); // ...then the earlier one fails
  const [d, b] = await Promise.all([doomed, behind]);
  t.false(d.ok);
  t.is((d as { e: JournalError }).e.code, 'io');
  t.false(b.ok, 'a commit after a failed one is never acknowledged');
  t.true((b as { e: unknown }).e instanceof JournalError);
  t.is(journal.durablePosition, 1);
  const later = await t.throwsAsync(journal.append('later'), { instanceOf: JournalError });
  t.is(later?.code, 'failed');
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.deepEqual(reopened.records, ['kept'], 'the file was cut at the failed commit, after the later one had written');
});

test('a snapshot taken while commits are in flight rotates only once they are durable', async (t) => {
  const directory = temporaryDirectory(t);
  const gated = gatedSync();
  const { journal } = await openCollecting(t, directory, { io: { sync: gated.sync } });
  const before = [journal.append('r0')];
  await gated.started(1);
  before.push(journal.append('r1'));
  await gated.started(2);
  const snapshot = journal.snapshot('state after 2');
  const after = journal.append('r2');
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.is(gated.gates.length, 2, 'nothing after the snapshot is written before the rotation');
  t.deepEqual(journalFiles(directory), ['journal-0000000000000000.log']);
  gated.gates[1]!.open();
  gated.gates[0]!.open();
  await Promise.all(before);
  await gated.started(3);
  gated.gates[2]!.open();
  await Promise.all([snapshot, after]);
  t.deepEqual(journalFiles(directory), ['journal-0000000000000002.log', 'snapshot-0000000000000002.snap']);
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.is(reopened.snapshot, 'state after 2');
  t.deepEqual(reopened.records, ['r2']);
});

test('maxConcurrentCommits must be a positive integer', async (t) => {
  for (const bad of [0, -1, 1.5]) {
    const error = await t.throwsAsync(openCollecting(t, temporaryDirectory(t), { maxConcurrentCommits: bad }), {
      instanceOf: JournalError,
    });
    t.is(error?.code, 'bad-argument');
  }
});

test('with the default I/O, commits go through an O_DSYNC descriptor of the segment (Linux /proc)', async (t) => {
  if (!fs.existsSync('/proc/self/fdinfo') || fsConstants.O_DSYNC === undefined) {
    t.pass('no /proc or no O_DSYNC here');
    return;
  }
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  await journal.append('durable when written');
  const segment = path.join(directory, 'journal-0000000000000000.log');
  const flags = fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== segment) return [];
      return [Number.parseInt(/flags:\s+(\d+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8)];
    } catch {
      return [];
    }
  });
  t.true(
    flags.some((f) => (f & fsConstants.O_DSYNC) === fsConstants.O_DSYNC && (f & 3) === fsConstants.O_WRONLY),
    flags.map((f) => f.toString(8)).join(' '),
  );
  await journal.close();
  const still = fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === segment;
    } catch {
      return false;
    }
  });
  t.deepEqual(still, [], 'closing the journal closes both descriptors');
  t.deepEqual((await openCollecting(t, directory)).records, ['durable when written']);
});

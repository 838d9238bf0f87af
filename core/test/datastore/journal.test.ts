// The journal's contract: durable appends replayed in order after a restart, group commit, snapshots
// with compaction, one owner per directory, and I/O failures that reject instead of lying.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Journal } from '../../src/datastore/journal';
import { JournalError } from '../../src/datastore/journal-error';
import { journalFiles, openCollecting, temporaryDirectory } from './journal-fixture';

test('records appended before a clean close are replayed in order on reopen', async (t) => {
  const directory = temporaryDirectory(t);
  const first = await openCollecting(t, directory);
  t.is(first.records.length, 0);
  t.is(first.journal.position, 0);
  await first.journal.append('one');
  await first.journal.append(Buffer.from('two'));
  await first.journal.append(new Uint8Array([0x74, 0x68, 0x72, 0x65, 0x65])); // "three"
  await first.journal.append(''); // an empty record is a record
  await first.journal.append('ünïcödé ✓');
  await first.journal.close();

  const second = await openCollecting(t, directory);
  t.deepEqual(second.records, ['one', 'two', 'three', '', 'ünïcödé ✓']);
  t.deepEqual(second.positions, [0, 1, 2, 3, 4]);
  t.is(second.journal.position, 5);
  t.is(second.journal.recovery.droppedBytes, 0);
  t.deepEqual(second.logs, []);
  await second.journal.append('six');
  await second.journal.close();

  const third = await openCollecting(t, directory);
  t.deepEqual(third.records.slice(-2), ['ünïcödé ✓', 'six']);
});

test('files are private: directory 0700, files 0600', async (t) => {
  const directory = path.join(temporaryDirectory(t), 'nested', 'store');
  const { journal } = await openCollecting(t, directory);
  await journal.append('x');
  await journal.snapshot('state');
  t.is(fs.statSync(directory).mode & 0o777, 0o700);
  for (const name of fs.readdirSync(directory)) {
    t.is(fs.statSync(path.join(directory, name)).mode & 0o777, 0o600, name);
  }
});

test('appends from 8 concurrent writers are group-committed and keep call order', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  const order: number[] = [];
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let i = 0; i < 50; i++) {
      const n = next++;
      await journal.append(`record ${n}`);
      order.push(n);
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  t.is(journal.durablePosition, 400);
  // Group commit: far fewer fsyncs than records (8 writers waiting on one fsync share the next one).
  t.true(journal.stats.batchesWritten <= 400 / 4, `${journal.stats.batchesWritten} batches for 400 records`);
  // Acknowledgements come in append order.
  t.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.deepEqual(
    reopened.records,
    Array.from({ length: 400 }, (_, n) => `record ${n}`),
  );
});

test('a snapshot covers the records before it, later records replay on top, superseded files go', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  for (let n = 0; n < 10; n++) await journal.append(`r${n}`);
  // Records appended after snapshot() is called but before it finishes belong to the next segment.
  const snapshotted = journal.snapshot('state after 10');
  const late = [journal.append('r10'), journal.append('r11')];
  await Promise.all([snapshotted, ...late]);
  t.deepEqual(journalFiles(directory), ['journal-000000000000000a.log', 'snapshot-000000000000000a.snap']);
  await journal.close();

  const reopened = await openCollecting(t, directory);
  t.is(reopened.snapshot, 'state after 10');
  t.is(reopened.journal.recovery.snapshotPosition, 10);
  t.deepEqual(reopened.records, ['r10', 'r11']);
  t.deepEqual(reopened.positions, [10, 11]);
  t.is(reopened.journal.position, 12);

  // A second snapshot replaces the first; with nothing appended since, no new segment is needed.
  await reopened.journal.snapshot('state after 12');
  await reopened.journal.snapshot('state after 12, again');
  t.deepEqual(journalFiles(directory), ['journal-000000000000000c.log', 'snapshot-000000000000000c.snap']);
  await reopened.journal.close();
  const third = await openCollecting(t, directory);
  t.is(third.snapshot, 'state after 12, again');
  t.deepEqual(third.records, []);
});

test('the compaction callback fires once past the threshold and a snapshot from it compacts', async (t) => {
  const directory = temporaryDirectory(t);
  let calls = 0;
  let state: string[] = [];
  const snapshots: Promise<void>[] = [];
  const { journal } = await openCollecting(t, directory, {
    compactAfterRecords: 25,
    onCompactionDue: (due) => {
      calls += 1;
      // The owner snapshots its state as of every record appended so far.
      snapshots.push(due.snapshot(JSON.stringify(state)));
    },
  });
  for (let n = 0; n < 60; n++) {
    state = [...state, `e${n}`];
    await journal.append(`e${n}`);
  }
  await Promise.all(snapshots);
  t.is(calls, 2); // at 25 and at 50 records; not once per append past the threshold
  await journal.close();

  const reopened = await openCollecting(t, directory);
  const recovered = [...(JSON.parse(reopened.snapshot ?? '[]') as string[]), ...reopened.records];
  t.deepEqual(recovered, state);
  t.is(reopened.journal.recovery.snapshotPosition, 50);
  t.is(reopened.records.length, 10);
});

test('a second open of the same directory is refused while the first is open', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  const error = await t.throwsAsync(Journal.open(directory), { instanceOf: JournalError });
  t.is(error?.code, 'locked');
  t.regex(error?.message ?? '', new RegExp(`process ${process.pid}`));
  await journal.close();
  const again = await Journal.open(directory, { log: () => undefined });
  await again.close();
  t.pass();
});

test('a lock left by a dead process is taken over', async (t) => {
  const directory = temporaryDirectory(t);
  const first = await Journal.open(directory);
  await first.append('kept');
  await first.close();
  // A process id that is not running: the lock a kill -9 would leave behind.
  fs.writeFileSync(path.join(directory, 'LOCK'), `2147483646\n${require('node:os').hostname()}\nabcdef\n`, { mode: 0o600 });
  // ...and the temporary file it may have died holding.
  fs.writeFileSync(path.join(directory, 'LOCK.tmp-2147483646-abc123'), '');
  const { records, logs } = await openCollecting(t, directory);
  t.deepEqual(records, ['kept']);
  t.deepEqual(journalFiles(directory), ['journal-0000000000000000.log']);
  t.true(
    logs.some((line) => line.includes('stale lock of process 2147483646')),
    logs.join('\n'),
  );
});

test('a failed write rejects the batch and everything after it; recovery keeps only acknowledged records', async (t) => {
  const directory = temporaryDirectory(t);
  let writes = 0;
  const { journal } = await openCollecting(t, directory, {
    io: {
      write: async (file, data, position) => {
        writes += 1;
        if (writes === 3) {
          await file.write(data, 0, Math.floor(data.length / 2), position); // half of it reaches the file
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }
        await file.write(data, 0, data.length, position);
      },
    },
  });
  await journal.append('a');
  await journal.append('b');
  const doomed = journal.append('c');
  const behind = journal.append('d');
  const cError = await t.throwsAsync(doomed, { instanceOf: JournalError });
  t.is(cError?.code, 'io');
  t.regex(cError?.message ?? '', /ENOSPC/);
  const dError = await t.throwsAsync(behind, { instanceOf: JournalError });
  t.true(dError?.code === 'io' || dError?.code === 'failed');
  const later = await t.throwsAsync(journal.append('e'), { instanceOf: JournalError });
  t.is(later?.code, 'failed');
  t.truthy(journal.failed);
  await t.throwsAsync(journal.snapshot('s'), { instanceOf: JournalError });
  await journal.close();

  const reopened = await openCollecting(t, directory);
  t.deepEqual(reopened.records, ['a', 'b']);
  t.is(reopened.journal.position, 2);
});

test('a failed fsync rejects the records it covered', async (t) => {
  const directory = temporaryDirectory(t);
  let syncs = 0;
  const { journal } = await openCollecting(t, directory, {
    io: {
      sync: async (file) => {
        syncs += 1;
        if (syncs === 2) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        await file.datasync();
      },
    },
  });
  await journal.append('durable');
  const error = await t.throwsAsync(journal.append('not acknowledged'), { instanceOf: JournalError });
  t.is(error?.code, 'io');
  t.is(journal.durablePosition, 1);
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.deepEqual(reopened.records, ['durable']); // the truncation after the failure removed the unacknowledged record
});

test('bad arguments are rejected, not thrown, and the journal stays usable', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory, { maxRecordBytes: 16 });
  for (const bad of [undefined, null, 42, { a: 1 }, ['x']] as unknown[]) {
    const error = await t.throwsAsync(journal.append(bad as string), { instanceOf: JournalError });
    t.is(error?.code, 'bad-argument');
  }
  const tooLarge = await t.throwsAsync(journal.append('x'.repeat(17)), { instanceOf: JournalError });
  t.is(tooLarge?.code, 'too-large');
  await journal.append('x'.repeat(16));
  t.is(journal.durablePosition, 1);
  const badOption = await t.throwsAsync(Journal.open(temporaryDirectory(t), { compactAfterBytes: -1 }), { instanceOf: JournalError });
  t.is(badOption?.code, 'bad-argument');
  const notADirectory = path.join(directory, 'LOCK');
  await t.throwsAsync(Journal.open(notADirectory));
});

test('append and snapshot after close are rejected; close waits for queued appends', async (t) => {
  const directory = temporaryDirectory(t);
  const journal = await Journal.open(directory);
  const pending = [journal.append('a'), journal.append('b')];
  const closed = journal.close();
  const late = await t.throwsAsync(journal.append('c'), { instanceOf: JournalError });
  t.is(late?.code, 'closed');
  await Promise.all(pending);
  await closed;
  await journal.close(); // idempotent
  const reopened = await openCollecting(t, directory);
  t.deepEqual(reopened.records, ['a', 'b']);
});

test('a replay handler error fails open and releases the directory', async (t) => {
  const directory = temporaryDirectory(t);
  const journal = await Journal.open(directory);
  await journal.append('poison');
  await journal.close();
  await t.throwsAsync(
    Journal.open(directory, {
      onRecord: () => {
        throw new Error('cannot decode record');
      },
    }),
    { message: 'cannot decode record' },
  );
  const { records } = await openCollecting(t, directory);
  t.deepEqual(records, ['poison']);
});

test('a failed snapshot rejects, leaves the journal usable and loses nothing', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  await journal.append('a');
  await journal.append('b');
  // A directory where the snapshot file must go: the rename into place fails.
  fs.mkdirSync(path.join(directory, 'snapshot-0000000000000002.snap'));
  const error = await t.throwsAsync(journal.snapshot('state after 2'), { instanceOf: JournalError });
  t.is(error?.code, 'io');
  t.regex(error?.message ?? '', /snapshot-0000000000000002\.snap/);
  t.is(journal.failed, undefined);
  await journal.append('c');
  t.false(
    journalFiles(directory).some((name) => name.includes('.tmp-')),
    'temporary file removed',
  );
  await journal.close();

  const reopened = await openCollecting(t, directory);
  t.is(reopened.snapshot, undefined);
  t.deepEqual(reopened.records, ['a', 'b', 'c']);
  t.true(
    reopened.logs.some((line) => line.includes('ignoring snapshot snapshot-0000000000000002.snap: not a regular file')),
    reopened.logs.join('\n'),
  );
});

test('a segment name already taken makes the snapshot fail without touching that file', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  await journal.append('a');
  const squatter = path.join(directory, 'journal-0000000000000001.log');
  fs.writeFileSync(squatter, 'not ours');
  const error = await t.throwsAsync(journal.snapshot('state after 1'), { instanceOf: JournalError });
  t.is(error?.code, 'io');
  t.is(fs.readFileSync(squatter, 'utf8'), 'not ours');
  t.is(journal.failed, undefined);
});

test('snapshots queued behind one in progress are rejected cleanly when the journal fails', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => void process.off('unhandledRejection', onUnhandled));
  const directory = temporaryDirectory(t);
  let failWrites = false;
  const { journal } = await openCollecting(t, directory, {
    io: {
      write: async (file, data, position) => {
        if (failWrites) throw new Error('EIO: injected');
        await file.write(data, 0, data.length, position);
      },
    },
  });
  await journal.append('a');
  const first = journal.snapshot('x'.repeat(8 << 20)); // large: still being written when the failure hits
  failWrites = true;
  const doomed = journal.append('b');
  const second = journal.snapshot('after b');
  const doomedError = t.throwsAsync(doomed, { instanceOf: JournalError });
  await first; // the journal failed meanwhile, with `second` waiting behind `first`
  await doomedError;
  const error = await t.throwsAsync(second, { instanceOf: JournalError });
  t.is(error?.code, 'failed');
  t.deepEqual(unhandled, []);
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.is(reopened.snapshot?.length, 8 << 20);
  t.deepEqual(reopened.records, []);
  t.is(reopened.journal.position, 1);
});

test('asynchronous replay handlers are awaited in order', async (t) => {
  const directory = temporaryDirectory(t);
  const journal = await Journal.open(directory);
  for (const record of ['1', '2', '3']) await journal.append(record);
  await journal.snapshot('base');
  await journal.append('4');
  await journal.close();
  const seen: string[] = [];
  const reopened = await Journal.open(directory, {
    onSnapshot: async (state) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen.push(`snapshot ${state.toString()}`);
    },
    onRecord: async (record) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(record.toString());
    },
  });
  await reopened.close();
  t.deepEqual(seen, ['snapshot base', '4']);
  await t.throwsAsync(
    Journal.open(directory, {
      onRecord: async () => {
        throw new Error('async decode failure');
      },
    }),
    { message: 'async decode failure' },
  );
});

test('records larger than a read chunk and records straddling chunk boundaries come back byte for byte', async (t) => {
  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  const records: string[] = [];
  for (let i = 0; i < 40; i++) {
    // Sizes from a few bytes to 3 MiB; contents differ per record so a shifted read would show.
    const size = i % 10 === 9 ? 3 * (1 << 20) + i : 1 + ((i * 7919) % 150_000);
    records.push(String.fromCharCode(97 + (i % 26)).repeat(size - 1) + String(i % 10));
  }
  await Promise.all(records.map((record) => journal.append(record)));
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.is(reopened.records.length, records.length);
  t.true(reopened.records.every((record, i) => record === records[i]));
});

test('after a failed compaction snapshot the owner is asked again, one threshold later', async (t) => {
  const directory = temporaryDirectory(t);
  const askedAt: number[] = [];
  const attempts: Promise<void>[] = [];
  const { journal } = await openCollecting(t, directory, {
    compactAfterRecords: 10,
    onCompactionDue: (due) => {
      askedAt.push(due.position);
      attempts.push(due.snapshot(`state at ${due.position}`).catch(() => undefined));
    },
  });
  // The snapshot file for position 10 cannot be put in place: the first attempt fails.
  fs.mkdirSync(path.join(directory, 'snapshot-000000000000000a.snap'));
  for (let n = 0; n < 35; n++) {
    await journal.append(`r${n}`);
    await Promise.all(attempts); // settle each attempt before the next append, for exact positions
  }
  t.deepEqual(askedAt, [10, 20, 30]);
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.is(reopened.snapshot, 'state at 30');
  t.deepEqual(reopened.records, ['r30', 'r31', 'r32', 'r33', 'r34']);
});

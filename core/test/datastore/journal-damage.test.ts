// Recovery from what crashes and disks leave behind: a torn tail (no valid record after the damage) is
// cut off and reported; damage that no crash can cause (a bad record with a valid one after it, a gap,
// a bad record in a closed segment, a tail cut below what COMMITTED records) stops the open instead.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Journal } from '../../src/datastore/journal';
import { JournalError } from '../../src/datastore/journal-error';
import { encodeFrame } from '../../src/datastore/record-frame';
import { journalFiles, openCollecting, temporaryDirectory } from './journal-fixture';

const FIRST_SEGMENT = 'journal-0000000000000000.log';

async function writeRecords(directory: string, records: string[]): Promise<void> {
  const journal = await Journal.open(directory);
  for (const record of records) await journal.append(record);
  await journal.close();
}

/** Writes `records` and leaves the directory as a crash right after the last one would: COMMITTED as the open wrote it. */
async function writeRecordsThenCrash(directory: string, records: string[]): Promise<void> {
  const journal = await Journal.open(directory);
  const committedAtOpen = fs.readFileSync(path.join(directory, 'COMMITTED'));
  for (const record of records) await journal.append(record);
  await journal.close();
  fs.writeFileSync(path.join(directory, 'COMMITTED'), committedAtOpen);
}

const fiveRecords = ['alpha', 'bravo', 'charlie', 'delta', `echo-${'x'.repeat(200)}`];

function segmentPath(directory: string, name = FIRST_SEGMENT): string {
  return path.join(directory, name);
}

test('a record cut off mid-payload is dropped, logged, and appending continues after the last whole one', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecordsThenCrash(directory, fiveRecords);
  const file = segmentPath(directory);
  const size = fs.statSync(file).size;
  fs.truncateSync(file, size - 3);

  const { journal, records, logs } = await openCollecting(t, directory);
  t.deepEqual(records, fiveRecords.slice(0, 4));
  t.is(journal.recovery.droppedBytes, encodeFrame(fiveRecords[4]!).length - 3);
  t.regex(journal.recovery.dropReason ?? '', /torn record/);
  t.true(
    logs.some((line) => line.includes('dropped') && line.includes(FIRST_SEGMENT)),
    logs.join('\n'),
  );
  t.is(fs.statSync(file).size, size - encodeFrame(fiveRecords[4]!).length); // cut on disk too
  await journal.append('foxtrot');
  await journal.close();
  const reopened = await openCollecting(t, directory);
  t.deepEqual(reopened.records, [...fiveRecords.slice(0, 4), 'foxtrot']);
  t.is(reopened.journal.recovery.droppedBytes, 0);
});

test('a record cut off inside its header is dropped', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecordsThenCrash(directory, fiveRecords);
  const file = segmentPath(directory);
  const lastFrame = encodeFrame(fiveRecords[4]!).length;
  fs.truncateSync(file, fs.statSync(file).size - lastFrame + 5); // 5 of the 8 header bytes remain
  const { journal, records } = await openCollecting(t, directory);
  t.deepEqual(records, fiveRecords.slice(0, 4));
  t.is(journal.recovery.droppedBytes, 5);
  t.regex(journal.recovery.dropReason ?? '', /torn record header/);
});

test('after a crash, a last record failing its checksum is a torn write and is dropped', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecordsThenCrash(directory, fiveRecords);
  const file = segmentPath(directory);
  const bytes = fs.readFileSync(file);
  bytes[bytes.length - 10]! ^= 0x01;
  fs.writeFileSync(file, bytes);
  const { journal, records } = await openCollecting(t, directory);
  t.deepEqual(records, fiveRecords.slice(0, 4));
  t.regex(journal.recovery.dropReason ?? '', /checksum mismatch/);
});

test('after a clean close, a damaged last record is refused: COMMITTED says it was acknowledged', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecords(directory, fiveRecords);
  const file = segmentPath(directory);
  const bytes = fs.readFileSync(file);
  bytes[bytes.length - 10]! ^= 0x01;
  fs.writeFileSync(file, bytes);
  const error = await t.throwsAsync(Journal.open(directory, { log: () => undefined }), { instanceOf: JournalError });
  t.is(error?.code, 'corrupt');
  const lastFrameAt = bytes.length - encodeFrame(fiveRecords[4]!).length;
  t.true(error?.message.includes(`${FIRST_SEGMENT} at offset ${lastFrameAt}: cut short: checksum mismatch`), error?.message);
  t.regex(error?.message ?? '', /the files hold 4 record\(s\) but 5 were committed/);
  t.deepEqual(fs.readFileSync(file), bytes); // nothing cut
});

test('a flipped bit in a record length is corruption, not a torn tail: the records after it are valid', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecordsThenCrash(directory, fiveRecords);
  const file = segmentPath(directory);
  const bytes = fs.readFileSync(file);
  const offsetOfFourth = fiveRecords.slice(0, 3).reduce((sum, record) => sum + encodeFrame(record).length, 0);
  bytes[offsetOfFourth]! ^= 0x02; // "delta" (5 bytes) now claims 7: the frame still fits in the file
  fs.writeFileSync(file, bytes);
  const error = await t.throwsAsync(Journal.open(directory, { log: () => undefined }), { instanceOf: JournalError });
  t.is(error?.code, 'corrupt');
  t.true(error?.message.includes(`${FIRST_SEGMENT} at offset ${offsetOfFourth}: corrupt: checksum mismatch`), error?.message);
  t.regex(error?.message ?? '', /1 valid record\(s\) follow from offset/);
  t.deepEqual(fs.readFileSync(file), bytes);
});

test('a zero-filled hole before the last commits is the commits in flight at a crash: cut with them', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecordsThenCrash(directory, fiveRecords.slice(0, 3));
  // Commit "delta" never reached the disk, the later commit "echo" did.
  const hole = Buffer.alloc(encodeFrame(fiveRecords[3]!).length);
  fs.appendFileSync(segmentPath(directory), Buffer.concat([hole, encodeFrame(fiveRecords[4]!)]));
  const { journal, records } = await openCollecting(t, directory);
  t.deepEqual(records, fiveRecords.slice(0, 3));
  t.is(journal.recovery.droppedBytes, hole.length + encodeFrame(fiveRecords[4]!).length);
});

test('a zero-filled or garbage tail (as a crash can leave) is dropped', async (t) => {
  for (const tail of [Buffer.alloc(4096), Buffer.from('ffffffff00000000deadbeef', 'hex')]) {
    const directory = temporaryDirectory(t);
    await writeRecords(directory, fiveRecords);
    fs.appendFileSync(segmentPath(directory), tail);
    const { journal, records } = await openCollecting(t, directory);
    t.deepEqual(records, fiveRecords);
    t.is(journal.recovery.droppedBytes, tail.length);
    await journal.close();
  }
});

test('records are replayed across segments, as after a crash between rotation and snapshot', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecords(directory, fiveRecords);
  // The state a crash leaves after the segment for records 5.. was started and written to, but before
  // the snapshot at 5 was renamed into place (only its temporary file exists).
  fs.writeFileSync(segmentPath(directory, 'journal-0000000000000005.log'), Buffer.concat([encodeFrame('f'), encodeFrame('g')]));
  fs.writeFileSync(path.join(directory, 'snapshot-0000000000000005.snap.tmp-99-abc'), 'half a snapshot');
  const { journal, records, positions } = await openCollecting(t, directory);
  t.deepEqual(records, [...fiveRecords, 'f', 'g']);
  t.deepEqual(positions, [0, 1, 2, 3, 4, 5, 6]);
  t.is(journal.position, 7);
  t.deepEqual(journalFiles(directory), [FIRST_SEGMENT, 'journal-0000000000000005.log']); // temporary removed
  await journal.append('h');
  await journal.snapshot('all eight');
  t.deepEqual(journalFiles(directory), ['journal-0000000000000008.log', 'snapshot-0000000000000008.snap']);
});

test('damage in a segment that is not the last one refuses the open', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecords(directory, fiveRecords);
  fs.writeFileSync(segmentPath(directory, 'journal-0000000000000005.log'), encodeFrame('f'));
  const bytes = fs.readFileSync(segmentPath(directory));
  bytes[12]! ^= 0xff;
  fs.writeFileSync(segmentPath(directory), bytes);
  const error = await t.throwsAsync(Journal.open(directory, { log: () => undefined }), { instanceOf: JournalError });
  t.is(error?.code, 'corrupt');
  t.regex(error?.message ?? '', /journal-0000000000000000\.log at offset 0: corrupt/);
  // The failed open released the directory and changed nothing.
  t.is(fs.readFileSync(segmentPath(directory)).length, bytes.length);
  t.false(fs.existsSync(path.join(directory, 'LOCK')));
});

test('missing records between files refuse the open', async (t) => {
  const directory = temporaryDirectory(t);
  await writeRecords(directory, fiveRecords);
  fs.renameSync(segmentPath(directory), segmentPath(directory, 'journal-0000000000000003.log'));
  const error = await t.throwsAsync(Journal.open(directory, { log: () => undefined }), { instanceOf: JournalError });
  t.is(error?.code, 'corrupt');
  t.regex(error?.message ?? '', /records 0\.\.2 are missing/);
});

test('a damaged snapshot is ignored with a log line; without the segments it superseded the open is refused', async (t) => {
  const directory = temporaryDirectory(t);
  const journal = await Journal.open(directory);
  for (const record of fiveRecords) await journal.append(record);
  await journal.snapshot('five');
  await journal.append('after');
  await journal.close();
  const snapshotFile = path.join(directory, 'snapshot-0000000000000005.snap');
  const bytes = fs.readFileSync(snapshotFile);
  bytes[bytes.length - 1]! ^= 0x40;
  fs.writeFileSync(snapshotFile, bytes);
  const logs: string[] = [];
  const error = await t.throwsAsync(Journal.open(directory, { log: (line) => logs.push(line) }), { instanceOf: JournalError });
  t.is(error?.code, 'corrupt');
  t.regex(error?.message ?? '', /records 0\.\.4 are missing/);
  t.true(
    logs.some((line) => line.includes('ignoring snapshot snapshot-0000000000000005.snap: checksum mismatch')),
    logs.join('\n'),
  );
});

test('an older valid snapshot is used when the newest one is damaged and the journal still reaches back', async (t) => {
  const directory = temporaryDirectory(t);
  const journal = await Journal.open(directory);
  await journal.append('a');
  await journal.snapshot('state at 1');
  await journal.append('b');
  await journal.close();
  // A damaged snapshot at 2 whose segment was never removed (as if the crash came before removal).
  fs.writeFileSync(path.join(directory, 'snapshot-0000000000000002.snap'), 'RSNAPv01 but truncated');
  const { snapshot, records, logs } = await openCollecting(t, directory);
  t.is(snapshot, 'state at 1');
  t.deepEqual(records, ['b']);
  t.true(logs.some((line) => line.includes('ignoring snapshot snapshot-0000000000000002.snap')));
});

/** A segment of records of assorted sizes (including empty), and where each frame ends. */
async function sampleSegment(directory: string): Promise<{ records: string[]; frameEnds: number[]; bytes: Buffer }> {
  const records = Array.from({ length: 12 }, (_, i) => `${i}`.repeat((i * 13) % 37));
  await writeRecords(directory, records);
  const frameEnds: number[] = [];
  let end = 0;
  for (const record of records) frameEnds.push((end += encodeFrame(record).length));
  return { records, frameEnds, bytes: fs.readFileSync(segmentPath(directory)) };
}

test('a power cut at every byte offset recovers exactly the whole records before it', async (t) => {
  const { records, frameEnds, bytes } = await sampleSegment(temporaryDirectory(t));
  t.is(frameEnds.at(-1), bytes.length);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const directory = temporaryDirectory(t);
    fs.writeFileSync(segmentPath(directory), bytes.subarray(0, cut));
    const whole = frameEnds.filter((end) => end <= cut).length;
    const { journal, records: recovered } = await openCollecting(t, directory);
    t.deepEqual(recovered, records.slice(0, whole), `cut at ${cut}`);
    t.is(journal.recovery.droppedBytes, cut - (frameEnds[whole - 1] ?? 0), `cut at ${cut}`);
    t.is(journal.position, whole);
    await journal.close();
  }
});

test('any one corrupted byte refuses the open naming the record that holds it, unless it is in the last record', async (t) => {
  const { records, frameEnds, bytes } = await sampleSegment(temporaryDirectory(t));
  for (let offset = 0; offset < bytes.length; offset++) {
    const directory = temporaryDirectory(t);
    const damaged = Buffer.from(bytes);
    damaged[offset]! ^= 0xa5; // CRC-32 catches every error burst of up to 32 bits
    fs.writeFileSync(segmentPath(directory), damaged);
    const intact = frameEnds.filter((end) => end <= offset).length;
    if (intact === records.length - 1) {
      // No valid record after it and no COMMITTED: as a torn last write, it is dropped.
      const { journal, records: recovered } = await openCollecting(t, directory);
      t.deepEqual(recovered, records.slice(0, intact), `byte ${offset}`);
      await journal.close();
      continue;
    }
    const error = await t.throwsAsync(Journal.open(directory, { log: () => undefined }), { instanceOf: JournalError }, `byte ${offset}`);
    t.true(
      error?.message.includes(`${FIRST_SEGMENT} at offset ${frameEnds[intact - 1] ?? 0}: corrupt`),
      `byte ${offset}: ${error?.message}`,
    );
    t.deepEqual(fs.readFileSync(segmentPath(directory)), damaged, `byte ${offset}`);
  }
});

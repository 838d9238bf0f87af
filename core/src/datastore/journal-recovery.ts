/**
 * Start-up recovery of a journal directory, in two steps. `examineDirectory` reads every file without
 * changing any: the COMMITTED file, the newest snapshot that passes its checks, then the records after
 * it in order, handing them to the caller; it says what each file holds and what would refuse
 * start-up. `recoverDirectory` examines, refuses with JournalError `corrupt` (naming file, offset and
 * reason, and having changed nothing on disk) when anything would lose an acknowledged record, and only
 * then cuts a torn tail (saying what was dropped), removes what a snapshot superseded, records what is
 * committed and hands back the last segment open for appending.
 *
 * Only a torn tail may be dropped: damage at the end of the last segment with no frame that checks at
 * any byte offset after it (the last write cut short by a crash), or a zero-filled hole after which
 * the commits in flight at a crash landed (their records were not acknowledged: see journal.ts),
 * within what can be in flight at once. Either way never below what COMMITTED records. Anything else
 * is corruption: a damaged record with a valid one after it, damage in a segment that was complete
 * before the next one started, a gap between files, a missing, emptied or shortened file that held
 * committed records (docs/operations.md).
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { readCommitted, writeCommitted } from './committed-file';
import { COMMITTED_FILE_NAME, listDirectory, segmentFileName } from './data-directory';
import { FILE_MODE, fsyncDirectory, removeIfPresent } from './durable-file';
import { JournalError } from './journal-error';
import { FRAME_HEADER_BYTES, findFrameAfter, holdsZeroRun, scanSegment } from './record-frame';
import { readSnapshotFile } from './snapshot-file';

/** Receives the recovered state: first the snapshot (if any), then each record after it, in order. */
export interface RecoveryHandlers {
  /** The newest valid snapshot's state (a Buffer the handler may keep) and the record count it covers. */
  onSnapshot?(state: Buffer, position: number): void | Promise<void>;
  /** One record after the snapshot; `position` is its sequence number. The Buffer is a view: copy to keep. */
  onRecord?(record: Buffer, position: number): void | Promise<void>;
}

/** What recovery found and did. */
export interface RecoveryReport {
  /** File name of the snapshot recovery started from, if there was one. */
  readonly snapshotFile?: string;
  /** Records the snapshot covers (0 without a snapshot). */
  readonly snapshotPosition: number;
  /** Records replayed through `onRecord`. */
  readonly recordsReplayed: number;
  /** Records in the store after recovery: the sequence number the next append gets. */
  readonly position: number;
  /** Bytes cut off the tail of the last segment (0 after a clean shutdown). */
  readonly droppedBytes: number;
  /** Why the tail was cut, when it was. */
  readonly dropReason?: string;
}

/** The segment appends continue in, open for reading and writing. */
export interface ActiveSegment {
  readonly start: number;
  readonly name: string;
  readonly file: FileHandle;
  /** Bytes of whole records in the file. */
  bytes: number;
  /** Records in the file. */
  records: number;
}

export interface RecoveryLimits {
  readonly maxRecordBytes: number;
  readonly maxSnapshotBytes: number;
  /** Bytes that can be written but not yet acknowledged at once (commits in flight times their size). */
  readonly inFlightBytes: number;
}

/** What one file of the directory holds. */
export interface FileFinding {
  readonly name: string;
  readonly state: 'ok' | 'torn tail' | 'corrupt' | 'damaged' | 'missing' | 'empty' | 'superseded';
  /** Where the damage starts, for a torn tail or corruption. */
  readonly offset?: number;
  readonly detail?: string;
}

/** One reason the directory cannot be opened without losing acknowledged records. */
export interface Refusal {
  /** The file at fault, by name in the directory. */
  readonly file: string;
  readonly offset?: number;
  readonly reason: string;
  /**
   * Whether `rosetta store repair` can mend it, keeping everything before the damage: a corrupt
   * segment (cut at the damage), a damaged COMMITTED or fewer records than it says (both rewritten).
   * Records missing before others (a gap, a lost snapshot) cannot be mended.
   */
  readonly repairable: boolean;
}

/** Damage in a segment that `rosetta store repair` can cut: where, and what cutting there removes. */
export interface SegmentDamage {
  readonly name: string;
  readonly offset: number;
  readonly fileBytes: number;
  /** Records before the damage that are kept, counted from the segment's first. */
  readonly recordsBefore: number;
  /** Whole records that check after the damage (read on from the first frame found after it). */
  readonly recordsAfter: number;
  readonly reason: string;
}

/** Everything `examineDirectory` found. Nothing is changed on disk by finding it. */
export interface Examination {
  readonly files: readonly FileFinding[];
  /** Empty when the directory opens without losing an acknowledged record. */
  readonly refusals: readonly Refusal[];
  /** What COMMITTED records, when it is there and sound. */
  readonly committed?: number;
  readonly snapshotFile?: string;
  readonly snapshotPosition: number;
  readonly ignoredSnapshots: readonly { readonly name: string; readonly reason: string }[];
  readonly recordsReplayed: number;
  readonly position: number;
  /** The torn tail recovery would cut. */
  readonly tail?: { readonly name: string; readonly offset: number; readonly droppedBytes: number; readonly reason: string };
  /** The first damaged segment, torn or corrupt. */
  readonly damage?: SegmentDamage;
  /** The last segment, when appends continue in it (it is not wholly covered by the snapshot). */
  readonly last?: { readonly start: number; readonly name: string; readonly records: number; readonly bytes: number };
  /** Segments and snapshots a newer snapshot supersedes. */
  readonly superseded: readonly string[];
  /** Half-written files a crash left. */
  readonly temporaries: readonly string[];
}

/** The message of the error that refuses to open `directory`. */
export function describeRefusals(directory: string, refusals: readonly Refusal[]): string {
  const what = refusals.map(
    (refusal) =>
      `${path.join(directory, refusal.file)}${refusal.offset !== undefined ? ` at offset ${refusal.offset}` : ''}: ${refusal.reason}`,
  );
  return `${what.join('; ')}; refusing to start rather than lose acknowledged records (nothing was changed: see 'rosetta store check' and docs/operations.md)`;
}

/** Reads `directory` and reports what each file holds and what would refuse start-up; changes nothing. */
export async function examineDirectory(directory: string, handlers: RecoveryHandlers, limits: RecoveryLimits): Promise<Examination> {
  const listing = await listDirectory(directory);
  const files: FileFinding[] = [];
  const refusals: Refusal[] = [];
  const refuse = (file: string, reason: string, offset?: number, repairable = true): void => {
    refusals.push(offset === undefined ? { file, reason, repairable } : { file, offset, reason, repairable });
  };
  const refuseGap = (file: string, reason: string): void => refuse(file, reason, undefined, false);

  const committedRead = await readCommitted(directory);
  let committed: number | undefined;
  let listed: readonly string[] = [];
  if (committedRead.state === 'damaged') {
    files.push({ name: COMMITTED_FILE_NAME, state: 'damaged', detail: committedRead.reason });
    refuse(COMMITTED_FILE_NAME, `${committedRead.reason}; it is what tells a whole store from one that lost files`);
  } else if (committedRead.state === 'ok') {
    committed = committedRead.value.committed;
    listed = committedRead.value.files;
    files.push({ name: COMMITTED_FILE_NAME, state: 'ok', detail: `${committed} record(s) committed` });
  }

  // Newest snapshot that passes its checks.
  let snapshotFile: string | undefined;
  let snapshotPosition = 0;
  const ignoredSnapshots: { name: string; reason: string }[] = [];
  for (const candidate of [...listing.snapshots].reverse()) {
    const read = await readSnapshotFile(directory, candidate.name, candidate.position, limits.maxSnapshotBytes);
    if (!read.ok) {
      ignoredSnapshots.push({ name: candidate.name, reason: read.reason });
      continue;
    }
    snapshotFile = candidate.name;
    snapshotPosition = read.position;
    if (handlers.onSnapshot) await handlers.onSnapshot(read.state, read.position);
    break;
  }
  for (const snapshot of listing.snapshots) {
    const ignored = ignoredSnapshots.find((entry) => entry.name === snapshot.name);
    if (ignored !== undefined) files.push({ name: snapshot.name, state: 'damaged', detail: ignored.reason });
    else if (snapshot.name === snapshotFile)
      files.push({ name: snapshot.name, state: 'ok', detail: `covers ${snapshotPosition} record(s)` });
    else files.push({ name: snapshot.name, state: 'superseded' });
  }

  // A segment is wholly covered by the snapshot when the next segment starts at or before it.
  const segments = listing.segments;
  const superseded: string[] = [];
  const live = segments.filter((segment, index) => {
    const next = segments[index + 1];
    if (next !== undefined && next.start <= snapshotPosition) {
      superseded.push(segment.name);
      files.push({ name: segment.name, state: 'superseded' });
      return false;
    }
    return true;
  });

  /** Why records from `first` on are not there: the file that should hold them, as far as it can be named. */
  const missingRecords = (first: number, nextStart: number | undefined, previous: string | undefined): void => {
    const span = nextStart === undefined ? `records from ${first} on` : `records ${first}..${nextStart - 1}`;
    const damagedSnapshot = ignoredSnapshots.find((entry) => listing.snapshots.some((s) => s.name === entry.name && s.position > first));
    const listedSnapshot = listed.find((name) => name.startsWith('snapshot-') && !listing.snapshots.some((s) => s.name === name));
    if (damagedSnapshot !== undefined) {
      refuseGap(damagedSnapshot.name, `${span} are missing: this snapshot, which held them, is damaged (${damagedSnapshot.reason})`);
    } else if (listedSnapshot !== undefined && snapshotFile === undefined) {
      refuseGap(listedSnapshot, `${span} are missing: this snapshot, which COMMITTED lists, is missing`);
    } else if (previous !== undefined) {
      refuseGap(
        previous,
        `${span} are missing: this segment ends at record ${first}${nextStart !== undefined ? ` but the next starts at ${nextStart}` : ''}`,
      );
    } else {
      const name = segmentFileName(first);
      files.push({ name, state: 'missing' });
      refuseGap(name, `${span} are missing: this segment is missing`);
    }
  };

  let expected = snapshotPosition; // sequence number of the next record to replay
  let recordsReplayed = 0;
  let tail: Examination['tail'];
  let damage: SegmentDamage | undefined;
  let last: Examination['last'];
  let previous: string | undefined;

  for (const [index, segment] of live.entries()) {
    if (damage !== undefined) {
      files.push({ name: segment.name, state: 'ok', detail: 'not read: an earlier segment is damaged' });
      continue;
    }
    const isLast = index === live.length - 1;
    if (segment.start > expected) {
      missingRecords(expected, segment.start, previous);
      break;
    }
    if (index > 0 && segment.start < expected) {
      refuseGap(segment.name, `starts at record ${segment.start} but the segment before it ends at ${expected}`);
      break;
    }
    const file = await fs.open(path.join(directory, segment.name), 'r');
    try {
      const { size } = await file.stat();
      let sequence = segment.start;
      const replaying = refusals.length === 0;
      const scan = await scanSegment(file, size, limits.maxRecordBytes, (payload) => {
        const position = sequence++;
        if (position < expected) return undefined; // already in the snapshot
        expected = position + 1;
        recordsReplayed += 1;
        return replaying ? handlers.onRecord?.(payload, position) : undefined;
      });
      previous = segment.name;
      if (isLast && segment.start + scan.records >= snapshotPosition) {
        last = { start: segment.start, name: segment.name, records: scan.records, bytes: scan.validBytes };
      } else if (isLast) {
        superseded.push(segment.name); // ends before the snapshot: everything in it is covered
      }
      if (scan.damage === undefined) {
        files.push({ name: segment.name, state: size === 0 ? 'empty' : 'ok', detail: `${scan.records} record(s)` });
        continue;
      }
      const { offset, reason } = scan.damage;
      const after = await findFrameAfter(file, size, offset, limits.maxRecordBytes);
      let recordsAfter = 0;
      if (after !== undefined) {
        recordsAfter = (await scanSegment(file, size, limits.maxRecordBytes, () => undefined, after)).records;
      }
      damage = { name: segment.name, offset, fileBytes: size, recordsBefore: scan.records, recordsAfter, reason };
      // The commits in flight at a crash can land out of order: a later one on disk, an earlier one a hole.
      const inFlightHole =
        after !== undefined && size - offset <= limits.inFlightBytes && (await holdsZeroRun(file, offset, after, FRAME_HEADER_BYTES));
      if (isLast && (after === undefined || inFlightHole)) {
        tail = { name: segment.name, offset, droppedBytes: size - offset, reason };
        files.push({ name: segment.name, state: 'torn tail', offset, detail: `${scan.records} whole record(s) before it; ${reason}` });
        continue;
      }
      const follows = after === undefined ? '' : `; ${recordsAfter} valid record(s) follow from offset ${after}`;
      files.push({ name: segment.name, state: 'corrupt', offset, detail: `${reason}${follows}` });
      refuse(
        segment.name,
        isLast ? `corrupt: ${reason}${follows}` : `corrupt: ${reason} (a segment before the last one was complete before the next began)`,
        offset,
      );
    } finally {
      await file.close();
    }
  }

  const position = expected;
  if (refusals.length === 0 && committed !== undefined && position < committed) {
    const needed = listed.filter(
      (name) =>
        !listing.segments.some((segment) => segment.name === name) &&
        !listing.snapshots.some((snapshot) => snapshot.name === name) &&
        ((name.startsWith('journal-') && Number.parseInt(name.slice(8, 24), 16) >= snapshotPosition) ||
          (name.startsWith('snapshot-') && Number.parseInt(name.slice(9, 25), 16) > snapshotPosition)),
    );
    const lost = `the files hold ${position} record(s) but ${committed} were committed (COMMITTED)`;
    if (needed.length > 0) {
      for (const name of needed) {
        files.push({ name, state: 'missing' });
        refuse(name, `missing: ${lost}`);
      }
    } else if (tail !== undefined) {
      refuse(tail.name, `cut short: ${tail.reason}; ${lost}`, tail.offset);
    } else if (last !== undefined) {
      refuse(last.name, `${last.bytes === 0 ? 'empty' : 'cut short'}: ${lost}`, last.bytes);
    } else {
      refuse(COMMITTED_FILE_NAME, lost);
    }
  }

  return {
    files,
    refusals,
    ...(committed !== undefined ? { committed } : {}),
    ...(snapshotFile !== undefined ? { snapshotFile } : {}),
    snapshotPosition,
    ignoredSnapshots,
    recordsReplayed,
    position,
    ...(tail !== undefined ? { tail } : {}),
    ...(damage !== undefined ? { damage } : {}),
    ...(last !== undefined ? { last } : {}),
    superseded: [...superseded, ...listing.snapshots.filter((s) => s.position < snapshotPosition).map((s) => s.name)],
    temporaries: listing.temporaries,
  };
}

/** Recovers `directory` (which the caller holds locked). On failure no file handle is left open and nothing on disk changed. */
export async function recoverDirectory(
  directory: string,
  handlers: RecoveryHandlers,
  limits: RecoveryLimits,
  log: (message: string) => void,
): Promise<{ report: RecoveryReport; active: ActiveSegment }> {
  const found = await examineDirectory(directory, handlers, limits);
  for (const { name, reason } of found.ignoredSnapshots) log(`ignoring snapshot ${name}: ${reason}`);
  if (found.refusals.length > 0) throw new JournalError('corrupt', describeRefusals(directory, found.refusals));

  for (const name of found.temporaries) await removeIfPresent(path.join(directory, name));
  let active: ActiveSegment | undefined;
  try {
    if (found.last !== undefined) {
      const file = await fs.open(path.join(directory, found.last.name), 'r+');
      active = { ...found.last, file };
      if (found.tail !== undefined && found.tail.name === found.last.name) {
        await file.truncate(found.tail.offset);
        await file.datasync();
        log(
          `dropped ${found.tail.droppedBytes} byte(s) from the tail of ${found.tail.name} at offset ${found.tail.offset}: ${found.tail.reason}`,
        );
      }
    } else {
      const name = segmentFileName(found.position);
      const file = await fs.open(path.join(directory, name), 'wx+', FILE_MODE);
      active = { start: found.position, name, file, bytes: 0, records: 0 };
      await fsyncDirectory(directory);
    }
    // Only now that recovery succeeded, and best effort (a leftover is harmless, it is superseded).
    for (const name of found.superseded) {
      await removeIfPresent(path.join(directory, name)).catch((error: Error) => log(`could not remove ${name}: ${error.message}`));
    }
    // Best effort too (a full disk must not stop the open): without it the floor is the older one.
    await writeCommitted(directory, found.position).catch((error: Error) =>
      log(`could not record the committed records: ${error.message}`),
    );
  } catch (error) {
    await active?.file.close().catch(() => undefined);
    throw error;
  }

  const report: RecoveryReport = {
    ...(found.snapshotFile !== undefined ? { snapshotFile: found.snapshotFile } : {}),
    snapshotPosition: found.snapshotPosition,
    recordsReplayed: found.recordsReplayed,
    position: found.position,
    droppedBytes: found.tail?.droppedBytes ?? 0,
    ...(found.tail !== undefined ? { dropReason: found.tail.reason } : {}),
  };
  return { report, active };
}

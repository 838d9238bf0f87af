/**
 * Start-up recovery of a journal directory: pick the newest snapshot that passes its checks, replay the
 * records after it in order, cut a torn or corrupt tail off the last segment (saying what was dropped),
 * and hand back the last segment open for appending. Damage anywhere else (a gap between files, a bad
 * record in a segment that was complete before the next one started) is not a crash artefact: recovery
 * refuses with JournalError `corrupt` rather than silently lose acknowledged writes.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { FILE_MODE, fsyncDirectory, removeIfPresent } from './durable-file';
import { listDirectory, segmentFileName } from './data-directory';
import { JournalError } from './journal-error';
import { scanSegment } from './record-frame';
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
}

/** Recovers `directory` (which the caller holds locked). On failure no file handle is left open. */
export async function recoverDirectory(
  directory: string,
  handlers: RecoveryHandlers,
  limits: RecoveryLimits,
  log: (message: string) => void,
): Promise<{ report: RecoveryReport; active: ActiveSegment }> {
  const listing = await listDirectory(directory);
  for (const name of listing.temporaries) await removeIfPresent(path.join(directory, name));

  // Newest snapshot that passes its checks.
  let snapshotFile: string | undefined;
  let snapshotPosition = 0;
  for (const candidate of [...listing.snapshots].reverse()) {
    const read = await readSnapshotFile(directory, candidate.name, candidate.position, limits.maxSnapshotBytes);
    if (!read.ok) {
      log(`ignoring snapshot ${candidate.name}: ${read.reason}`);
      continue;
    }
    snapshotFile = candidate.name;
    snapshotPosition = read.position;
    if (handlers.onSnapshot) await handlers.onSnapshot(read.state, read.position);
    break;
  }

  // A segment is wholly covered by the snapshot when the next segment starts at or before it.
  const segments = listing.segments;
  const obsolete: string[] = [];
  const live = segments.filter((segment, index) => {
    const next = segments[index + 1];
    if (next !== undefined && next.start <= snapshotPosition) {
      obsolete.push(segment.name);
      return false;
    }
    return true;
  });

  let expected = snapshotPosition; // sequence number of the next record to replay
  let recordsReplayed = 0;
  let droppedBytes = 0;
  let dropReason: string | undefined;
  let active: ActiveSegment | undefined;

  const corrupt = (message: string): JournalError =>
    new JournalError('corrupt', `${directory}: ${message}; refusing to start rather than lose acknowledged records`);

  try {
    for (const [index, segment] of live.entries()) {
      const isLast = index === live.length - 1;
      if (segment.start > expected) {
        throw corrupt(`records ${expected}..${segment.start - 1} are missing (${segment.name} starts at ${segment.start})`);
      }
      if (index > 0 && segment.start < expected) {
        throw corrupt(`${segment.name} starts at ${segment.start} but the segment before it ends at ${expected}`);
      }
      const file = await fs.open(path.join(directory, segment.name), isLast ? 'r+' : 'r');
      try {
        const { size } = await file.stat();
        let sequence = segment.start;
        const scan = await scanSegment(file, size, limits.maxRecordBytes, (payload) => {
          const position = sequence++;
          if (position < expected) return undefined; // already in the snapshot
          expected = position + 1;
          recordsReplayed += 1;
          return handlers.onRecord?.(payload, position);
        });
        if (scan.damage !== undefined && !isLast) {
          throw corrupt(`${segment.name} is damaged at offset ${scan.damage.offset} (${scan.damage.reason})`);
        }
        if (scan.damage !== undefined) {
          droppedBytes = size - scan.validBytes;
          dropReason = scan.damage.reason;
          await file.truncate(scan.validBytes);
          await file.datasync();
          log(`dropped ${droppedBytes} byte(s) from the tail of ${segment.name} at offset ${scan.damage.offset}: ${dropReason}`);
        }
        if (isLast && segment.start + scan.records >= expected) {
          active = { start: segment.start, name: segment.name, file, bytes: scan.validBytes, records: scan.records };
        } else {
          if (isLast) obsolete.push(segment.name); // ends before the snapshot: everything in it is covered
          await file.close();
        }
      } catch (error) {
        if (active?.file !== file) await file.close().catch(() => undefined);
        throw error;
      }
    }
    if (active === undefined) {
      const name = segmentFileName(expected);
      const file = await fs.open(path.join(directory, name), 'wx+', FILE_MODE);
      active = { start: expected, name, file, bytes: 0, records: 0 };
      await fsyncDirectory(directory);
    }
  } catch (error) {
    await active?.file.close().catch(() => undefined);
    throw error;
  }

  // Only now that recovery succeeded, and best effort (a leftover is harmless, it is superseded):
  // files the snapshot makes redundant.
  const superseded = [
    ...obsolete,
    ...listing.snapshots.filter((snapshot) => snapshot.position < snapshotPosition).map((snapshot) => snapshot.name),
  ];
  for (const name of superseded) {
    await removeIfPresent(path.join(directory, name)).catch((error: Error) => log(`could not remove ${name}: ${error.message}`));
  }

  const report: RecoveryReport = {
    ...(snapshotFile !== undefined ? { snapshotFile } : {}),
    snapshotPosition,
    recordsReplayed,
    position: expected,
    droppedBytes,
    ...(dropReason !== undefined ? { dropReason } : {}),
  };
  return { report, active };
}

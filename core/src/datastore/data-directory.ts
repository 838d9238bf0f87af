/**
 * The layout of a journal's directory: which file names mean what, and listing them.
 *
 *   LOCK                          owner of the directory (see dir-lock.ts)
 *   COMMITTED                     how many records were committed and in which files (see committed-file.ts)
 *   snapshot-<position>.snap      state after the first <position> records (see snapshot-file.ts)
 *   journal-<start>.log           records <start>, <start>+1, ... framed as in record-frame.ts
 *   PARKED                        data of modules the schema lacks, kept until they return (see parked-file.ts)
 *   *.tmp-*                       a snapshot or COMMITTED being written; left over only by a crash, removed on open
 *
 * Positions are 16 lower-case hex digits so that names sort in position order.
 */
import { promises as fs } from 'node:fs';

/** Name of the file recording what the store committed (committed-file.ts). */
export const COMMITTED_FILE_NAME = 'COMMITTED';

/** Name of the Config datastore's parked-data file (parked-file.ts). */
export const PARKED_FILE_NAME = 'PARKED';

const SNAPSHOT_NAME = /^snapshot-([0-9a-f]{16})\.snap$/;
const SEGMENT_NAME = /^journal-([0-9a-f]{16})\.log$/;
const TEMPORARY_NAME = /\.tmp-[0-9a-z-]+$/;

function hexPosition(position: number): string {
  return position.toString(16).padStart(16, '0');
}

/** File name of the snapshot covering the first `position` records. */
export function snapshotFileName(position: number): string {
  return `snapshot-${hexPosition(position)}.snap`;
}

/** File name of the journal segment whose first record is number `start`. */
export function segmentFileName(start: number): string {
  return `journal-${hexPosition(start)}.log`;
}

/** What a directory holds, each list sorted by position ascending. */
export interface DirectoryListing {
  readonly snapshots: readonly { readonly name: string; readonly position: number }[];
  readonly segments: readonly { readonly name: string; readonly start: number }[];
  /** Half-written snapshot or COMMITTED files a crash left behind. */
  readonly temporaries: readonly string[];
}

function parsePosition(hex: string): number | undefined {
  const value = Number.parseInt(hex, 16);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Lists the journal files in `directory`; names it does not recognise are left alone. */
export async function listDirectory(directory: string): Promise<DirectoryListing> {
  const snapshots: { name: string; position: number }[] = [];
  const segments: { name: string; start: number }[] = [];
  const temporaries: string[] = [];
  for (const name of await fs.readdir(directory)) {
    const snapshot = SNAPSHOT_NAME.exec(name);
    const segment = SEGMENT_NAME.exec(name);
    if (snapshot) {
      const position = parsePosition(snapshot[1]!);
      if (position !== undefined) snapshots.push({ name, position });
    } else if (segment) {
      const start = parsePosition(segment[1]!);
      if (start !== undefined) segments.push({ name, start });
    } else if (
      (name.startsWith('snapshot-') || name.startsWith(`${COMMITTED_FILE_NAME}.`) || name.startsWith(`${PARKED_FILE_NAME}.`)) &&
      TEMPORARY_NAME.test(name)
    ) {
      temporaries.push(name);
    }
  }
  snapshots.sort((a, b) => a.position - b.position);
  segments.sort((a, b) => a.start - b.start);
  return { snapshots, segments, temporaries };
}

/** Suffix for a temporary file unique to this process and call. */
export function temporarySuffix(): string {
  return `.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * The COMMITTED file of a journal directory: how many records the store had committed when it last
 * opened, snapshotted or closed, and which snapshot and segment files held them. Recovery never ends
 * with fewer records than it says: a journal cut short, emptied or removed, or a snapshot removed,
 * after it was written is refused instead of silently starting with less (docs/operations.md).
 *
 *   {"format":1,"committed":<records>,"files":["snapshot-….snap","journal-….log",…]}
 *   crc32 <8 hex digits of the CRC-32 of the first line>
 *
 * Written atomically (durable-file.ts). A reader ignores members it does not know, so later versions
 * may add some without changing `format`; a directory without the file (written by an earlier
 * version, or new) has no floor. Versions before this file ignore it, as any name they do not know.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { COMMITTED_FILE_NAME, listDirectory, temporarySuffix } from './data-directory';
import { replaceFileDurably } from './durable-file';

const FORMAT = 1;

/** What a COMMITTED file records. */
export interface CommittedState {
  /** Records committed: recovery must find at least this many. */
  readonly committed: number;
  /** The snapshot and segment files that held them when it was written. */
  readonly files: readonly string[];
}

/** The COMMITTED file read back: absent, damaged (with why), or its content. */
export type CommittedRead =
  | { readonly state: 'absent' }
  | { readonly state: 'damaged'; readonly reason: string }
  | { readonly state: 'ok'; readonly value: CommittedState };

function encode(value: CommittedState): string {
  const line = JSON.stringify({ format: FORMAT, committed: value.committed, files: value.files });
  return `${line}\ncrc32 ${crc32(line).toString(16).padStart(8, '0')}\n`;
}

/** Parses the text of a COMMITTED file. */
export function decodeCommitted(text: string): CommittedRead {
  if (text.length === 0) return { state: 'damaged', reason: 'the file is empty' };
  const [line = '', check = '', rest] = text.split('\n');
  if (!/^crc32 [0-9a-f]{8}$/.test(check) || (rest !== undefined && rest !== '')) {
    return { state: 'damaged', reason: 'not a COMMITTED file (no checksum line)' };
  }
  if (crc32(line) !== Number.parseInt(check.slice(6), 16)) return { state: 'damaged', reason: 'checksum mismatch' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { state: 'damaged', reason: 'not JSON' };
  }
  const record = parsed as { format?: unknown; committed?: unknown; files?: unknown };
  if (record.format !== FORMAT) return { state: 'damaged', reason: `format ${String(record.format)}, this version reads ${FORMAT}` };
  const { committed, files } = record;
  if (typeof committed !== 'number' || !Number.isSafeInteger(committed) || committed < 0) {
    return { state: 'damaged', reason: 'no record count' };
  }
  if (!Array.isArray(files) || !files.every((name) => typeof name === 'string')) return { state: 'damaged', reason: 'no file list' };
  return { state: 'ok', value: { committed, files: files as string[] } };
}

/** Reads the COMMITTED file of `directory`. */
export async function readCommitted(directory: string): Promise<CommittedRead> {
  let text: string;
  try {
    text = await fs.readFile(path.join(directory, COMMITTED_FILE_NAME), 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    return { state: 'damaged', reason: `unreadable: ${(error as Error).message}` };
  }
  return decodeCommitted(text);
}

/** Records, durably, that `committed` records are in the snapshot and segment files `directory` now holds. */
export async function writeCommitted(directory: string, committed: number): Promise<void> {
  const listing = await listDirectory(directory);
  const files = [...listing.snapshots.map((snapshot) => snapshot.name), ...listing.segments.map((segment) => segment.name)];
  await replaceFileDurably(path.join(directory, COMMITTED_FILE_NAME), encode({ committed, files }), temporarySuffix());
}

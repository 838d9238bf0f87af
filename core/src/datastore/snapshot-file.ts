/**
 * One snapshot file: the owner's whole state as opaque bytes, tagged with the journal position it covers,
 * written atomically (temporary file, fsync, rename, fsync of the directory) and checked on read.
 *
 *   [magic "RSNAPv01"][position: u64 LE][payload length: u64 LE][crc32 of the 24 bytes before + payload: u32 LE][payload]
 *
 * A published snapshot is never torn (rename is atomic and happens after fsync), so a snapshot that fails
 * its checks is damage, reported as such, never silently repaired.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { FILE_MODE, fsyncDirectory, removeIfPresent, writeFully } from './durable-file';
import { snapshotFileName, temporarySuffix } from './data-directory';
import { JournalError } from './journal-error';

const MAGIC = Buffer.from('RSNAPv01', 'ascii');
const HEADER_BYTES = 28;

function encodeHeader(position: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeBigUInt64LE(BigInt(position), 8);
  header.writeBigUInt64LE(BigInt(payload.byteLength), 16);
  header.writeUInt32LE(crc32(payload, crc32(header.subarray(0, 24))), 24);
  return header;
}

/**
 * Writes the snapshot covering the first `position` records into `directory` and makes it durable.
 * Resolves with the file name once renamed into place and the directory is fsync'ed; on failure the
 * temporary file is removed and nothing visible changed.
 */
export async function writeSnapshotFile(directory: string, position: number, state: Uint8Array | string): Promise<string> {
  const payload = typeof state === 'string' ? Buffer.from(state, 'utf8') : state;
  const name = snapshotFileName(position);
  const temporary = path.join(directory, name + temporarySuffix());
  let file: FileHandle | undefined;
  try {
    file = await fs.open(temporary, 'wx', FILE_MODE);
    await writeFully(file, encodeHeader(position, payload), 0);
    await writeFully(file, payload, HEADER_BYTES);
    await file.sync();
    await file.close();
    file = undefined;
    await fs.rename(temporary, path.join(directory, name));
    await fsyncDirectory(directory);
    return name;
  } catch (error) {
    await file?.close().catch(() => undefined);
    await removeIfPresent(temporary).catch(() => undefined);
    throw new JournalError('io', `writing snapshot ${name} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** A snapshot read back and checked, or why it cannot be used. */
export type SnapshotRead =
  | { readonly ok: true; readonly position: number; readonly state: Buffer }
  | { readonly ok: false; readonly reason: string };

/** Reads and checks the snapshot file `name` in `directory`, which its name says covers `expectedPosition` records. */
export async function readSnapshotFile(directory: string, name: string, expectedPosition: number, maxBytes: number): Promise<SnapshotRead> {
  try {
    return await readAndCheck(path.join(directory, name), expectedPosition, maxBytes);
  } catch (error) {
    return { ok: false, reason: `unreadable: ${(error as Error).message}` };
  }
}

async function readAndCheck(file: string, expectedPosition: number, maxBytes: number): Promise<SnapshotRead> {
  const stat = await fs.stat(file);
  if (!stat.isFile()) return { ok: false, reason: 'not a regular file' };
  if (stat.size < HEADER_BYTES) return { ok: false, reason: `${stat.size} byte(s), shorter than the ${HEADER_BYTES}-byte header` };
  if (stat.size - HEADER_BYTES > maxBytes)
    return { ok: false, reason: `payload of ${stat.size - HEADER_BYTES} byte(s) exceeds the ${maxBytes}-byte limit` };
  const bytes = await fs.readFile(file);
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { ok: false, reason: 'not a snapshot file (bad magic)' };
  const position = bytes.readBigUInt64LE(8);
  const length = bytes.readBigUInt64LE(16);
  if (position !== BigInt(expectedPosition))
    return { ok: false, reason: `header says position ${position}, the name says ${expectedPosition}` };
  if (length !== BigInt(bytes.length - HEADER_BYTES))
    return { ok: false, reason: `header says ${length} payload byte(s), the file holds ${bytes.length - HEADER_BYTES}` };
  const state = bytes.subarray(HEADER_BYTES);
  if (bytes.readUInt32LE(24) !== crc32(state, crc32(bytes.subarray(0, 24)))) return { ok: false, reason: 'checksum mismatch' };
  return { ok: true, position: expectedPosition, state };
}

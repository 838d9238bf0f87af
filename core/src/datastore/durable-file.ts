/**
 * The few file-system steps durability rests on, in one place so each is done the same way everywhere:
 * writing a buffer completely, making a directory entry durable (fsync of the directory, without which a
 * new or renamed file can vanish after a power cut even though its data was fsync'ed), replacing a small
 * file atomically, and creating the data directory privately.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

/** Mode of every file the persistence layer creates: owner read/write only (configuration can hold secrets). */
export const FILE_MODE = 0o600;
/** Mode of a data directory the persistence layer creates. */
export const DIRECTORY_MODE = 0o700;

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeFully(file: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let written = 0;
  while (written < data.byteLength) {
    const { bytesWritten } = await file.write(data, written, data.byteLength - written, position + written);
    if (bytesWritten <= 0) throw new Error(`short write: 0 of ${data.byteLength - written} byte(s) at ${position + written}`);
    written += bytesWritten;
  }
}

/** Makes the directory's entries (created, renamed, removed files) durable. */
export async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await fs.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` with `data` so that a crash leaves either the old or the new content, never a mix:
 * a temporary file beside it (`<file><temporarySuffix>`), fsync'ed, renamed over it, and the directory
 * fsync'ed. The temporary file is removed on failure.
 */
export async function replaceFileDurably(file: string, data: Uint8Array | string, temporarySuffix: string): Promise<void> {
  const temporary = file + temporarySuffix;
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(temporary, 'wx', FILE_MODE);
    await writeFully(handle, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, 0);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temporary, file);
    await fsyncDirectory(path.dirname(file));
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await removeIfPresent(temporary).catch(() => undefined);
    throw error;
  }
}

/** Creates `directory` (and missing parents) with DIRECTORY_MODE and makes its creation durable. */
export async function ensureDirectory(directory: string): Promise<void> {
  const target = path.resolve(directory);
  const firstCreated = await fs.mkdir(target, { recursive: true, mode: DIRECTORY_MODE });
  if (firstCreated !== undefined) {
    // Each directory created needs its parent's entry made durable, from the deepest up to the first.
    for (let created = target; ; created = path.dirname(created)) {
      await fsyncDirectory(path.dirname(created));
      if (created === path.resolve(firstCreated) || path.dirname(created) === created) break;
    }
  }
  // A pre-existing path that is a file must fail here, not later with a confusing error.
  const stat = await fs.stat(target);
  if (!stat.isDirectory()) throw new Error(`${target} exists and is not a directory`);
}

/** Removes a file, treating "already gone" as success. */
export async function removeIfPresent(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

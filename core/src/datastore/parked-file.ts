/**
 * The file holding the Config datastore's parked data (parked-data.ts): stored edits of modules the
 * local schema lacks, kept until their module returns. It lives beside the journal as `PARKED`:
 *
 *   {"parked":1,"items":[{"e": stored edit, "a": anchor, "m": [modules]}, ...]}\n
 *   crc32 <8 hex digits of the line above>\n
 *
 * It is replaced atomically (durable-file.ts: temporary file, fsync, rename, fsync of the directory), so
 * a crash leaves the old content or the new one; it is removed when nothing is parked. Values are kept
 * exactly as the journal stored them, sealed secrets included. A file that fails its checksum or its
 * shape is damage and refuses the open by name (JournalError `corrupt`), never cut or ignored: it is the
 * only copy of what it holds.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { PARKED_FILE_NAME, temporarySuffix } from './data-directory';
import { fsyncDirectory, removeIfPresent, replaceFileDurably } from './durable-file';
import type { ParkedEdit } from './edit-record';
import { JournalError } from './journal-error';

const checksum = (text: string): string => crc32(Buffer.from(text, 'utf8')).toString(16).padStart(8, '0');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function damaged(file: string, why: string): JournalError {
  return new JournalError(
    'corrupt',
    `${file} is damaged (${why}); refusing to start rather than lose the parked configuration it holds (data of modules the schema lacks): restore it from a backup, or move it aside to give that data up (docs/operations.md)`,
  );
}

/** Reads the parked edits kept in `directory` (none when there is no file); throws JournalError `corrupt` on damage. */
export async function readParkedFile(directory: string): Promise<ParkedEdit[]> {
  const file = path.join(directory, PARKED_FILE_NAME);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const match = /^(.*)\ncrc32 ([0-9a-f]{8})\n$/s.exec(text);
  if (match === null) throw damaged(file, 'no checksum line');
  if (checksum(match[1]!) !== match[2]) throw damaged(file, 'checksum mismatch');
  let parsed: unknown;
  try {
    parsed = JSON.parse(match[1]!);
  } catch (error) {
    throw damaged(file, (error as Error).message);
  }
  if (!isObject(parsed) || parsed.parked !== 1 || !Array.isArray(parsed.items)) throw damaged(file, 'not a parked-data document');
  return parsed.items.map((item, n) => {
    const ok =
      isObject(item) &&
      isObject(item.e) &&
      Number.isSafeInteger(item.a) &&
      Array.isArray(item.m) &&
      item.m.every((m) => typeof m === 'string');
    if (!ok) throw damaged(file, `item ${n + 1} is not a parked edit`);
    return { edit: item.e as Record<string, unknown>, anchor: item.a as number, modules: item.m as string[] };
  });
}

/** Makes `edits` the parked content of `directory`, durably; removes the file when there are none. */
export async function writeParkedFile(directory: string, edits: readonly ParkedEdit[]): Promise<void> {
  const file = path.join(directory, PARKED_FILE_NAME);
  if (edits.length === 0) {
    await removeIfPresent(file);
    await fsyncDirectory(directory);
    return;
  }
  const body = JSON.stringify({ parked: 1, items: edits.map((p) => ({ e: p.edit, a: p.anchor, m: p.modules })) });
  await replaceFileDurably(file, `${body}\ncrc32 ${checksum(body)}\n`, temporarySuffix());
}

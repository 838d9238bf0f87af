/**
 * How one journal record sits on disk, and how a segment file is read back frame by frame.
 *
 *   [payload length: u32 LE][crc32 over (length bytes, payload): u32 LE][payload]
 *
 * The CRC covers the length too, so a torn or bit-flipped length cannot make a reader trust a span of
 * garbage. Frames carry no sequence number: a segment's file name gives the sequence of its first
 * record and frames are contiguous.
 *
 * Where reading stops early, whether the bytes after are a torn tail or corruption is told by looking
 * for a frame that checks at any byte offset after the damage (`findFrameAfter`), not by following
 * the damaged frame's length: a flipped length byte must not make the reader land, or not land, on the
 * next record by accident.
 */
import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';

/** Bytes before each payload: length and CRC. */
export const FRAME_HEADER_BYTES = 8;

/** Bytes of payload a record would occupy (strings are stored as UTF-8). */
export function payloadByteLength(record: Uint8Array | string): number {
  return typeof record === 'string' ? Buffer.byteLength(record, 'utf8') : record.byteLength;
}

/** Frames one record: a single allocation holding header and payload. */
export function encodeFrame(record: Uint8Array | string): Buffer {
  const payloadBytes = payloadByteLength(record);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payloadBytes);
  frame.writeUInt32LE(payloadBytes, 0);
  if (typeof record === 'string') frame.write(record, FRAME_HEADER_BYTES, 'utf8');
  else frame.set(record, FRAME_HEADER_BYTES);
  frame.writeUInt32LE(frameCrc(frame, 0, payloadBytes), 4);
  return frame;
}

function frameCrc(buffer: Buffer, frameStart: number, payloadBytes: number): number {
  const lengthBytes = buffer.subarray(frameStart, frameStart + 4);
  const payload = buffer.subarray(frameStart + FRAME_HEADER_BYTES, frameStart + FRAME_HEADER_BYTES + payloadBytes);
  return crc32(payload, crc32(lengthBytes));
}

/**
 * The payload of the one frame `frame` should hold (read back at a known offset and length), or why
 * it does not: a length field that disagrees or a failed CRC.
 */
export function decodeFrame(frame: Buffer): Buffer | { readonly damage: string } {
  if (frame.length < FRAME_HEADER_BYTES) return { damage: `a record of ${frame.length} byte(s) has no whole header` };
  const payloadBytes = frame.readUInt32LE(0);
  if (payloadBytes !== frame.length - FRAME_HEADER_BYTES)
    return { damage: `record length ${payloadBytes} where ${frame.length - FRAME_HEADER_BYTES} was written` };
  if (frame.readUInt32LE(4) !== frameCrc(frame, 0, payloadBytes))
    return { damage: `checksum mismatch in a record of ${payloadBytes} byte(s)` };
  return frame.subarray(FRAME_HEADER_BYTES);
}

/** What reading a segment found: the whole frames, and where (and why) reading stopped early. */
export interface SegmentScan {
  /** Whole, checksummed frames read from the start of the file. */
  readonly records: number;
  /** Where those frames end (from the start of the file); everything after is damage (or nothing). */
  readonly validBytes: number;
  /** Set when bytes after `validBytes` could not be read as a frame. */
  readonly damage?: { readonly offset: number; readonly reason: string };
}

/** Reads segments in chunks of this size so a large journal is never loaded whole. */
const READ_CHUNK_BYTES = 1 << 20;

/**
 * Reads frames from the start (or `startOffset`) of an open segment file of `fileBytes` bytes, handing each payload to
 * `onPayload` in order (awaited only when it returns a promise). The payload is a view into a read
 * buffer: copy it to keep it. A handler's throw or rejection ends the scan with that error. Stops at
 * the first frame that is torn, too long or fails its CRC. Memory is bounded by the largest record
 * (at most `maxRecordBytes`) plus one read chunk, whatever the file holds.
 */
export async function scanSegment(
  file: FileHandle,
  fileBytes: number,
  maxRecordBytes: number,
  onPayload: (payload: Buffer) => void | Promise<void>,
  startOffset = 0,
): Promise<SegmentScan> {
  let buffer = Buffer.alloc(0);
  let cursor = 0; // index in `buffer` of the next frame
  let fileOffset = startOffset; // file offset of the first byte not yet read into `buffer`
  let validBytes = startOffset;
  let records = 0;

  // Ensures `buffer` holds at least `needed` bytes from `cursor` on (the caller checked the file has them).
  const fill = async (needed: number): Promise<void> => {
    const leftover = buffer.subarray(cursor);
    const toRead = Math.min(Math.max(needed - leftover.length, READ_CHUNK_BYTES), fileBytes - fileOffset);
    const next = Buffer.allocUnsafe(leftover.length + toRead);
    leftover.copy(next, 0);
    let filled = leftover.length;
    while (filled < next.length) {
      const { bytesRead } = await file.read(next, filled, next.length - filled, fileOffset);
      if (bytesRead === 0) break; // the file shrank under us; treated below as a torn tail
      filled += bytesRead;
      fileOffset += bytesRead;
    }
    buffer = next.subarray(0, filled);
    cursor = 0;
  };

  const damaged = (reason: string): SegmentScan => ({ records, validBytes, damage: { offset: validBytes, reason } });

  for (;;) {
    const remainingInFile = fileBytes - validBytes;
    if (remainingInFile === 0) return { records, validBytes };
    if (remainingInFile < FRAME_HEADER_BYTES) {
      return damaged(`torn record header: ${remainingInFile} byte(s) where a header needs ${FRAME_HEADER_BYTES}`);
    }
    if (buffer.length - cursor < FRAME_HEADER_BYTES) await fill(FRAME_HEADER_BYTES);
    if (buffer.length - cursor < FRAME_HEADER_BYTES) return damaged('file ended while reading a record header');
    const payloadBytes = buffer.readUInt32LE(cursor);
    if (payloadBytes > maxRecordBytes) {
      return damaged(`record length ${payloadBytes} exceeds the ${maxRecordBytes}-byte limit`);
    }
    const frameBytes = FRAME_HEADER_BYTES + payloadBytes;
    if (frameBytes > remainingInFile) {
      return damaged(`torn record: header announces ${payloadBytes} byte(s), ${remainingInFile - FRAME_HEADER_BYTES} remain`);
    }
    if (buffer.length - cursor < frameBytes) await fill(frameBytes);
    if (buffer.length - cursor < frameBytes) return damaged('file ended while reading a record');
    if (buffer.readUInt32LE(cursor + 4) !== frameCrc(buffer, cursor, payloadBytes)) {
      return damaged(`checksum mismatch in a record of ${payloadBytes} byte(s)`);
    }
    const pending: unknown = onPayload(buffer.subarray(cursor + FRAME_HEADER_BYTES, cursor + frameBytes));
    // Await only a real promise: a synchronous handler (the common case) costs no microtask per record.
    if (pending instanceof Promise) await pending;
    cursor += frameBytes;
    validBytes += frameBytes;
    records += 1;
  }
}

/** Reads `length` bytes at `position` (fewer only when the file is shorter). */
async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * The offset of the first whole frame that passes its checks (length within `maxRecordBytes` and the
 * file, CRC) starting at any byte offset after `from`, or undefined when none does: then everything
 * from the damage on is a torn tail. Reads the file in chunks.
 */
export async function findFrameAfter(
  file: FileHandle,
  fileBytes: number,
  from: number,
  maxRecordBytes: number,
): Promise<number | undefined> {
  let windowStart = from + 1;
  while (windowStart + FRAME_HEADER_BYTES <= fileBytes) {
    const window = await readAt(file, windowStart, Math.min(READ_CHUNK_BYTES, fileBytes - windowStart));
    const lastCandidate = window.length - FRAME_HEADER_BYTES;
    if (lastCandidate < 0) return undefined; // the file shrank under us
    for (let index = 0; index <= lastCandidate; index++) {
      const payloadBytes = window.readUInt32LE(index);
      const offset = windowStart + index;
      if (payloadBytes > maxRecordBytes || offset + FRAME_HEADER_BYTES + payloadBytes > fileBytes) continue;
      const inWindow = index + FRAME_HEADER_BYTES + payloadBytes <= window.length;
      const frame = inWindow
        ? window.subarray(index, index + FRAME_HEADER_BYTES + payloadBytes)
        : await readAt(file, offset, FRAME_HEADER_BYTES + payloadBytes);
      if (frame.length === FRAME_HEADER_BYTES + payloadBytes && frame.readUInt32LE(4) === frameCrc(frame, 0, payloadBytes)) return offset;
    }
    windowStart += lastCandidate + 1;
  }
  return undefined;
}

/** Whether bytes `start` to `end` of the file hold a run of at least `run` zero bytes. */
export async function holdsZeroRun(file: FileHandle, start: number, end: number, run: number): Promise<boolean> {
  let zeros = 0;
  for (let position = start; position < end; position += READ_CHUNK_BYTES) {
    const chunk = await readAt(file, position, Math.min(READ_CHUNK_BYTES, end - position));
    for (const byte of chunk) {
      zeros = byte === 0 ? zeros + 1 : 0;
      if (zeros >= run) return true;
    }
    if (chunk.length === 0) break;
  }
  return false;
}

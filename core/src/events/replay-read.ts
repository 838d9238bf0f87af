/**
 * Reading kept events back from the replay log's segment files, by the locations the in-memory index
 * holds (event-index.ts): records that lie close together in one file are read with one read, each
 * frame is checked (length, CRC) and parsed, and must be the event the index says it is. A segment the
 * log's bounds removed before or during the read ends the read early (its events were dropped: the
 * reader is behind the head); any other failure rejects, naming the file. Also the one place an event
 * record's payload is parsed (at open and at replay).
 */
import { promises as fs } from 'node:fs';
import { decodeFrame } from '../datastore/record-frame';
import type { RecordLocation } from './event-index';
import type { StreamEvent } from './types';

/** Records closer than this are read together (the bytes between them are read and skipped). */
const COALESCE_GAP_BYTES = 64 * 1024;

/** A segment's file name and path. */
export interface SegmentFile {
  readonly name: string;
  readonly path: string;
}

/**
 * Reads the events `ids` (in id order) whose records sit at `locations`, a segment at a time;
 * `fileOf` answers a segment's file while the log still has it. Answers fewer (none) when a segment
 * was removed; rejects naming the file when one cannot be read, after logging it.
 */
export async function readCold(
  ids: readonly number[],
  locations: readonly RecordLocation[],
  fileOf: (segment: number) => SegmentFile | undefined,
  log?: (message: string) => void,
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  let run = 0;
  while (run < ids.length) {
    const segment = locations[run]!.segment;
    let end = run + 1;
    while (end < ids.length && locations[end]!.segment === segment) end += 1;
    const file = fileOf(segment);
    if (file === undefined) return events;
    try {
      events.push(...(await readEvents(file.path, ids.slice(run, end), locations.slice(run, end))));
    } catch (error) {
      if (fileOf(segment) === undefined) return events; // removed by the bounds while it was read
      const message = `cannot read the event replay log's ${file.name}: ${(error as Error).message}`;
      log?.(message);
      throw new Error(message);
    }
    run = end;
  }
  return events;
}

export function parseEvent(payload: Buffer, where: string): StreamEvent {
  const event = JSON.parse(payload.toString('utf8')) as StreamEvent;
  if (typeof event?.id !== 'number' || typeof event.stream !== 'string' || typeof event.eventTime !== 'string')
    throw new Error(`${where}: not an event record`);
  return event;
}

/**
 * Reads the events `ids` from `file`, whose records sit at `locations` (in the same order, increasing
 * offsets). Rejects naming the file and offset on a record that does not check or is not the event
 * expected; a missing file rejects with the fs error (code ENOENT).
 */
async function readEvents(file: string, ids: readonly number[], locations: readonly RecordLocation[]): Promise<StreamEvent[]> {
  const handle = await fs.open(file, 'r');
  try {
    const events: StreamEvent[] = [];
    let run = 0;
    while (run < locations.length) {
      // A run: records whose gaps are small enough that reading the gap costs less than another read.
      let last = run;
      while (
        last + 1 < locations.length &&
        locations[last + 1]!.offset - (locations[last]!.offset + locations[last]!.length) <= COALESCE_GAP_BYTES
      )
        last += 1;
      const start = locations[run]!.offset;
      const bytes = locations[last]!.offset + locations[last]!.length - start;
      const buffer = Buffer.allocUnsafe(bytes);
      let filled = 0;
      while (filled < bytes) {
        const { bytesRead } = await handle.read(buffer, filled, bytes - filled, start + filled);
        if (bytesRead === 0)
          throw new Error(`${file} ends at ${start + filled}, before the record at offset ${locations[run]!.offset} was read whole`);
        filled += bytesRead;
      }
      for (let i = run; i <= last; i++) {
        const { offset, length } = locations[i]!;
        const payload = decodeFrame(buffer.subarray(offset - start, offset - start + length));
        if (!Buffer.isBuffer(payload)) throw new Error(`${file} at offset ${offset}: ${payload.damage}`);
        const event = parseEvent(payload, `${file} at offset ${offset}`);
        if (event.id !== ids[i]) throw new Error(`${file} at offset ${offset}: event ${event.id} where ${ids[i]} was written`);
        events.push(event);
      }
      run = last + 1;
    }
    return events;
  } finally {
    await handle.close();
  }
}

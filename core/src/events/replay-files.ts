/**
 * The replay log's files on disk (replay-log.ts says what they hold): the state file and the segment
 * files' names, reading them all back when the log opens (indexing each event as it is read, with
 * where its record sits), and moving a damaged log aside by name.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ensureDirectory, fsyncDirectory } from '../datastore/durable-file';
import { FRAME_HEADER_BYTES, findFrameAfter, scanSegment } from '../datastore/record-frame';
import type { RecordLocation } from './event-index';
import { parseEvent } from './replay-read';
import type { StreamEvent } from './types';

/** Largest event record read back; a longer length field is damage. */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;
export const STATE_FILE = 'replay-log.json';
const SEGMENT_NAME = /^events-(\d{16})\.log$/;

export interface LogState {
  readonly creationTime: string;
  readonly agedTime?: string;
  /** The highest id any earlier log handed out (ids continue after it). */
  readonly lastId: number;
}

export interface Segment {
  /** Its place in the log's sequence of segments (what index entries name). */
  readonly number: number;
  readonly name: string;
  readonly firstId: number;
  /** The highest id in it (firstId - 1 while empty). */
  lastId: number;
}

export function segmentName(firstId: number): string {
  return `events-${String(firstId).padStart(16, '0')}.log`;
}

export async function readState(directory: string): Promise<LogState | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(directory, STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const state = JSON.parse(text) as LogState;
  if (typeof state?.creationTime !== 'string' || typeof state.lastId !== 'number')
    throw new Error(`${STATE_FILE} is not a replay log state`);
  return state;
}

/**
 * Reads every segment in id order, handing each event over with where its record sits (segments are
 * numbered from 0 in order); cuts a torn tail of the last segment.
 */
export async function readSegments(directory: string, onEvent: (event: StreamEvent, location: RecordLocation) => void): Promise<Segment[]> {
  const names = (await fs.readdir(directory)).filter((name) => SEGMENT_NAME.test(name)).sort();
  const segments: Segment[] = [];
  for (const [index, name] of names.entries()) {
    const firstId = Number(SEGMENT_NAME.exec(name)![1]);
    const segment: Segment = { number: index, name, firstId, lastId: firstId - 1 };
    const file = await fs.open(path.join(directory, name), 'r+');
    let offset = 0;
    try {
      const { size } = await file.stat();
      const scan = await scanSegment(file, size, MAX_EVENT_BYTES, (payload) => {
        const event = parseEvent(payload, `${name} record ${segment.lastId - firstId + 2}`);
        segment.lastId = event.id;
        const length = FRAME_HEADER_BYTES + payload.length;
        onEvent(event, { segment: index, offset, length });
        offset += length;
      });
      if (scan.damage) {
        const last = index === names.length - 1;
        const later = await findFrameAfter(file, size, scan.damage.offset, MAX_EVENT_BYTES);
        if (!last || later !== undefined) throw new Error(`${name} at offset ${scan.damage.offset}: ${scan.damage.reason}`);
        // A torn tail: the write a crash cut short was never acknowledged.
        await file.truncate(scan.validBytes);
        await file.sync();
      }
    } finally {
      await file.close();
    }
    segments.push(segment);
  }
  return segments;
}

/** Moves every file of the log into `damaged-<time>/` beside it; answers that folder. */
export async function setAside(directory: string, now: number): Promise<string> {
  const aside = path.join(directory, `damaged-${new Date(now).toISOString().replace(/[:.]/g, '-')}`);
  await ensureDirectory(aside);
  for (const name of await fs.readdir(directory)) {
    if (name === STATE_FILE || SEGMENT_NAME.test(name)) await fs.rename(path.join(directory, name), path.join(aside, name));
  }
  await fsyncDirectory(directory);
  return aside;
}

/**
 * What a stream subscription asks for, read from its request: the query parameters RFC 8040 gives
 * event streams, `start-time` and `stop-time` (§4.8.7-8, RFC 3339 date-and-time) and `filter` (§4.8.4,
 * streams-filter.ts), and the SSE `Last-Event-ID` header. Every other query parameter, a repeated one,
 * an unreadable time, a `stop-time` without `start-time` or not after it, and `start-time` on a stream
 * without replay are 400 `invalid-value` naming the parameter, as on the data resource.
 *
 * A Last-Event-ID that is not an event id (a non-negative integer) is not refused: the client is
 * resumed from the oldest event the replay log holds and told so (streams-sse.ts `replay-gap`), the same
 * answer as for an id older than the log.
 */
import type { IncomingMessage } from 'node:http';
import type { StreamDefinition } from '../events/types';
import type { SchemaContext } from '../yang/schema';
import { badQuery } from './errors';
import { compileEventFilter, type EventFilter } from './streams-filter';

/** RFC 3339 date-and-time (the YANG `date-and-time` pattern): a date, `T`, a time, a zone. */
const DATE_AND_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export interface StreamQuery {
  readonly startTime?: Date;
  readonly stopTime?: Date;
  readonly filter?: EventFilter;
  /** The Last-Event-ID header as sent, when sent (its meaning is read by `resumeAfter`). */
  readonly lastEventId?: string;
}

function parseTime(name: string, value: string): Date {
  const time = DATE_AND_TIME.test(value) ? new Date(value) : undefined;
  if (time === undefined || Number.isNaN(time.getTime())) throw badQuery(name, `'${value.slice(0, 100)}' is not an RFC 3339 date-and-time`);
  return time;
}

function decoded(name: string, text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw badQuery(name, 'is not percent-encoded correctly');
  }
}

/** Reads the subscription's parameters from `req` for `stream` (throws 400 naming what is wrong). */
export function parseStreamQuery(req: IncomingMessage, stream: StreamDefinition, schema: SchemaContext): StreamQuery {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const values = new Map<string, string>();
  for (const pair of q < 0 ? [] : url.slice(q + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decoded('(name)', eq < 0 ? pair : pair.slice(0, eq));
    if (name !== 'start-time' && name !== 'stop-time' && name !== 'filter')
      throw badQuery(name, 'unknown query parameter on an event stream');
    if (values.has(name)) throw badQuery(name, 'given more than once');
    values.set(name, eq < 0 ? '' : decoded(name, pair.slice(eq + 1)));
  }
  const start = values.get('start-time');
  const stop = values.get('stop-time');
  const filter = values.get('filter');
  const startTime = start === undefined ? undefined : parseTime('start-time', start);
  const stopTime = stop === undefined ? undefined : parseTime('stop-time', stop);
  if (startTime !== undefined && !stream.replay) throw badQuery('start-time', `stream '${stream.name}' does not support replay`);
  if (stopTime !== undefined && startTime === undefined) throw badQuery('stop-time', 'needs start-time');
  if (stopTime !== undefined && startTime !== undefined && stopTime.getTime() < startTime.getTime())
    throw badQuery('stop-time', 'is before start-time');
  if (filter !== undefined && filter.trim() === '') throw badQuery('filter', 'is empty');
  const lastEventId = req.headers['last-event-id'];
  return {
    ...(startTime !== undefined ? { startTime } : {}),
    ...(stopTime !== undefined ? { stopTime } : {}),
    ...(filter !== undefined ? { filter: compileEventFilter(filter, schema) } : {}),
    ...(typeof lastEventId === 'string' ? { lastEventId } : {}),
  };
}

/** The id a Last-Event-ID header resumes after, or 'unreadable' when it is not an event id. */
export function resumeAfter(lastEventId: string): number | 'unreadable' {
  const text = lastEventId.trim();
  if (!/^\d{1,15}$/.test(text)) return 'unreadable';
  return Number(text);
}

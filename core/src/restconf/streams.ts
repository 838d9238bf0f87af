/**
 * The event stream resource (RFC 8040 §6.3): `/rests/streams/{json|xml}/<name>` (OpenDaylight's shape;
 * the name percent-encoded), the locations the discovery list gives (streams-monitoring.ts). A GET holds
 * the response open and sends the stream's events as Server-Sent Events (streams-sse.ts) in the
 * location's encoding, from the event hub (events/): replayed ones first when `start-time` or
 * `Last-Event-ID` asks, then live ones, until `stop-time`, the client leaving, or the hub ending it.
 *
 * Choices, written down:
 * - `Accept`: `text/event-stream` (RFC 8040 §6.3 has the client send it); a missing header, `*\/*` and
 *   `text/*` are taken to mean it too, as the rest of the service reads them; any other type is 406.
 * - HEAD answers the headers a GET would, without subscribing; OPTIONS the read-only `Allow`; any other
 *   method 405. An unknown encoding or stream is 404 (`invalid-value`).
 * - Query parameters and Last-Event-ID: streams-query.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type EventHub, nodeStreamName } from '../events';
import type { StreamEvent, SubscriptionOptions } from '../events/types';
import type { RestconfContext } from './context';
import { methodNotAllowed, unknownResource } from './errors';
import { responseType, type MediaType } from './media';
import { ALLOW, answerOptions } from './options';
import { SseSink, sseMessage } from './streams-sse';
import { parseStreamQuery, resumeAfter } from './streams-query';

/** Where event streams are served. */
export const STREAMS = '/rests/streams';
/** What a device's own stream is named before its node-id (events/streams.ts `nodeStreamName`). */
const NODE_STREAM_PREFIX = nodeStreamName('');

/** The part of the event hub the stream resource and the discovery list read. */
export type StreamHub = Pick<EventHub, 'stream' | 'streams' | 'subscribe' | 'replayState' | 'encode' | 'settings'>;

export type StreamEncoding = 'json' | 'xml';

const EVENT_STREAM: readonly MediaType[] = [{ type: 'text/event-stream', encoding: 'json', yangPatch: false }];

/** A stream's location path (percent-encoded name) in one encoding. */
export function streamPath(name: string, encoding: StreamEncoding): string {
  return `${STREAMS}/${encoding}/${encodeURIComponent(name)}`;
}

/** The encoding and stream name a path under `/rests/streams` names, or a 404. */
function locate(rest: string): { encoding: StreamEncoding; name: string } {
  const m = /^\/(json|xml)\/([^/]+)\/?$/.exec(rest);
  if (m === null) throw unknownResource(`${STREAMS}${rest.slice(0, 200)} is not an event stream location`);
  let name: string;
  try {
    name = decodeURIComponent(m[2]!);
  } catch {
    throw unknownResource(`${STREAMS}${rest.slice(0, 200)} is not an event stream location`);
  }
  return { encoding: m[1] as StreamEncoding, name };
}

/** Serves a request for `/rests/streams<rest>`. */
export function serveStream(ctx: RestconfContext, req: IncomingMessage, res: ServerResponse, rest: string): void {
  const { encoding, name } = locate(rest);
  const hub = ctx.events;
  const stream = hub?.stream(name);
  if (hub === undefined || stream === undefined) {
    // a device's own stream lives on the instance that owns the device: the subscription goes there
    const away = name.startsWith(NODE_STREAM_PREFIX) ? ctx.mount?.elsewhere(name.slice(NODE_STREAM_PREFIX.length)) : undefined;
    if (away !== undefined) throw away;
    throw unknownResource(`no event stream is named '${name.slice(0, 200)}'`);
  }
  const method = req.method ?? '';
  if (method === 'OPTIONS') {
    answerOptions(res, ALLOW.readOnly);
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, 'an event stream is read-only');
  responseType(req.headers.accept, EVENT_STREAM);
  const query = parseStreamQuery(req, stream, ctx.schema);
  // Set as headers (not writeHead's argument) so that the service can tell an event stream when it stops.
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no'); // proxies that buffer responses (nginx) pass this one through as it comes
  res.statusCode = 200;
  if (method === 'HEAD') {
    res.end();
    return;
  }
  const sink = new SseSink(res, {
    encoding,
    encode: (event: StreamEvent) => hub.encode(event, encoding),
    keepAliveMs: hub.settings.keepAliveSeconds * 1000,
  });
  let afterId: number | undefined;
  if (query.lastEventId !== undefined && stream.replay) {
    const resumed = resumeAfter(query.lastEventId);
    const state = hub.replayState();
    if (resumed === 'unreadable') {
      afterId = 0;
      sink.notice('replay-gap', {
        reason: 'Last-Event-ID is not an event id; resuming from the oldest event the replay log holds',
        'last-event-id': query.lastEventId.slice(0, 100),
        ...(state.firstId !== undefined ? { 'first-id': state.firstId } : {}),
        ...(state.agedTime !== undefined ? { 'replay-log-aged-time': state.agedTime } : {}),
      });
    } else {
      afterId = resumed;
      if (state.agedTime !== undefined && (state.firstId === undefined || resumed + 1 < state.firstId))
        sink.notice('replay-gap', {
          reason: 'events after Last-Event-ID were dropped from the replay log; resuming from the oldest it holds',
          'last-event-id': resumed,
          ...(state.firstId !== undefined ? { 'first-id': state.firstId } : {}),
          'replay-log-aged-time': state.agedTime,
        });
    }
  }
  const options: SubscriptionOptions = {
    ...(query.startTime !== undefined ? { startTime: query.startTime } : {}),
    ...(query.stopTime !== undefined ? { stopTime: query.stopTime } : {}),
    ...(afterId !== undefined ? { afterId } : {}),
    ...(query.filter !== undefined ? { accept: query.filter } : {}),
  };
  try {
    sink.attach(hub.subscribe(name, options, sink));
  } catch (err) {
    // The sink lets its timer go when the response closes, whichever way it ends below.
    if (!res.headersSent) {
      // Nothing was written: the refusal (the hub's EventError, a fault) gets the error envelope.
      for (const header of res.getHeaderNames()) res.removeHeader(header);
      throw err;
    }
    // A replay-gap notice went out already: the refusal can only be told in the stream.
    ctx.log.error(`subscribing to event stream '${name}' failed: ${err instanceof Error ? err.message : String(err)}`);
    res.end(sseMessage({ event: 'error' }, JSON.stringify({ reason: 'subscribe-failed', message: String(err) })));
    return;
  }
  // The headers go out now, whether or not the replay wrote anything: a client waiting on a quiet
  // stream knows it is subscribed.
  if (!res.headersSent) res.flushHeaders();
}

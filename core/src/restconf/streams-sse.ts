/**
 * One subscription's end of the wire: an `EventSink` writing Server-Sent Events (the WHATWG HTML
 * "server-sent events" format) on an HTTP response. Each event is one message: `id:` the event's id,
 * then its notification text (RFC 8040 §6.4) in `data:` lines, one per line of the text, then a blank
 * line. An idle stream gets a `: keep-alive` comment line every keep-alive interval, so that proxies do
 * not cut it.
 *
 * Messages that are not notifications are named events (`event: <name>`), which a browser's EventSource
 * hands only to listeners of that name, never to `onmessage`:
 * - `replay-gap`: the Last-Event-ID the client resumed from is older than the replay log, or unreadable;
 *   the data says what the log still holds (replay-log-aged-time, the first id kept);
 * - `error`: the hub ended the subscription (the client fell too far behind, the stream was removed, or
 *   events to replay could not be read from the replay log's files); the data names the reason and the
 *   last id delivered, to resume from. The response then ends.
 *
 * Cost: a delivery is written per batch of events (the hub's group commit, a replay read), as one
 * write of bytes built once per event and encoding (and once per batch) and shared by every subscriber
 * of that encoding: an unfiltered subscriber writes the very Buffer all others write. With a thousand
 * subscribers, what is left per event per subscriber is the socket write, shared by the batch.
 *
 * Backpressure: when `res.write` answers false the sink tells the hub (`deliver` answers false) and calls
 * `drained()` on the response's 'drain'. The client going away closes the subscription at once.
 */
import type { ServerResponse } from 'node:http';
import type { StreamEvent, EventSink, Subscription, SubscriptionEnd } from '../events/types';

/** The SSE text of one message: `id:`/`event:` fields, the text as `data:` lines, a blank line. */
export function sseMessage(fields: { readonly id?: number; readonly event?: string }, text: string): string {
  let out = '';
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  // A line break of any kind ends an SSE line, so each line of the text is its own data line.
  for (const line of text.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** One encoding's SSE messages, kept as long as their events (or batches) are. */
interface MessageCache {
  readonly events: WeakMap<StreamEvent, Buffer>;
  readonly batches: WeakMap<readonly StreamEvent[], Buffer>;
}

const messageCaches = new Map<string, MessageCache>();

/**
 * The SSE messages of `events` as one Buffer, built once per encoding for each event and for each
 * batch: every subscriber handed the same event or the same batch array writes the same bytes.
 */
export function sseMessages(events: readonly StreamEvent[], encoding: string, encode: (event: StreamEvent) => string): Buffer {
  let cache = messageCaches.get(encoding);
  if (cache === undefined) {
    cache = { events: new WeakMap(), batches: new WeakMap() };
    messageCaches.set(encoding, cache);
  }
  const message = (event: StreamEvent): Buffer => {
    let bytes = cache.events.get(event);
    if (bytes === undefined) {
      bytes = Buffer.from(sseMessage({ id: event.id }, encode(event)), 'utf8');
      cache.events.set(event, bytes);
    }
    return bytes;
  };
  if (events.length === 1) return message(events[0]!);
  let bytes = cache.batches.get(events);
  if (bytes === undefined) {
    bytes = Buffer.concat(events.map(message));
    cache.batches.set(events, bytes);
  }
  return bytes;
}

export interface SseSinkOptions {
  /** The stream's encoding: the name SSE messages are cached under (`json`, `xml`). */
  readonly encoding: string;
  /** The event's notification text in the stream's encoding (the hub's cached encoding). */
  readonly encode: (event: StreamEvent) => string;
  /** How long the stream may be silent before a keep-alive comment; 0: never. */
  readonly keepAliveMs: number;
}

export class SseSink implements EventSink {
  private subscription: Subscription | undefined;
  private lastDeliveredId: number | undefined;
  private wroteSinceTick = false;
  private readonly keepAlive: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SseSinkOptions,
  ) {
    if (options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.tick(), options.keepAliveMs);
      this.keepAlive.unref();
    }
    res.on('drain', () => this.subscription?.drained());
    res.once('close', () => this.finish());
  }

  /** Binds the subscription the hub made for this sink (its events may have started already). */
  attach(subscription: Subscription): void {
    this.subscription = subscription;
    if (this.finished) subscription.close();
  }

  /** Writes a named message that is not a notification (see the top of this file). */
  notice(event: string, data: Record<string, unknown>): void {
    this.write(sseMessage({ event }, JSON.stringify(data)));
  }

  deliver(event: StreamEvent): boolean {
    return this.deliverBatch([event]);
  }

  deliverBatch(events: readonly StreamEvent[]): boolean {
    const last = events[events.length - 1];
    if (this.finished || last === undefined) return true;
    this.lastDeliveredId = last.id;
    return this.write(sseMessages(events, this.options.encoding, this.options.encode));
  }

  end(why: SubscriptionEnd): void {
    if (this.finished) return;
    if (why.reason === 'too-slow') {
      const last = why.lastDeliveredId ?? this.lastDeliveredId;
      this.notice('error', {
        reason: 'too-slow',
        message: 'the subscriber fell too far behind and was closed; resume with Last-Event-ID',
        ...(last !== undefined ? { 'last-delivered-id': last } : {}),
      });
    } else if (why.reason === 'stream-removed') {
      this.notice('error', { reason: 'stream-removed', message: 'the stream was removed' });
    } else if (why.reason === 'replay-failed') {
      const last = this.lastDeliveredId;
      this.notice('error', {
        reason: 'replay-failed',
        message: why.message,
        ...(last !== undefined ? { 'last-delivered-id': last } : {}),
      });
    }
    this.subscription = undefined; // the hub has let it go already
    this.finish();
    this.res.end();
  }

  private write(text: string | Buffer): boolean {
    if (this.res.writableEnded || this.res.destroyed) return true;
    this.wroteSinceTick = true;
    return this.res.write(text);
  }

  /** A keep-alive comment when nothing was written since the last tick. */
  private tick(): void {
    if (!this.wroteSinceTick && !this.res.writableEnded && !this.res.destroyed) this.res.write(': keep-alive\n\n');
    this.wroteSinceTick = false;
  }

  /** The response is done or the client gone: free the timer and the hub's subscriber. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    const subscription = this.subscription;
    this.subscription = undefined;
    subscription?.close();
  }
}

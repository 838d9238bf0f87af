/**
 * The event hub: the streams the service offers, one sequence of event ids across them, and the fan-out
 * from producers to subscribers (types.ts says who calls what). The service opens one at start
 * (service/service.ts) and hands it to the producers and to the RESTCONF stream resource.
 *
 * `publish` numbers the event in call order; an event of a replay stream is written to the replay log
 * (replay-log.ts) and offered to the stream's subscribers only once durable, in id order, by the log
 * itself, so a subscriber can never see an event a restart would lose, nor a replayed and a live copy
 * of one event (subscription.ts). An event of a stream without replay is offered at once. The events
 * of one group commit are offered as one batch, so that each subscriber can send them in one write.
 * Each event's text is encoded at most once per encoding, however many subscribers send it.
 *
 * Fan-out is paced: what one costs (a socket write per subscriber) is paid per fan-out, not per
 * event, so under load the hub gathers the events made durable and offers them at most once per
 * `deliveryIntervalMs`. A fan-out comes at once when the last one is older than the interval, so an
 * idle stream's event waits for nothing; only events following close behind another wait, at most
 * the interval. Events wait in id order and are offered in it, so what a subscription guarantees
 * (subscription.ts: order, no gap, no duplicate, bounded buffer) is unchanged.
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SchemaContext } from '../yang/schema';
import { encodeJsonNotification, encodeXmlNotification, namespacesOf, type NamespaceOf } from './encode';
import { EventError } from './errors';
import { ReplayLog } from './replay-log';
import { StreamSubscription } from './subscription';
import type { EventInput, EventSink, ReplayState, StreamDefinition, StreamEvent, Subscription, SubscriptionOptions } from './types';

/** The `events` settings of the service configuration (service/config.ts), with their defaults there. */
export interface EventSettings {
  /** Events the replay log keeps at most (the oldest are dropped first). */
  readonly replayMaxEvents: number;
  /** Seconds an event stays in the replay log at most. */
  readonly replayMaxAgeSeconds: number;
  /** Bytes of events the replay log keeps at most on disk. */
  readonly replayMaxBytes: number;
  /** Live events a subscriber may be behind before it is ended `too-slow`. */
  readonly subscriberBufferEvents: number;
  /** Idle seconds between SSE keep-alive comments (read by the RESTCONF stream resource). */
  readonly keepAliveSeconds: number;
  /** Milliseconds between two fan-outs at least; events made durable in between wait for the next. 0: none. */
  readonly deliveryIntervalMs: number;
}

/** The default pace of fan-outs (docs/operations.md "Measuring event streams" says how it was chosen). */
const DELIVERY_INTERVAL_MS = 10;

export const DEFAULT_EVENT_SETTINGS: EventSettings = {
  replayMaxEvents: 100_000,
  replayMaxAgeSeconds: 86_400,
  replayMaxBytes: 1024 * 1024 * 1024,
  subscriberBufferEvents: 1000,
  keepAliveSeconds: 15,
  deliveryIntervalMs: DELIVERY_INTERVAL_MS,
};

export interface EventHubOptions {
  /** The replay log's folder (`<dataDir>/events`). */
  readonly directory: string;
  readonly settings?: Partial<EventSettings>;
  /** The local schema in force: the XML encoding takes module namespaces from it. */
  readonly schema?: () => SchemaContext | undefined;
  readonly log?: (message: string) => void;
  /** The clock (tests); default Date.now. */
  readonly now?: () => number;
  /**
   * Every event is numbered elsewhere and published with its id (several instances sharing a database:
   * database/cluster-events.ts numbers them all); a publish without one is refused.
   */
  readonly numberedElsewhere?: boolean;
}

/** The folder of the replay log under the service's data folder. */
export function eventsDirectory(dataDir: string): string {
  return path.join(dataDir, 'events');
}

interface EncodedText {
  json?: string;
  xml?: string;
}

export class EventHub {
  readonly settings: EventSettings;
  private readonly definitions = new Map<string, StreamDefinition>();
  private readonly subscribers = new Map<string, Set<StreamSubscription>>();
  private readonly encoded = new WeakMap<StreamEvent, EncodedText>();
  private readonly namespaceOf: NamespaceOf;
  private readonly now: () => number;
  private log!: ReplayLog;
  private closing: Promise<void> | undefined;
  /** When the last fan-out ran (a monotonic clock: the hub's may be a test's), and the events waiting for the next one, in id order. */
  private lastFanOutAt = Number.NEGATIVE_INFINITY;
  private waiting: StreamEvent[] = [];
  private fanOutTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly options: EventHubOptions) {
    this.settings = { ...DEFAULT_EVENT_SETTINGS, ...options.settings };
    this.namespaceOf = namespacesOf(options.schema ?? (() => undefined));
    this.now = options.now ?? Date.now;
  }

  /** Opens the hub and its replay log (which continues where the last run stopped). */
  static async open(options: EventHubOptions): Promise<EventHub> {
    const hub = new EventHub(options);
    hub.log = await ReplayLog.open({
      directory: options.directory,
      maxEvents: hub.settings.replayMaxEvents,
      maxAgeSeconds: hub.settings.replayMaxAgeSeconds,
      maxBytes: hub.settings.replayMaxBytes,
      now: hub.now,
      onDurable: (events) => hub.pace(events),
      ...(options.log ? { log: options.log } : {}),
    });
    return hub;
  }

  /** Adds a stream; defining a stream of the same name again changes nothing. */
  defineStream(def: StreamDefinition): void {
    if (!this.definitions.has(def.name)) this.definitions.set(def.name, def);
  }

  /** Removes a stream and ends its subscriptions (`stream-removed`); its kept events age out with the log. */
  removeStream(name: string): void {
    if (!this.definitions.delete(name)) return;
    for (const subscription of [...(this.subscribers.get(name) ?? [])]) subscription.end({ reason: 'stream-removed' });
    this.subscribers.delete(name);
  }

  streams(): readonly StreamDefinition[] {
    return [...this.definitions.values()];
  }

  stream(name: string): StreamDefinition | undefined {
    return this.definitions.get(name);
  }

  /** The last id given, here or (`numberedElsewhere`) by whoever numbers the events. */
  get lastId(): number {
    return this.log.lastId;
  }

  /**
   * Numbers the event (or gives it `id`, numbered elsewhere: one the log holds already is not published
   * again) and hands it to the stream's subscribers; for a replay stream, once it is durable in the
   * replay log. Rejects with EventError `unknown-stream`, or when the log cannot write.
   */
  async publish(stream: string, input: EventInput, id?: number): Promise<StreamEvent> {
    const def = this.definitions.get(stream);
    if (def === undefined) throw new EventError('unknown-stream', `no stream named '${stream}'`);
    if (this.closing) throw new Error('the event hub is closed');
    if (id === undefined && this.options.numberedElsewhere === true)
      throw new Error(`an event of ${stream} without an id: events are numbered by the database here`);
    const time = input.eventTime ?? new Date(this.now()).toISOString();
    if (id !== undefined && id <= this.log.lastId) return { ...input, id, stream, eventTime: time };
    const event: StreamEvent = { ...input, id: this.log.nextId(id), stream, eventTime: time };
    if (def.replay) await this.log.append(event);
    else this.pace([event]);
    return event;
  }

  /**
   * Subscribes `sink` to a stream. Throws EventError: `unknown-stream`; `replay-unsupported` for a
   * `startTime` on a stream without replay; `bad-range` for a `stopTime` without a `startTime` or
   * before it. A resume point (`afterId`) older than the log's head starts at the head: what was
   * missed is told by `replayState()` (its firstId and agedTime).
   */
  subscribe(stream: string, options: SubscriptionOptions, sink: EventSink): Subscription {
    const def = this.definitions.get(stream);
    if (def === undefined) throw new EventError('unknown-stream', `no stream named '${stream}'`);
    if (options.startTime !== undefined && !def.replay)
      throw new EventError('replay-unsupported', `stream '${stream}' keeps no replay log: start-time cannot be used`);
    if (options.stopTime !== undefined && options.startTime === undefined)
      throw new EventError('bad-range', 'stop-time needs a start-time');
    if (options.stopTime !== undefined && options.startTime !== undefined && options.stopTime < options.startTime)
      throw new EventError('bad-range', 'stop-time is before start-time');
    if (this.closing) throw new Error('the event hub is closed');
    let replayAfter: number | undefined;
    // numbered elsewhere, an id past this log's is one this instance has yet to take in: not given twice
    if (def.replay && options.afterId !== undefined)
      replayAfter = this.options.numberedElsewhere === true ? options.afterId : Math.min(options.afterId, this.log.lastDurableId);
    else if (def.replay && options.startTime !== undefined) replayAfter = this.log.idBeforeTime(stream, options.startTime);
    if (replayAfter !== undefined) replayAfter = Math.max(replayAfter, this.log.droppedThrough(stream));
    let set = this.subscribers.get(stream);
    if (set === undefined) {
      set = new Set();
      this.subscribers.set(stream, set);
    }
    const subscribers = set;
    const subscription = new StreamSubscription(
      def,
      options,
      sink,
      {
        log: this.log,
        bufferEvents: this.settings.subscriberBufferEvents,
        now: this.now,
        detach: (s) => subscribers.delete(s),
      },
      replayAfter,
    );
    // Registered for live events before the replay reads the log: nothing falls between the two.
    subscribers.add(subscription);
    subscription.start();
    return subscription;
  }

  /** How many subscriptions are live, on one stream or on all (a client that left must not stay counted). */
  subscriberCount(stream?: string): number {
    if (stream !== undefined) return this.subscribers.get(stream)?.size ?? 0;
    let n = 0;
    for (const set of this.subscribers.values()) n += set.size;
    return n;
  }

  /** What the replay log can still give (RFC 8040 replay-log-creation-time, replay-log-aged-time). */
  replayState(): ReplayState {
    const firstId = this.log.firstId;
    const agedTime = this.log.agedTime;
    return {
      creationTime: this.log.creationTime,
      ...(agedTime !== undefined ? { agedTime } : {}),
      ...(firstId !== undefined ? { firstId } : {}),
    };
  }

  /** The event as one RFC 8040 §6.4 notification text; encoded once per encoding and kept with the event. */
  encode(event: StreamEvent, encoding: 'json' | 'xml'): string {
    let text = this.encoded.get(event);
    if (text === undefined) {
      text = {};
      this.encoded.set(event, text);
    }
    if (encoding === 'json') {
      text.json ??= encodeJsonNotification(event);
      return text.json;
    }
    text.xml ??= encodeXmlNotification(event, this.namespaceOf);
    return text.xml;
  }

  /** Ends every subscription (`closed`), waits for queued publishes to be durable, closes the log. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.fanOutTimer !== undefined) clearTimeout(this.fanOutTimer);
      this.fanOutTimer = undefined;
      this.waiting = [];
      for (const set of this.subscribers.values()) for (const subscription of [...set]) subscription.end({ reason: 'closed' });
      this.subscribers.clear();
      await this.log.close();
    })();
    return this.closing;
  }

  /**
   * Fans `events` out now when the last fan-out is older than the interval; else they wait, with any
   * already waiting, for the fan-out the interval allows next.
   */
  private pace(events: readonly StreamEvent[]): void {
    if (this.closing) return; // every subscription has ended; what the log still flushes has no one to go to
    const interval = this.settings.deliveryIntervalMs;
    if (this.fanOutTimer === undefined) {
      const sinceLast = performance.now() - this.lastFanOutAt;
      if (interval <= 0 || sinceLast >= interval) {
        this.lastFanOutAt = performance.now();
        this.fanOut(events);
        return;
      }
      this.fanOutTimer = setTimeout(() => this.fanOutWaiting(), interval - sinceLast);
    }
    for (const event of events) this.waiting.push(event);
  }

  private fanOutWaiting(): void {
    this.fanOutTimer = undefined;
    const events = this.waiting;
    this.waiting = [];
    this.lastFanOutAt = performance.now();
    this.fanOut(events);
  }

  /**
   * Offers events made durable together (one group commit) to their streams' subscribers, each
   * stream's events as one batch, so that a subscriber writes them with one write. The usual batch is
   * of one stream and goes as it is: every subscriber is handed the same array.
   */
  private fanOut(events: readonly StreamEvent[]): void {
    const stream = events[0]?.stream;
    if (stream === undefined) return;
    if (events.every((event) => event.stream === stream)) {
      this.offer(stream, events);
      return;
    }
    const byStream = new Map<string, StreamEvent[]>();
    for (const event of events) {
      const batch = byStream.get(event.stream);
      if (batch === undefined) byStream.set(event.stream, [event]);
      else batch.push(event);
    }
    for (const [name, batch] of byStream) this.offer(name, batch);
  }

  private offer(stream: string, events: readonly StreamEvent[]): void {
    const set = this.subscribers.get(stream);
    if (set === undefined) return;
    // A subscription that ends while offered leaves the set; iterating a Set tolerates that.
    for (const subscription of set) subscription.offer(events);
  }
}

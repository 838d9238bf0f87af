/**
 * One subscriber of one stream: where it starts, what it lets through, and how far behind it may fall.
 *
 * A subscription starts in replay (a `start-time` or `Last-Event-ID` on a replay stream) or live. In
 * replay it pulls the stream's events from the replay log after the last id it handed over, a batch at
 * a time and only while its sink takes them, so a long replay costs no buffer; live events are then in
 * the log already and are not buffered twice. Once a pull comes back empty it is live: the hub offers
 * it each event as the event becomes durable. The switch happens inside one synchronous step, and
 * every event is checked against the last id handed over, so the seam has neither a gap nor a duplicate.
 *
 * Live events wait in a buffer while the sink is full; a subscriber more than `bufferEvents` behind is
 * ended `too-slow` with the last id it received (it may resume from there), so a slow client never
 * grows the service's memory and never holds up the others.
 */
import type { ReplayLog } from './replay-log';
import type { EventSink, StreamDefinition, StreamEvent, Subscription, SubscriptionEnd, SubscriptionOptions } from './types';

/** Events read from the replay log per pull. */
const REPLAY_BATCH = 256;
/** setTimeout's longest delay; a later stop-time re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SubscriptionSource {
  readonly log: ReplayLog;
  readonly bufferEvents: number;
  /** Called once when the subscription ends, whatever ended it. */
  readonly detach: (subscription: StreamSubscription) => void;
  readonly now: () => number;
}

export class StreamSubscription implements Subscription {
  private mode: 'replay' | 'live';
  /** The last id handed to the sink or skipped by it (filtered, or queued). */
  private lastId: number;
  private lastDeliveredId: number | undefined;
  private readonly queue: StreamEvent[] = [];
  private paused = false;
  private pumping = false;
  private ended = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly stream: StreamDefinition,
    private readonly options: SubscriptionOptions,
    private readonly sink: EventSink,
    private readonly source: SubscriptionSource,
    /** Replay the stream's kept events after this id; undefined: live only. */
    replayAfter: number | undefined,
  ) {
    this.mode = replayAfter === undefined ? 'live' : 'replay';
    this.lastId = replayAfter ?? source.log.lastDurableId;
    if (options.stopTime !== undefined) this.armStopTimer();
  }

  /** Starts the replay (after the hub registered the subscription for live events). */
  start(): void {
    this.pump();
  }

  /** A new event of the stream, durable (replay streams) or just published. */
  offer(event: StreamEvent): void {
    if (this.ended || event.id <= this.lastId) return;
    // In replay the event is read from the log when the pull reaches it.
    if (this.mode === 'replay' && this.stream.replay) return;
    if (this.paused || this.queue.length > 0) {
      this.queue.push(event);
      this.lastId = event.id;
      if (this.queue.length > this.source.bufferEvents) this.end({ reason: 'too-slow', lastDeliveredId: this.lastDeliveredId });
      return;
    }
    this.hand(event);
  }

  drained(): void {
    if (this.ended) return;
    this.paused = false;
    this.pump();
  }

  close(): void {
    this.finish();
  }

  /** Ends the subscription and tells the sink why. */
  end(why: SubscriptionEnd): void {
    if (this.ended) return;
    this.finish();
    this.sink.end(why);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.source.detach(this);
  }

  private pump(): void {
    if (this.pumping) return; // a sink that calls drained() from deliver() re-enters here
    this.pumping = true;
    try {
      while (!this.ended && !this.paused) {
        const queued = this.queue.shift();
        if (queued !== undefined) {
          this.hand(queued, true);
          continue;
        }
        if (this.mode === 'live') break;
        if (this.source.log.droppedAfter(this.stream.name, this.lastId)) {
          this.end({ reason: 'too-slow', lastDeliveredId: this.lastDeliveredId });
          break;
        }
        const batch = this.source.log.eventsAfter(this.stream.name, this.lastId, REPLAY_BATCH);
        if (batch.length === 0) {
          this.mode = 'live';
          break;
        }
        for (const event of batch) {
          this.hand(event);
          if (this.ended || this.paused) break;
        }
      }
      if (!this.ended && this.mode === 'live' && this.queue.length === 0 && this.stopTimePassed()) this.end({ reason: 'stop-time' });
    } finally {
      this.pumping = false;
    }
  }

  /** Gives one event to the sink unless the filter or stop-time keeps it back. */
  private hand(event: StreamEvent, fromQueue = false): void {
    if (!fromQueue) this.lastId = event.id;
    const stopTime = this.options.stopTime;
    if (stopTime !== undefined && Date.parse(event.eventTime) > stopTime.getTime()) {
      this.end({ reason: 'stop-time' });
      return;
    }
    if (!this.accepts(event)) return;
    const more = this.sink.deliver(event);
    this.lastDeliveredId = event.id;
    if (!more) this.paused = true;
  }

  private accepts(event: StreamEvent): boolean {
    if (this.options.accept === undefined) return true;
    try {
      return this.options.accept(event);
    } catch {
      return false; // a filter that cannot be evaluated on this event does not select it
    }
  }

  private stopTimePassed(): boolean {
    return this.options.stopTime !== undefined && this.options.stopTime.getTime() <= this.source.now();
  }

  private armStopTimer(): void {
    const delay = (this.options.stopTime?.getTime() ?? 0) - this.source.now();
    this.timer = setTimeout(
      () => {
        if (delay > MAX_TIMER_MS) this.armStopTimer();
        else this.pump();
      },
      Math.max(0, Math.min(delay + 1, MAX_TIMER_MS)),
    );
    this.timer.unref();
  }
}

/**
 * One subscriber of one stream: where it starts, what it lets through, and how far behind it may fall.
 *
 * A subscription starts in replay (a `start-time` or `Last-Event-ID` on a replay stream) or live. In
 * replay it pulls the stream's events from the replay log after the last id it handed over, a batch at
 * a time and only while its sink takes them, so a long replay costs no buffer; live events are then in
 * the log already and are not buffered twice. Once a pull comes back empty it is live: the hub offers
 * it each event as the event becomes durable. The switch happens inside one synchronous step (the log's
 * in-memory index answers that no kept event follows), and every event is checked against the last id
 * handed over, so the seam has neither a gap nor a duplicate.
 *
 * A pull of events older than the log's hot tail reads the disk and answers a promise: the pump waits
 * for it and goes on where it stopped. Meanwhile live events are still only in the log (a later pull
 * reads them), a drained sink only clears the pause, and a subscription ended or closed meanwhile does
 * nothing more with what the read brings. A read that fails (a segment removed or damaged since the
 * log opened) ends the subscription `replay-failed` with the log's message.
 *
 * Live events wait in a buffer while the sink is full; a subscriber more than `bufferEvents` behind is
 * ended `too-slow` with the last id it received (it may resume from there), so a slow client never
 * grows the service's memory and never holds up the others.
 *
 * Events go to the sink in batches where it takes them (`deliverBatch`): a group commit's events as the
 * hub offers them, a replay read, the backlog after a drain. What one delivery costs (a socket write)
 * is then paid per batch, not per event; an unfiltered subscriber passes on the very array the hub
 * offered, so that a sink can share what it builds from it with every other subscriber. A sink that
 * takes one event at a time still gets nothing more once it is full: the rest of the batch waits.
 */
import type { ReplayLog } from './replay-log';
import type { EventSink, StreamDefinition, StreamEvent, Subscription, SubscriptionEnd, SubscriptionOptions } from './types';

/** Events read from the replay log per pull. */
const REPLAY_BATCH = 256;
/** Queued events handed to the sink at once after a drain (a bound on what one write puts on a socket). */
const BACKLOG_BATCH = 256;
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
  private queue: StreamEvent[] = [];
  private paused = false;
  private pumping = false;
  /** A pull is reading the disk: the pump resumes when it answers. */
  private reading = false;
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

  /** New events of the stream in id order, durable (replay streams) or just published. */
  offer(events: readonly StreamEvent[]): void {
    if (this.ended) return;
    // In replay the events are read from the log when the pull reaches them.
    if (this.mode === 'replay' && this.stream.replay) return;
    let fresh = events;
    if (events[0] !== undefined && events[0].id <= this.lastId) {
      fresh = events.filter((event) => event.id > this.lastId);
      if (fresh.length === 0) return;
    }
    if (this.paused || this.queue.length > 0) this.wait(fresh);
    else this.hand(fresh, false);
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
    // A sink that calls drained() from deliver() re-enters here; a read on its way resumes the pump itself.
    if (this.pumping || this.reading) return;
    this.pumping = true;
    try {
      while (!this.ended && !this.paused) {
        if (this.queue.length > 0) {
          const backlog = this.queue.length <= BACKLOG_BATCH ? this.queue : this.queue.slice(0, BACKLOG_BATCH);
          this.queue = this.queue.length <= BACKLOG_BATCH ? [] : this.queue.slice(BACKLOG_BATCH);
          this.hand(backlog, true);
          continue;
        }
        if (this.mode === 'live') break;
        if (this.source.log.droppedAfter(this.stream.name, this.lastId)) {
          this.end({ reason: 'too-slow', lastDeliveredId: this.lastDeliveredId });
          break;
        }
        const batch = this.source.log.eventsAfter(this.stream.name, this.lastId, REPLAY_BATCH);
        if (batch instanceof Promise) {
          this.awaitRead(batch);
          return;
        }
        if (batch.length === 0) {
          this.mode = 'live';
          break;
        }
        this.hand(batch, false);
      }
      if (!this.ended && this.mode === 'live' && this.queue.length === 0 && this.stopTimePassed()) this.end({ reason: 'stop-time' });
    } finally {
      this.pumping = false;
    }
  }

  /** Waits for a pull that reads the disk, hands what it read and pumps on (see the top comment). */
  private awaitRead(read: Promise<StreamEvent[]>): void {
    this.reading = true;
    read.then(
      (events) => {
        this.reading = false;
        if (this.ended) return;
        // Nothing else moves lastId during a replay read; the check keeps the seam exact regardless.
        const fresh = events.filter((event) => event.id > this.lastId);
        if (fresh.length > 0) this.hand(fresh, false);
        this.pump();
      },
      (error: Error) => {
        this.reading = false;
        this.end({ reason: 'replay-failed', message: error.message });
      },
    );
  }

  /**
   * Gives `events` (in id order, newer than any handed before; from the queue they were counted when
   * queued) to the sink, but those the filter keeps back; the first past stop-time ends the
   * subscription. A sink taking batches gets them in one call. A sink taking one at a time that fills
   * mid-batch leaves the rest waiting: live ones in the queue, a replay read's in the log (the next
   * pull reads them again, as `lastId` stops at the last one handed).
   */
  private hand(events: readonly StreamEvent[], fromQueue: boolean): void {
    const stop = this.stopIndex(events);
    if (this.sink.deliverBatch !== undefined) {
      if (!fromQueue && stop > 0) this.lastId = events[stop - 1]!.id;
      const batch = this.options.accept === undefined && stop === events.length ? events : this.selected(events, stop);
      const last = batch[batch.length - 1];
      if (last !== undefined) {
        this.lastDeliveredId = last.id;
        if (!this.sink.deliverBatch(batch)) this.paused = true;
      }
    } else {
      for (let i = 0; i < stop; i++) {
        const event = events[i]!;
        if (!fromQueue) this.lastId = event.id;
        if (!this.accepts(event)) continue;
        const more = this.sink.deliver(event);
        this.lastDeliveredId = event.id;
        if (this.ended) return;
        if (!more) {
          this.paused = true;
          this.setAside(events.slice(i + 1), fromQueue);
          return;
        }
      }
    }
    if (stop < events.length && !this.ended) this.end({ reason: 'stop-time' });
  }

  /** Queues live events while the sink is full; more than the buffer holds ends the subscription. */
  private wait(events: readonly StreamEvent[]): void {
    for (const event of events) this.queue.push(event);
    this.lastId = events[events.length - 1]!.id;
    if (this.queue.length > this.source.bufferEvents) this.end({ reason: 'too-slow', lastDeliveredId: this.lastDeliveredId });
  }

  /** The rest of a batch a one-at-a-time sink had no room for (see `hand`). */
  private setAside(rest: readonly StreamEvent[], fromQueue: boolean): void {
    if (rest.length === 0) return;
    if (fromQueue) this.queue = [...rest, ...this.queue];
    else if (this.mode === 'live') this.wait(rest);
  }

  /** The index of the first event past stop-time (which ends the subscription); the length when none is. */
  private stopIndex(events: readonly StreamEvent[]): number {
    const stopTime = this.options.stopTime?.getTime();
    if (stopTime === undefined) return events.length;
    const past = events.findIndex((event) => Date.parse(event.eventTime) > stopTime);
    return past < 0 ? events.length : past;
  }

  /** The events before `stop` that the filter lets through. */
  private selected(events: readonly StreamEvent[], stop: number): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (let i = 0; i < stop; i++) if (this.accepts(events[i]!)) out.push(events[i]!);
    return out;
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

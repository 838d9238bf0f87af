/**
 * The contract of events/: what a stream is, what an event carries, and the hub that producers publish
 * to and subscribers read from (RFC 8040 §6). Producers (the Config datastore's commits, the uniconfig
 * layer, the mount layer's node status, southbounds' device notifications) call `EventHub.publish`;
 * the RESTCONF layer's stream resource (Server-Sent Events) calls `EventHub.subscribe`. Nothing here
 * knows HTTP or where an event came from.
 *
 * Why a hub between them: an event is made durable in the replay log once, numbered in commit order
 * once, and encoded once per encoding, however many subscribers read it; a subscriber that reconnects
 * with the last id it saw gets every later event the log still holds and then the live ones.
 */
import type { JsonObject } from '../hooks';

/** A stream a client can discover and subscribe to. */
export interface StreamDefinition {
  /** The stream's name: the last segment of its locations (`NETCONF`, `data-change`, `node-status`, ...). */
  readonly name: string;
  readonly description: string;
  /** Whether its events are kept in the replay log (`start-time` and `Last-Event-ID` work). */
  readonly replay: boolean;
}

/** What a producer hands the hub. */
export interface EventInput {
  /** The node the event is about, when there is one (device notifications, node status, node data). */
  readonly nodeId?: string;
  /**
   * The notification's content in RFC 7951 JSON: the members that sit beside `eventTime` in an RFC 8040
   * §6.4 notification, e.g. `{"rosetta-events:node-status": {...}}`.
   */
  readonly content: JsonObject;
  /**
   * The same content as XML elements (the children of `<notification>` after `<eventTime>`), when the
   * producer has it already (a device notification as received). Absent: the hub encodes `content`
   * with the local schema.
   */
  readonly xml?: string;
  /** When the event happened (RFC 3339); default: when it was published. */
  readonly eventTime?: string;
}

/** An event as the hub keeps it: numbered, timed, on one stream. */
export interface StreamEvent extends EventInput {
  /** Position in the hub's one sequence across all streams (the SSE `id:`); increases in commit order. */
  readonly id: number;
  readonly stream: string;
  readonly eventTime: string;
}

/** Where a subscription starts and ends, and what it lets through. */
export interface SubscriptionOptions {
  /** Replay from the first kept event with eventTime at or after this (RFC 8040 `start-time`). */
  readonly startTime?: Date;
  /** Close once past this time; with `startTime`, a pure replay (RFC 8040 `stop-time`). */
  readonly stopTime?: Date;
  /** Resume after this event id (SSE `Last-Event-ID`); events after it that the log holds come first. */
  readonly afterId?: number;
  /** Lets an event through or not (a compiled `filter` parameter); absent: all. */
  readonly accept?: (event: StreamEvent) => boolean;
}

/** Why a subscription ended. */
export type SubscriptionEnd =
  | { readonly reason: 'stop-time' }
  | { readonly reason: 'closed' }
  | { readonly reason: 'stream-removed' }
  /** The subscriber fell more than its buffer behind; it may resume with the last id it received. */
  | { readonly reason: 'too-slow'; readonly lastDeliveredId: number | undefined }
  /** Events to replay could not be read from the replay log (a segment removed or damaged); the message names the file. */
  | { readonly reason: 'replay-failed'; readonly message: string };

/** The receiving end of a subscription (the SSE response). */
export interface EventSink {
  /** Takes one event; answers false when the sink is full for now (it calls `drained` once it has room). */
  deliver(event: StreamEvent): boolean;
  /**
   * Takes several events at once, in id order (a group commit's, a replay read's, a backlog's): a sink
   * that writes them with one write costs one write per batch, not per event. Answers as `deliver`,
   * after taking them all. Absent: the events are given to `deliver` one at a time.
   */
  deliverBatch?(events: readonly StreamEvent[]): boolean;
  /** The subscription ended; the sink writes a last message if it wants and closes. */
  end(why: SubscriptionEnd): void;
}

/** A live subscription. */
export interface Subscription {
  /** The sink has room again after `deliver` answered false. */
  drained(): void;
  /** The client went away: stop delivering and free the buffer. */
  close(): void;
}

/** What the replay log can still give a client (RFC 8040 `replay-log-creation-time`, `replay-log-aged-time`). */
export interface ReplayState {
  readonly creationTime: string;
  /** The eventTime of the newest event dropped from the log's head by its bounds; absent when none was. */
  readonly agedTime?: string;
  /** The oldest id the log still holds; absent when it is empty. */
  readonly firstId?: number;
}

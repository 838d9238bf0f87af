/**
 * The hub's face to the producers when several instances share a database: every event goes to the
 * relay (database/cluster-events.ts), which numbers it for all of them and publishes it back into each
 * instance's hub, this one's included, in one order. Events of the streams every instance offers
 * (`NETCONF`, `node-status`, `data-change`) reach every instance; those of a stream only this instance
 * has (a node's own stream, a path-scoped subscription's) are numbered the same way and published here
 * only. Each is timed where it happened.
 */
import { EventError } from './errors';
import type { EventHub } from './hub';
import { BUILTIN_STREAMS } from './streams';
import type { ChangeStreams } from './subscriptions';
import type { EventInput } from './types';

/** What takes the relayed events (database/cluster-events.ts `ClusterEvents`). */
export interface EventRelay {
  publish(stream: string, input: EventInput, local: boolean): Promise<void>;
  /** The SQL that inserts the events in a write's transaction; every instance publishes them once it commits. */
  sqlWithin(events: ReadonlyArray<{ stream: string; input: EventInput; local: boolean }>): string;
}

const SHARED = new Set(BUILTIN_STREAMS.map((s) => s.name));

/** The hub's face to the producers, with every event going through `relay`. */
export function relayedPublisher(hub: EventHub, relay: EventRelay): ChangeStreams {
  const timed = (input: EventInput): EventInput => ({ ...input, eventTime: input.eventTime ?? new Date().toISOString() });
  return {
    defineStream: hub.defineStream.bind(hub),
    removeStream: hub.removeStream.bind(hub),
    publish: async (stream, input) => {
      // refused here as the hub would: the relay would only find out on every instance
      if (hub.stream(stream) === undefined) throw new EventError('unknown-stream', `no stream named '${stream}'`);
      await relay.publish(stream, timed(input), !SHARED.has(stream));
    },
    sqlWithin: (events) => relay.sqlWithin(events.map(([stream, input]) => ({ stream, input: timed(input), local: !SHARED.has(stream) }))),
  };
}

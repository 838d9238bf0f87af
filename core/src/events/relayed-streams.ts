/**
 * The streams a node's owner makes (`node-status`, `NETCONF`), relayed to every instance when several
 * share a database (database/cluster-events.ts): a publisher that hands their events to the relay,
 * timed where they happened, and every other stream's straight to the hub. The relay publishes them
 * into each instance's hub, this one's included, in one order.
 */
import type { EventHub } from './hub';
import { NETCONF_STREAM, NODE_STATUS_STREAM } from './streams';
import type { EventInput } from './types';

/** What takes the relayed events (database/cluster-events.ts `ClusterEvents`). */
export interface EventRelay {
  publish(stream: string, input: EventInput): Promise<void>;
}

/** The hub's face to the mount layer, with the owner-made streams going through `relay`. */
export function relayedPublisher(
  hub: EventHub,
  relay: EventRelay,
): Pick<EventHub, 'defineStream' | 'removeStream'> & { publish(stream: string, input: EventInput): Promise<unknown> } {
  return {
    defineStream: hub.defineStream.bind(hub),
    removeStream: hub.removeStream.bind(hub),
    publish: (stream, input) =>
      stream === NODE_STATUS_STREAM || stream === NETCONF_STREAM
        ? relay.publish(stream, { ...input, eventTime: input.eventTime ?? new Date().toISOString() })
        : hub.publish(stream, input),
  };
}

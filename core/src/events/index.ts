/**
 * events/: RFC 8040 event streams. The hub (hub.ts) holds the streams and fans published events out to
 * subscribers; the replay log (replay-log.ts) makes them durable and replayable; a subscription
 * (subscription.ts) bounds what one slow client can hold; encode.ts writes the notification text.
 * Producers and the RESTCONF stream resource import from here only.
 */
export type * from './types';
export { DEFAULT_EVENT_SETTINGS, EventHub, eventsDirectory, type EventHubOptions, type EventSettings } from './hub';
export { EventError, type EventErrorCode } from './errors';
export { BUILTIN_STREAMS, DATA_CHANGE_STREAM, NETCONF_STREAM, NODE_STATUS_STREAM, nodeStreamName } from './streams';
export { NOTIFICATION_NS, contentXml } from './encode';
export { DataChangeFeed } from './data-change-feed';
export { editsOfRequest } from './data-change';
export { DataChangeSubscriptions } from './subscriptions';
export { type EventRelay, relayedPublisher } from './relayed-streams';

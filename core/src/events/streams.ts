/**
 * The streams every service offers from start-up, and the name of a NETCONF node's own stream. Their
 * content is described by rosetta-events (core/yang): device notifications on `NETCONF`, committed
 * changes on `data-change`, connection status and installs on `node-status`. All keep a replay log.
 */
import type { StreamDefinition } from './types';

export const NETCONF_STREAM = 'NETCONF';
export const DATA_CHANGE_STREAM = 'data-change';
export const NODE_STATUS_STREAM = 'node-status';

export const BUILTIN_STREAMS: readonly StreamDefinition[] = [
  {
    name: NETCONF_STREAM,
    description: 'Notifications of every NETCONF device, each with its topology and node id (rosetta-events:device-notification).',
    replay: true,
  },
  {
    name: DATA_CHANGE_STREAM,
    description:
      'Every change committed to the Config datastore and to the uniconfig topology, as YANG-Patch-like edits (rosetta-events:data-change).',
    replay: true,
  },
  {
    name: NODE_STATUS_STREAM,
    description: "Every change of a node's connection status, and installs and uninstalls (rosetta-events:node-status).",
    replay: true,
  },
];

/** The stream of one NETCONF node's notifications (their content as the device sent them). */
export function nodeStreamName(nodeId: string): string {
  return `${NETCONF_STREAM}-${nodeId}`;
}

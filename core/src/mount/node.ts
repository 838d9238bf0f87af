/**
 * An installed (or installing) device as the mount layer keeps it, and as one request uses it. Its own
 * module so that the manager (node lifecycle) and the status rendering (status.ts) share the shape
 * without importing each other.
 */
import type { DeviceConnection, DeviceDataCodec, DeviceInfo, JsonValue, NodeConnectionStatus } from '../hooks';
import type { SchemaContext } from '../yang/schema';
import type { DeviceCallObserver } from './device-calls';
import type { DeviceSchema } from './device-schema';
import type { NodeSettings, SouthboundKind } from './topology';

export type ConnectionStatus = NodeConnectionStatus;

/** One installed (or installing) device. */
export interface MountedNode {
  readonly nodeId: string;
  /** Its southbound's protocol: the key of the `device.*` hooks that serve it. */
  readonly protocol: string;
  /** Where its southbound placed it (topology, settings module, where its models come from). */
  readonly kind: SouthboundKind;
  readonly deviceType: string | undefined;
  readonly deviceVersion: string | undefined;
  /** As installed; install adds the host-key a trust-on-first-use node trusted (see settingsToStore). */
  settings: NodeSettings;
  connection: DeviceConnection | undefined;
  /** A device whose models are its own: the compiled schema of its modules (unit schemas follow the units per request). */
  ownSchema: DeviceSchema | undefined;
  /** The connection's `moduleSetId` that `ownSchema` was compiled from (a reconnect may change it). */
  ownSchemaSet: string | undefined;
  /** Why the node has no connection (last failure), for `connected-message`. */
  problem: string | undefined;
  installing: boolean;
  removed: boolean;
}

/** A device as one request uses it: its connection, schema and codec in the request's plugin generation. */
export interface MountedDevice {
  readonly node: MountedNode;
  readonly info: DeviceInfo;
  readonly connection: DeviceConnection;
  readonly schema: SchemaContext;
  readonly codec: DeviceDataCodec | undefined;
  /** Modules of the device that are not in its schema, with the reason. */
  readonly failed: DeviceSchema['failed'];
  /** Told of each southbound call made for this request (device-calls.ts); absent when nothing measures. */
  readonly observe?: DeviceCallObserver;
}

/** A node not yet connected. */
export function newNode(nodeId: string, kind: SouthboundKind, settings: NodeSettings): MountedNode {
  const text = (v: JsonValue | undefined) => (typeof v === 'string' ? v : undefined);
  return {
    nodeId,
    protocol: kind.protocol,
    kind,
    settings,
    deviceType: text(settings['device-type']),
    deviceVersion: text(settings['device-version']),
    connection: undefined,
    ownSchema: undefined,
    ownSchemaSet: undefined,
    problem: undefined,
    installing: false,
    removed: false,
  };
}

/** The status of a node now. */
export function statusOf(node: MountedNode): ConnectionStatus {
  if (node.installing) return 'connecting';
  if (node.connection === undefined) return node.problem === undefined ? 'connecting' : 'unable-to-connect';
  return node.connection.status?.() ?? 'connected';
}

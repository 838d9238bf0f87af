/**
 * The mount layer's event producers: a node's status changes (`node-status`: connecting, connected,
 * unable-to-connect, installed, uninstalled) and the notifications its device sends (`NETCONF`, wrapped
 * with the node's topology and id, and the node's own stream `NETCONF-<node-id>`, the notification
 * itself). The manager tells this file when the lifecycle moves; a southbound's connection tells it
 * through the DeviceEvents the manager hands `device.connect` (hooks.ts), since a connection that
 * reconnects by itself changes its status with nobody asking. Apart from the manager, which keeps the
 * nodes, so the event shapes are read in one place.
 *
 * A status event is published only when the status a client would read changes, once per change: every
 * report is compared with the last status published for the node (a new message alone is no change).
 */
import { escapeXmlText } from '../data/xml-escape';
import { type EventHub, type EventInput, NETCONF_STREAM, NODE_STATUS_STREAM, nodeStreamName, type StreamDefinition } from '../events';
import type { DeviceEvents, JsonObject } from '../hooks';
import { type Logger, withWarn } from '../logger';
import type { SchemaContext } from '../yang/schema';
import { statusOf, type MountedNode } from './node';
import { decodeNotification } from './notification';

/**
 * What the mount layer uses of the service's event hub (the service defines the built-in streams); the
 * service may relay some streams through the database (database/cluster-events.ts) instead.
 */
export interface EventPublisher extends Pick<EventHub, 'defineStream' | 'removeStream'> {
  publish(stream: string, input: EventInput): Promise<unknown>;
}

const EVENTS_MODULE = 'rosetta-events';

type StatusName = 'connecting' | 'connected' | 'unable-to-connect' | 'installed' | 'uninstalled';

export class NodeEvents {
  /** The last status published per node (the same status with another message is no change). */
  private readonly last = new WeakMap<MountedNode, StatusName>();
  /** The problem a connection reported with its last status change (its reconnect's error). */
  private readonly reported = new WeakMap<MountedNode, string>();
  private readonly log: Required<Logger>;

  /**
   * `hub` absent: the manager runs without events (its own tests), and every call here does nothing.
   * `schema`: the service's local schema, whose `rosetta-events` namespace the XML of a wrapped device
   * notification is written in.
   */
  constructor(
    private readonly hub: EventPublisher | undefined,
    private readonly schema: () => SchemaContext,
    log: Logger,
  ) {
    this.log = withWarn(log);
  }

  /** What a node's connection is handed to report with (DeviceConnectContext.events). */
  forConnection(node: MountedNode): DeviceEvents | undefined {
    if (this.hub === undefined) return undefined;
    return {
      statusChanged: (problem) => {
        if (problem === undefined) this.reported.delete(node);
        else this.reported.set(node, problem);
        this.status(node);
      },
      notification: (xml) => this.notification(node, xml),
    };
  }

  /**
   * A node is in the registry (an install starting, or a node restored at start-up): a node whose models
   * are the device's own (the schema its notifications are read with) gets its notification stream.
   */
  added(node: MountedNode): void {
    if (node.kind.models === 'device') this.hub?.defineStream(this.nodeStream(node));
    this.status(node);
  }

  /** The node's status may have changed (a connect, a failed attempt, the end of its install): publish it if it did. */
  status(node: MountedNode): void {
    if (node.removed) return;
    const status = statusOf(node);
    const message = status === 'connected' ? node.connection?.message : (this.reported.get(node) ?? node.problem);
    this.publishStatus(node, status, message);
  }

  /** An install failed: the node leaves the registry with why. */
  failed(node: MountedNode, why: string): void {
    this.publishStatus(node, 'unable-to-connect', why);
    if (node.kind.models === 'device') this.hub?.removeStream(nodeStreamName(node.nodeId));
  }

  installed(node: MountedNode): void {
    this.publishStatus(node, 'installed', undefined);
  }

  /**
   * Another instance owns the node now: its stream ends here (its subscribers are told, and find it
   * through this instance again, forwarded to the owner); the owner reports its status from now on.
   */
  handedOver(node: MountedNode): void {
    this.last.delete(node);
    if (node.kind.models === 'device') this.hub?.removeStream(nodeStreamName(node.nodeId));
  }

  /** The node was uninstalled: its stream ends (its subscribers are told) after the event saying so. */
  uninstalled(node: MountedNode): void {
    this.publishStatus(node, 'uninstalled', undefined);
    if (node.kind.models === 'device') this.hub?.removeStream(nodeStreamName(node.nodeId));
  }

  private publishStatus(node: MountedNode, status: StatusName, message: string | undefined): void {
    if (this.hub === undefined) return;
    if (this.last.get(node) === status) return;
    this.last.set(node, status);
    const content: JsonObject = {
      'rosetta-events:node-status': {
        'topology-id': node.kind.topology,
        'node-id': node.nodeId,
        status,
        ...(message !== undefined ? { message } : {}),
      },
    };
    this.publish(NODE_STATUS_STREAM, { nodeId: node.nodeId, content });
  }

  /** A notification from the node's device: on `NETCONF` wrapped with the node, on the node's stream as it came. */
  private notification(node: MountedNode, xml: string): void {
    if (node.removed) return;
    const schema = node.ownSchema?.schema;
    if (schema === undefined) {
      this.log.warn(`node ${node.nodeId}: a notification arrived before the device's schema was compiled; dropped`, {
        nodeId: node.nodeId,
      });
      return;
    }
    let read: ReturnType<typeof decodeNotification>;
    try {
      read = decodeNotification(schema, xml);
    } catch (e) {
      this.log.warn(
        `node ${node.nodeId}: a notification does not fit the device's schema (${e instanceof Error ? e.message : String(e)}); dropped`,
        { nodeId: node.nodeId },
      );
      return;
    }
    const { eventTime, content, xml: eventXml } = read;
    const wrapped = this.wrappedXml(node, eventXml);
    this.publish(NETCONF_STREAM, {
      nodeId: node.nodeId,
      eventTime,
      content: {
        'rosetta-events:device-notification': { 'topology-id': node.kind.topology, 'node-id': node.nodeId, notification: content },
      },
      ...(wrapped !== undefined ? { xml: wrapped } : {}),
    });
    this.publish(nodeStreamName(node.nodeId), { nodeId: node.nodeId, eventTime, content, xml: eventXml });
  }

  /** The XML of the `NETCONF` stream's wrapper around the device's own elements (its anydata `notification`). */
  private wrappedXml(node: MountedNode, eventXml: string): string | undefined {
    const ns = this.schema().modules.get(EVENTS_MODULE)?.namespace;
    if (ns === undefined) return undefined;
    return `<device-notification xmlns="${ns}"><topology-id>${escapeXmlText(node.kind.topology)}</topology-id><node-id>${escapeXmlText(node.nodeId)}</node-id><notification>${eventXml}</notification></device-notification>`;
  }

  private nodeStream(node: MountedNode): StreamDefinition {
    return { name: nodeStreamName(node.nodeId), description: `Notifications from device ${node.nodeId}`, replay: true };
  }

  private publish(stream: string, input: EventInput): void {
    this.hub
      ?.publish(stream, input)
      .catch((e: unknown) => this.log.error(`event on ${stream} not published: ${e instanceof Error ? e.message : String(e)}`));
  }
}

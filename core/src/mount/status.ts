/**
 * The live status of the installed devices: operational `network-topology`, computed on demand (the
 * mount manager's `data.readState` tap). The core renders what is common to every node (topology
 * `unified`: connection status and type, and the `connected-message` text); each southbound's
 * descriptor renders the status leaves of its own topology (southbounds.ts). Kept apart from the
 * manager, which only manages the nodes' lifecycle.
 */
import type { DeviceInfo, JsonObject } from '../hooks';
import { statusOf, type MountedNode } from './node';
import type { Southbounds } from './southbounds';
import { UNIFIED } from './topology';

/**
 * The `connected-message` of a node: its connection's message (or why it has none); for a southbound
 * whose models are translation units, which units serve the device (from `infoOf`), or why none does.
 */
export function connectedMessage(node: MountedNode, infoOf: (node: MountedNode) => DeviceInfo): string {
  if (node.connection === undefined) return node.problem ?? 'connecting';
  let text = node.connection.message ?? 'connected';
  if (node.kind.models === 'translation-units') {
    const info = infoOf(node);
    if (info.units.length === 0) text += `; no translated models: ${info.unitsMissingReason ?? 'no device-type given'}`;
    else text += `; served by ${info.units.map((u) => `${u.plugin}@${u.version}`).join(', ')}`;
  }
  return text;
}

/**
 * Operational `network-topology`: topology `unified` and each registered southbound's topology, ordered
 * by topology-id, with the nodes (ordered by node-id) and their status. A node whose southbound is not
 * registered now (its plugin disabled) is shown in `unified` only.
 */
export function networkTopologyStatus(
  nodes: Iterable<MountedNode>,
  southbounds: Southbounds,
  infoOf: (node: MountedNode) => DeviceInfo,
): JsonObject {
  const entries = new Map<string, JsonObject[]>([[UNIFIED, []]]);
  for (const d of southbounds.all) entries.set(d.topology, []);
  for (const node of [...nodes].sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0))) {
    const status = statusOf(node);
    const message = connectedMessage(node, infoOf);
    entries.get(UNIFIED)!.push({
      'node-id': node.nodeId,
      'unified-topology:connection-status': status,
      'unified-topology:connection-type': node.protocol,
    });
    const southbound = southbounds.protocol(node.protocol);
    if (southbound === undefined || southbound.topology !== node.kind.topology) continue;
    const leaves = southbound.renderStatus({
      nodeId: node.nodeId,
      status,
      message,
      connection: node.connection,
      failedModules: node.ownSchema?.failed ?? [],
    });
    entries.get(southbound.topology)!.push({ 'node-id': node.nodeId, ...leaves });
  }
  const topology = [...entries]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, nodes]): JsonObject => (nodes.length > 0 ? { 'topology-id': id, node: nodes } : { 'topology-id': id }));
  return { 'network-topology:network-topology': { topology } };
}

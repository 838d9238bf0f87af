/**
 * The live status of the installed devices: operational `network-topology`, computed on demand (the
 * mount manager's `data.readState` tap). The core renders what is common to every node (topology
 * `unified`: connection status and type, and the `connected-message` text); each southbound's
 * descriptor renders the status leaves of its own topology (southbounds.ts). Kept apart from the
 * manager, which only manages the nodes' lifecycle.
 */
import type { DeviceInfo, JsonObject, StateReadContext } from '../hooks';
import type { InstancePath } from '../yang/instance-path';
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
 * What one read of the status asks for (the `data.readState` context): a path under
 * `network-topology` narrows it to one topology, or one node; `entries`, on a node list, to the nodes'
 * keys only, or to some nodes (hooks.ts StateReadContext).
 */
export interface StatusRead {
  readonly path: InstancePath;
  readonly entries?: StateReadContext['entries'];
}

/** The topology and node a read's path names, each undefined when the path does not go that deep. */
function narrowing(read: StatusRead | undefined): { topology?: string; node?: string } {
  const path = read?.path ?? [];
  if (path[0]?.module !== 'network-topology' || path[0].name !== 'network-topology') return {};
  const topology = path[1]?.keys?.['topology-id'];
  return {
    ...(topology !== undefined ? { topology } : {}),
    ...(path[2]?.keys?.['node-id'] !== undefined ? { node: path[2].keys['node-id'] } : {}),
  };
}

function byNodeId(a: MountedNode, b: MountedNode): number {
  return a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0;
}

/**
 * Operational `network-topology`: topology `unified` and each registered southbound's topology, ordered
 * by topology-id, with the nodes (ordered by node-id) and their status. A node whose southbound is not
 * registered now (its plugin disabled) is shown in `unified` only. Only what `read` asks for is rendered
 * (the one topology and node its path names; of a node list, keys only or the nodes asked for), so a page
 * of a large topology, or one node, costs that page, not the fleet.
 */
export function networkTopologyStatus(
  nodes: ReadonlyMap<string, MountedNode>,
  southbounds: Southbounds,
  infoOf: (node: MountedNode) => DeviceInfo,
  read?: StatusRead,
): JsonObject {
  const want = narrowing(read);
  const entries = new Map<string, JsonObject[]>();
  if (want.topology === undefined || want.topology === UNIFIED) entries.set(UNIFIED, []);
  for (const d of southbounds.all) if (want.topology === undefined || want.topology === d.topology) entries.set(d.topology, []);
  const asked = want.node !== undefined ? [want.node] : read?.entries instanceof Set ? [...read.entries] : undefined;
  const chosen =
    asked === undefined ? [...nodes.values()] : asked.map((id) => nodes.get(id)).filter((n): n is MountedNode => n !== undefined);
  const keysOnly = want.node === undefined && read?.entries === 'keys';
  for (const node of chosen.sort(byNodeId)) {
    const southbound = southbounds.protocol(node.protocol);
    const own = southbound !== undefined && southbound.topology === node.kind.topology ? entries.get(southbound.topology) : undefined;
    const unified = entries.get(UNIFIED);
    if (keysOnly) {
      unified?.push({ 'node-id': node.nodeId });
      own?.push({ 'node-id': node.nodeId });
      continue;
    }
    const status = statusOf(node);
    unified?.push({
      'node-id': node.nodeId,
      'unified-topology:connection-status': status,
      'unified-topology:connection-type': node.protocol,
    });
    if (southbound === undefined || own === undefined) continue;
    const leaves = southbound.renderStatus({
      nodeId: node.nodeId,
      status,
      message: connectedMessage(node, infoOf),
      connection: node.connection,
      failedModules: node.ownSchema?.failed ?? [],
    });
    own.push({ 'node-id': node.nodeId, ...leaves });
  }
  const topology = [...entries]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, nodes]): JsonObject => (nodes.length > 0 ? { 'topology-id': id, node: nodes } : { 'topology-id': id }));
  return { 'network-topology:network-topology': { topology } };
}

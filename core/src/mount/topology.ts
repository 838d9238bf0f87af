/**
 * The topologies devices are shown in (docs/devices.md#status), as data of the local schema:
 * - install-node settings become a node's configuration in the Config datastore, under its southbound's
 *   topology with the leaves of the southbound's settings module (both named by the southbound's
 *   descriptor, southbounds.ts); the leaves the module marks `rosetta-secret:sensitive` (password,
 *   secret) are sealed as every such leaf is (datastore/sensitive.ts);
 * - the live status of every node is operational data computed on demand (status.ts).
 * Settings are read back from the Config datastore at start-up to reconnect the devices.
 */
import type { PathStep } from '../data/edit';
import { toJsonValue } from '../data/json-encode';
import type { DataNode, DataRoot } from '../data/tree';
import type { JsonObject, JsonValue, SouthboundDescriptor } from '../hooks';
import type { ListSchema, SchemaContext, SchemaNode } from '../yang/schema';
import type { Southbounds } from './southbounds';

export { UNIFIED } from './southbounds';

/**
 * What a node keeps of its southbound's descriptor: the facts that place it (never the plugin's
 * functions, which the generation serving a request supplies), so a node stays where it was installed
 * while its plugin is swapped or disabled.
 */
export type SouthboundKind = Readonly<
  Pick<SouthboundDescriptor, 'protocol' | 'installContainer' | 'topology' | 'settingsModule' | 'models'>
>;

export function kindOf(d: SouthboundDescriptor): SouthboundKind {
  return Object.freeze({
    protocol: d.protocol,
    installContainer: d.installContainer,
    topology: d.topology,
    settingsModule: d.settingsModule,
    models: d.models,
  });
}
/** Install-node settings without module prefixes (`host`, `port`, ...), clear text, in memory only. */
export type NodeSettings = Readonly<Record<string, JsonValue>>;

/** The members of a protocol container with their module prefixes removed; a numeric-string port becomes a number. */
export function plainSettings(container: JsonObject): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [member, value] of Object.entries(container)) {
    const name = member.slice(member.indexOf(':') + 1);
    out[name] = name === 'port' && typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
  }
  return out;
}

/**
 * The settings to store for a node just installed: under `host-key-verification` trust-on-first-use
 * without a `host-key`, the fingerprint of the key the device presented becomes its host-key, so that
 * every later login (after a restart too) must present that key.
 */
export function settingsToStore(settings: NodeSettings, presentedHostKey: string | undefined): NodeSettings {
  if (settings['host-key-verification'] !== 'trust-on-first-use' || settings['host-key'] !== undefined || presentedHostKey === undefined)
    return settings;
  return { ...settings, 'host-key': presentedHostKey };
}

/** The steps of `network-topology/topology=<topology>/node=<nodeId>` in the local schema. */
export function nodeSteps(schema: SchemaContext, topology: string, nodeId?: string): PathStep[] {
  const top = schema.data.find((n) => n.name === 'network-topology' && n.module.name === 'network-topology');
  const list = (parent: SchemaNode | undefined, name: string): ListSchema => {
    const found = parent && 'children' in parent ? (parent.children as readonly SchemaNode[]).find((c) => c.name === name) : undefined;
    if (found?.kind !== 'list') throw new Error(`the local schema has no network-topology ${name} list`);
    return found;
  };
  const topologyList = list(top, 'topology');
  const steps: PathStep[] = [{ schema: top! }, { schema: topologyList, keys: [topology] }];
  if (nodeId !== undefined) steps.push({ schema: list(topologyList, 'node'), keys: [nodeId] });
  return steps;
}

/** The Config datastore document of one installed node (clear text: seal the decoded tree before keeping it). */
export function nodeConfigJson(kind: SouthboundKind, nodeId: string, settings: NodeSettings): JsonObject {
  const node: JsonObject = { 'node-id': nodeId };
  for (const [name, value] of Object.entries(settings)) node[`${kind.settingsModule}:${name}`] = value;
  return { 'network-topology:network-topology': { topology: [{ 'topology-id': kind.topology, node: [node] }] } };
}

/** An installed node as the Config datastore remembers it. */
export interface StoredNode {
  readonly kind: SouthboundKind;
  readonly nodeId: string;
  readonly settings: NodeSettings;
  /** Secrets that could not be opened (key file replaced): the node is restored without them. */
  readonly unreadable: readonly string[];
}

/** How `storedNodes` tells a secret setting and gets its clear value. */
export interface StoredSecrets {
  /** Whether the setting `name` of a node of that southbound is a sensitive leaf. */
  isSecret(kind: SouthboundKind, name: string): boolean;
  /** The setting's clear value; undefined when it cannot be opened. */
  reveal(kind: SouthboundKind, nodeId: string, name: string): string | undefined;
}

/** Every installed node in a Config datastore tree, in the topologies of `southbounds`, secrets opened. */
export function storedNodes(config: DataRoot, southbounds: Southbounds, secrets: StoredSecrets): StoredNode[] {
  const top = config.children.find((c) => c.schema.name === 'network-topology' && c.schema.module.name === 'network-topology');
  if (top === undefined) return [];
  const json = toJsonValue(top) as {
    'network-topology:network-topology'?: { topology?: Array<{ 'topology-id'?: string; node?: JsonObject[] }> };
  };
  const out: StoredNode[] = [];
  for (const topology of json['network-topology:network-topology']?.topology ?? []) {
    const southbound = southbounds.topology(String(topology['topology-id']));
    if (southbound === undefined) continue;
    const kind = kindOf(southbound);
    const prefix = `${kind.settingsModule}:`;
    for (const node of topology.node ?? []) {
      const nodeId = node['node-id'];
      if (typeof nodeId !== 'string') continue;
      const settings: Record<string, JsonValue> = {};
      const unreadable: string[] = [];
      for (const [member, value] of Object.entries(node)) {
        if (!member.startsWith(prefix)) continue;
        const name = member.slice(prefix.length);
        if (secrets.isSecret(kind, name) && typeof value === 'string') {
          const open = secrets.reveal(kind, nodeId, name);
          if (open === undefined) unreadable.push(name);
          else settings[name] = open;
        } else {
          settings[name] = name === 'port' && typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
        }
      }
      out.push({ kind, nodeId, settings, unreadable });
    }
  }
  return out;
}

/**
 * Which of `topologies` (the device topologies: their nodes are installed and removed with install-node
 * and uninstall-node only) have data that differs between two versions of the Config tree. Stored trees
 * share unchanged subtrees (copy-on-write), so an unchanged topology entry is the same object in both.
 */
export function changedDeviceTopologies(before: DataRoot, after: DataRoot, topologies: ReadonlySet<string>): string[] {
  const entries = (root: DataRoot): Map<string, DataNode> => {
    const out = new Map<string, DataNode>();
    const top = root.children.find((c) => c.schema.name === 'network-topology' && c.schema.module.name === 'network-topology');
    const list = top?.kind === 'container' ? top.children.find((c) => c.kind === 'list' && c.schema.name === 'topology') : undefined;
    if (list?.kind !== 'list') return out;
    for (const e of list.entries) {
      const id = e.children.find((c) => c.schema.name === 'topology-id');
      if (id?.kind === 'leaf' && topologies.has(String(id.value))) out.set(String(id.value), e);
    }
    return out;
  };
  if (before === after) return [];
  const a = entries(before);
  const b = entries(after);
  return [...topologies].filter((t) => a.get(t) !== b.get(t));
}

/**
 * The topologies devices are shown in (docs/devices.md#status), as data of the local schema:
 * - install-node settings become a node's configuration in the Config datastore, under topology `cli`
 *   (module cli-topology) or `topology-netconf` (netconf-node-topology); the leaves the modules mark
 *   `rosetta-secret:sensitive` (password, secret) are sealed as every such leaf is (datastore/sensitive.ts);
 * - the live status of every node is operational data computed on demand (`data.readState` for
 *   network-topology): topologies `cli`, `unified` and `topology-netconf`, each node with its
 *   `connection-status`, `connected-message`, and for NETCONF its available/unavailable capabilities.
 * Settings are read back from the Config datastore at start-up to reconnect the devices.
 */
import type { PathStep } from '../data/edit';
import { toJsonValue } from '../data/json-encode';
import type { DataRoot } from '../data/tree';
import type { JsonObject, JsonValue } from '../hooks';
import type { ListSchema, SchemaContext, SchemaNode } from '../yang/schema';

/** The southbound protocols the core knows a topology for. */
export type Protocol = 'cli' | 'netconf';

export const TOPOLOGY_OF: Readonly<Record<Protocol, string>> = { cli: 'cli', netconf: 'topology-netconf' };
export const UNIFIED = 'unified';
/** The module whose leaves describe a node of each protocol. */
export const MODULE_OF: Readonly<Record<Protocol, string>> = { cli: 'cli-topology', netconf: 'netconf-node-topology' };
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
export function nodeConfigJson(protocol: Protocol, nodeId: string, settings: NodeSettings): JsonObject {
  const module = MODULE_OF[protocol];
  const node: JsonObject = { 'node-id': nodeId };
  for (const [name, value] of Object.entries(settings)) node[`${module}:${name}`] = value;
  return { 'network-topology:network-topology': { topology: [{ 'topology-id': TOPOLOGY_OF[protocol], node: [node] }] } };
}

/** An installed node as the Config datastore remembers it. */
export interface StoredNode {
  readonly protocol: Protocol;
  readonly nodeId: string;
  readonly settings: NodeSettings;
  /** Secrets that could not be opened (key file replaced): the node is restored without them. */
  readonly unreadable: readonly string[];
}

/** How `storedNodes` tells a secret setting and gets its clear value. */
export interface StoredSecrets {
  /** Whether the setting `name` of a node of `protocol` is a sensitive leaf. */
  isSecret(protocol: Protocol, name: string): boolean;
  /** The setting's clear value; undefined when it cannot be opened. */
  reveal(protocol: Protocol, nodeId: string, name: string): string | undefined;
}

/** Every installed node in a Config datastore tree, secrets opened. */
export function storedNodes(config: DataRoot, secrets: StoredSecrets): StoredNode[] {
  const top = config.children.find((c) => c.schema.name === 'network-topology' && c.schema.module.name === 'network-topology');
  if (top === undefined) return [];
  const json = toJsonValue(top) as {
    'network-topology:network-topology'?: { topology?: Array<{ 'topology-id'?: string; node?: JsonObject[] }> };
  };
  const out: StoredNode[] = [];
  for (const topology of json['network-topology:network-topology']?.topology ?? []) {
    const protocol = (Object.keys(TOPOLOGY_OF) as Protocol[]).find((p) => TOPOLOGY_OF[p] === topology['topology-id']);
    if (protocol === undefined) continue;
    const prefix = `${MODULE_OF[protocol]}:`;
    for (const node of topology.node ?? []) {
      const nodeId = node['node-id'];
      if (typeof nodeId !== 'string') continue;
      const settings: Record<string, JsonValue> = {};
      const unreadable: string[] = [];
      for (const [member, value] of Object.entries(node)) {
        if (!member.startsWith(prefix)) continue;
        const name = member.slice(prefix.length);
        if (secrets.isSecret(protocol, name) && typeof value === 'string') {
          const open = secrets.reveal(protocol, nodeId, name);
          if (open === undefined) unreadable.push(name);
          else settings[name] = open;
        } else {
          settings[name] = name === 'port' && typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
        }
      }
      out.push({ protocol, nodeId, settings, unreadable });
    }
  }
  return out;
}

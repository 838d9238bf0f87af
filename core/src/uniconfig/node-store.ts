/**
 * Where the uniconfig layer keeps each node's configuration (docs/devices.md#uniconfig): the intended
 * configuration in the Config datastore and the actual one in the Operational datastore, both at
 * `network-topology/topology=uniconfig/node=<id>/uniconfig-topology:configuration` (anydata holding
 * the device's RFC 7951 JSON). The Operational datastore lives in memory, so the actual configurations
 * are also kept in a journal under `<dataDir>/uniconfig-actual-journal` (keyed-journal.ts: durable
 * before a change is acknowledged, the saves of many nodes sharing one fsync) and loaded back at
 * start-up: both survive a restart. The one file per node of earlier versions is moved into the journal
 * when found (legacy-actual-files.ts).
 *
 * With the datastores in PostgreSQL the actual configurations are a journal there (`uniconfig-actual`),
 * shared by the instances: the owner of a node writes its actual configuration, and the others take it
 * in soon after (a NOTIFY), at once when they gain the node (`catchUp`, before connecting it) and before
 * each uniconfig operation.
 *
 * Also here, because every writer of a node goes through this store: per-node versions (the stored
 * intended configuration object itself, which every change replaces, on this instance or another; a
 * transaction remembers the version it started from, which is how the second of two transactions on
 * one node is refused) and per-node locks (commits and immediate writes of one node
 * run one at a time; several nodes are always locked in sorted order, so two commits cannot deadlock).
 */
import * as path from 'node:path';
import type { Datastores } from '../datastore/datastore';
import { KeyedJournal, type KeyedChange } from '../datastore/keyed-journal';
import type { Database } from '../database';
import { readLegacyActualFiles, removeLegacyActualFiles } from './legacy-actual-files';
import { applyEdits, type Edit } from '../data/edit';
import { decodeJson } from '../data/json-decode';
import { findEntry } from '../data/list';
import { toJsonValue } from '../data/json-encode';
import { jsonEqual } from '../data/json-equal';
import type { AnyNode, DataRoot, ListEntryNode, ListNode } from '../data/tree';
import type { JsonObject } from '../hooks';
import { nodeSteps } from '../mount/topology';
import { DecodedTrees } from './decoded-trees';
import { NodeLocks } from './node-locks';
import type { AnySchema, ListSchema, SchemaContext } from '../yang/schema';

/** The topology whose nodes carry a configuration. */
export const UNICONFIG_TOPOLOGY = 'uniconfig';
/** The module that augments `configuration` into network-topology nodes. */
export const TOPOLOGY_MODULE = 'uniconfig-topology';
/** Its XML namespace (core/yang/uniconfig-topology). */
export const TOPOLOGY_NAMESPACE = 'urn:rosetta:params:xml:ns:yang:uniconfig-topology';
/** Folder under the data directory of the journal holding the actual configurations. */
const ACTUAL_JOURNAL = 'uniconfig-actual-journal';
/** Its name in the database, when the datastores are kept there. */
const DATABASE_ACTUAL_JOURNAL = 'uniconfig-actual';

/** A node's configuration in one datastore, as RFC 7951 JSON (what the anydata holds). */
export type ConfigurationJson = JsonObject;

/** One change of the store: undefined leaves that side alone, null removes it. */
export interface NodeUpdate {
  readonly nodeId: string;
  readonly intended?: ConfigurationJson | null;
  readonly actual?: ConfigurationJson | null;
}

/**
 * The local schema and datastores as they are now: the service may install a new schema (and reopen
 * the datastores on it) while running, so they are read at each use, never kept.
 */
export interface LocalStores {
  readonly schema: SchemaContext;
  readonly datastores: Datastores;
}

/** The schema nodes this store works with, found once per schema. */
interface TopologyNodes {
  readonly schema: SchemaContext;
  readonly nodeList: ListSchema;
  readonly configuration: AnySchema;
}

/** A node's version: its stored intended configuration object (undefined: none), replaced by every change. */
export type NodeVersion = object | undefined;

export class NodeStore {
  private readonly locks = new NodeLocks();
  private readonly decoded = new DecodedTrees();
  /** Per stored intended configuration, the actual one it was last compared with and the answer (changedNodeIds). */
  private readonly compared = new WeakMap<object, { actual: object; differs: boolean }>();
  private found: TopologyNodes | undefined;
  private readonly dataDir: string;
  private readonly journalDir: string;
  private actualJournal: KeyedJournal | undefined;
  /** The other instances' changes of actual configurations, applied to the Operational datastore in order. */
  private foreignApplied: Promise<void> = Promise.resolve();

  constructor(
    private readonly local: LocalStores,
    dataDir: string,
    private readonly database?: Database,
    private readonly log?: (message: string) => void,
  ) {
    this.nodes(); // a schema without the uniconfig modules is a start-up fault, not a request's
    this.dataDir = dataDir;
    this.journalDir = path.join(dataDir, ACTUAL_JOURNAL);
  }

  private nodes(): TopologyNodes {
    const schema = this.local.schema;
    if (this.found?.schema === schema) return this.found;
    const nodeList = nodeSteps(schema, UNICONFIG_TOPOLOGY, 'x')[2]!.schema as ListSchema;
    const configuration = nodeList.children.find((c) => c.name === 'configuration' && c.module.name === TOPOLOGY_MODULE);
    if (configuration?.kind !== 'anydata')
      throw new Error(`the local schema has no ${TOPOLOGY_MODULE}:configuration anydata under network-topology nodes`);
    this.found = { schema, nodeList, configuration };
    return this.found;
  }

  /** Loads the actual configurations written before a restart into the Operational datastore. */
  async open(): Promise<number> {
    const journal = await KeyedJournal.open(
      this.journalDir,
      this.database === undefined
        ? {}
        : { database: { database: this.database, name: DATABASE_ACTUAL_JOURNAL }, onForeign: (changes) => this.takeForeign(changes) },
    );
    this.actualJournal = journal;
    const legacy = await readLegacyActualFiles(this.dataDir);
    if (legacy.length > 0) {
      // the journal is newer than any file left: a file only fills in what the journal does not hold
      await journal.set(legacy.filter(([nodeId]) => journal.get(nodeId) === undefined));
      await removeLegacyActualFiles(
        this.dataDir,
        legacy.map(([nodeId]) => nodeId),
      );
    }
    const updates = [...journal.all()].map(([nodeId, value]) => ({ nodeId, value: value as ConfigurationJson }));
    // read from disk, so checked as anything from outside is
    if (updates.length > 0) await this.apply('operational', updates, false);
    return updates.length;
  }

  /**
   * Takes in the actual configurations other instances stored before this call (the database's shared
   * journal; nothing to do otherwise).
   */
  async catchUp(): Promise<void> {
    await this.actualJournal?.catchUp();
    await this.foreignApplied;
  }

  private takeForeign(changes: readonly KeyedChange[]): void {
    const values = changes.map(([nodeId, value]) => ({ nodeId, value: value as ConfigurationJson | null }));
    this.foreignApplied = this.foreignApplied
      .then(() => this.apply('operational', values, false))
      .catch((e: unknown) => this.log?.(`taking in actual configurations stored by another instance failed: ${(e as Error).message}`));
  }

  /** Closes the journal of actual configurations (service stop). */
  async close(): Promise<void> {
    await this.actualJournal?.close();
    this.actualJournal = undefined;
  }

  /** The node-ids of topology uniconfig in the Config datastore. */
  nodeIds(): string[] {
    const list = this.nodeListIn(this.local.datastores.config.current());
    if (list === undefined) return [];
    return list.entries.flatMap((e) =>
      e.children.flatMap((c) => (c.kind === 'leaf' && c.schema.name === 'node-id' ? [String(c.value)] : [])),
    );
  }

  /**
   * The uniconfig nodes whose intended configuration differs from the actual one (compared as stored).
   * A commit without a transaction asks this of every node: a stored configuration is never changed in
   * place (a change stores a new object), so a pair of objects compared once keeps its answer, and only
   * the nodes whose configuration was stored anew since the last call are serialised again: the rest of
   * the call is one lookup per node.
   */
  changedNodeIds(): string[] {
    const config = this.nodeListIn(this.local.datastores.config.current());
    if (config === undefined) return [];
    const operational = this.nodeListIn(this.local.datastores.operational.current());
    const changed: string[] = [];
    for (const entry of config.entries) {
      const id = entry.children.find((c) => c.kind === 'leaf' && c.schema.name === 'node-id');
      if (id?.kind !== 'leaf') continue;
      const nodeId = String(id.value);
      const intended = this.configurationOf(entry);
      const actualEntry = operational === undefined ? undefined : findEntry(operational, [nodeId]);
      const actual = actualEntry === undefined ? undefined : this.configurationOf(actualEntry);
      if (this.differs(intended, actual)) changed.push(nodeId);
    }
    return changed;
  }

  /**
   * Whether two stored configurations differ as JSON text; a pair is serialised once. Only the answer is
   * kept, not the text: a fleet's configurations as text would cost as much memory again.
   */
  private differs(intended: ConfigurationJson | undefined, actual: ConfigurationJson | undefined): boolean {
    if (intended === actual) return false;
    if (intended === undefined || actual === undefined) return true;
    const known = this.compared.get(intended);
    if (known !== undefined && known.actual === actual) return known.differs;
    const differs = JSON.stringify(intended) !== JSON.stringify(actual);
    this.compared.set(intended, { actual, differs });
    return differs;
  }

  /** A stored node entry's configuration, if it has one. */
  private configurationOf(entry: ListEntryNode): ConfigurationJson | undefined {
    const any = entry.children.find((c): c is AnyNode => c.schema === this.nodes().configuration);
    return any === undefined ? undefined : (any.value as ConfigurationJson);
  }

  /** Whether `nodeId` is a uniconfig node (has an intended configuration). */
  has(nodeId: string): boolean {
    return this.json('config', nodeId) !== undefined;
  }

  /** The stored configuration of a node in one datastore (intended: config, actual: operational). */
  json(datastore: 'config' | 'operational', nodeId: string): ConfigurationJson | undefined {
    const list = this.nodeListIn(this.local.datastores[datastore].current());
    const entry = list === undefined ? undefined : findEntry(list, [nodeId]);
    return entry === undefined ? undefined : this.configurationOf(entry);
  }

  /** The stored configuration as a tree of the device schema (kept for recently used versions). */
  tree(datastore: 'config' | 'operational', nodeId: string, deviceSchema: SchemaContext): DataRoot {
    const json = this.json(datastore, nodeId);
    return json === undefined ? { kind: 'root', children: [] } : this.decode(json, deviceSchema);
  }

  /** JSON as a tree of the device schema; a recently used JSON object is not decoded again (decoded-trees.ts). */
  decode(json: ConfigurationJson, deviceSchema: SchemaContext): DataRoot {
    const cached = this.decoded.get(json, deviceSchema);
    if (cached !== undefined) return cached;
    const root = decodeJson(json, deviceSchema, { allowState: false }).root;
    this.decoded.set(json, deviceSchema, root);
    return root;
  }

  /** A device tree as the JSON the store keeps, remembering the tree so it is not decoded again. */
  encode(root: DataRoot, deviceSchema: SchemaContext): ConfigurationJson {
    const json = toJsonValue(root, { attributes: false }) as ConfigurationJson;
    this.decoded.set(json, deviceSchema, root);
    return json;
  }

  /** The version of a node's stored configuration: its intended configuration object, which every change replaces. */
  version(nodeId: string): NodeVersion {
    return this.json('config', nodeId);
  }

  /**
   * Applies updates: the intended configurations in one durable Config write, the actual ones in
   * their journal and the Operational datastore.
   */
  async save(updates: readonly NodeUpdate[]): Promise<void> {
    const shared = updates.map((u) => {
      const intended = u.intended === undefined ? undefined : this.sharedWith('operational', u.nodeId, u.intended);
      return { ...u, intended, actual: u.actual === undefined ? undefined : this.sharedWith('config', u.nodeId, u.actual, intended) };
    });
    const intended = shared.filter((u) => u.intended !== undefined).map((u) => ({ nodeId: u.nodeId, value: u.intended! }));
    const actual = shared.filter((u) => u.actual !== undefined).map((u) => ({ nodeId: u.nodeId, value: u.actual! }));
    if (intended.length > 0) await this.apply('config', intended);
    if (actual.length > 0) {
      // one journal record for these nodes; saves running at once share an fsync
      if (this.actualJournal === undefined) throw new Error('the uniconfig node store is not open');
      await this.actualJournal.set(actual.map((u) => [u.nodeId, u.value] as const));
      // the others' changes it took in before this one land first, so this one is the newest
      await this.foreignApplied;
      await this.apply('operational', actual);
    }
  }

  /**
   * `value`, or the node's configuration stored in the other datastore when that is the same document
   * (`pending` is what the same update stores there): a node in sync keeps one configuration object and
   * one decoded tree for both sides, which is most of an idle device's memory (docs/operations.md#memory).
   */
  private sharedWith(
    other: 'config' | 'operational',
    nodeId: string,
    value: ConfigurationJson | null,
    pending?: ConfigurationJson | null,
  ): ConfigurationJson | null {
    if (value === null) return null;
    const there = pending === undefined ? this.json(other, nodeId) : pending;
    return there != null && jsonEqual(there, value) ? there : value;
  }

  /** Runs `work` holding the locks of `nodeIds` (taken in sorted order, released in any case). */
  locked<T>(nodeIds: readonly string[], work: () => Promise<T>): Promise<T> {
    return this.locks.locked(nodeIds, work);
  }

  private nodeListIn(root: DataRoot): ListNode | undefined {
    const steps = nodeSteps(this.local.schema, UNICONFIG_TOPOLOGY);
    const top = root.children.find((c) => c.schema === steps[0]!.schema);
    if (top?.kind !== 'container') return undefined;
    const topologies = top.children.find((c) => c.schema === steps[1]!.schema);
    if (topologies?.kind !== 'list') return undefined;
    const uniconfig = findEntry(topologies, [UNICONFIG_TOPOLOGY]);
    const nodes = uniconfig?.children.find((c) => c.schema === this.nodes().nodeList);
    return nodes?.kind === 'list' ? nodes : undefined;
  }

  /**
   * `root` (a version of one datastore's tree) with the configuration of some nodes replaced, changing
   * no datastore: what a transaction sees of the whole topology. Nodes `root` does not hold are left out
   * (a node uninstalled after the transaction looked at it stays gone).
   */
  overlaid(
    root: DataRoot,
    datastore: 'config' | 'operational',
    values: ReadonlyArray<{ nodeId: string; value: ConfigurationJson }>,
  ): DataRoot {
    const list = this.nodeListIn(root);
    const present = list === undefined ? [] : values.filter((v) => findEntry(list, [v.nodeId]) !== undefined);
    if (present.length === 0) return root;
    const value = decodeJson(this.topologyDocument(present), this.local.schema, {
      allowState: datastore === 'operational',
      anydataChecked: true,
    }).root;
    return applyEdits(root, [{ operation: 'merge', target: [], value }], this.local.schema);
  }

  /**
   * `root` without the configuration of the uniconfig nodes `nodeIds` (all when not given), changing no
   * datastore (see topology-view.ts). All of them is one pass over the node list that copies it once,
   * not an edit per node; a few are an edit each, whatever the size of the fleet.
   */
  withoutConfigurations(root: DataRoot, nodeIds?: readonly string[]): DataRoot {
    const list = this.nodeListIn(root);
    if (list === undefined) return root;
    const { schema } = this.local;
    const { configuration, nodeList } = this.nodes();
    if (nodeIds !== undefined) {
      const edits: Edit[] = nodeIds
        .filter((id) => findEntry(list, [id])?.children.some((c) => c.schema === configuration) === true)
        .map((id) => ({ operation: 'remove', target: [...nodeSteps(schema, UNICONFIG_TOPOLOGY, id), { schema: configuration }] }));
      return edits.length === 0 ? root : applyEdits(root, edits, schema);
    }
    let stripped = false;
    const entries = list.entries.map((entry) => {
      if (!entry.children.some((c) => c.schema === configuration)) return entry;
      stripped = true;
      return { ...entry, children: entry.children.filter((c) => c.schema !== configuration) };
    });
    if (!stripped) return root;
    const value: ListNode = {
      kind: 'list',
      schema: nodeList,
      entries,
      ...(list.attributes !== undefined ? { attributes: list.attributes } : {}),
    };
    return applyEdits(
      root,
      [{ operation: 'replace', target: [...nodeSteps(schema, UNICONFIG_TOPOLOGY), { schema: nodeList }], value }],
      schema,
    );
  }

  /** The network-topology document setting the configuration of each node in `values`. */
  private topologyDocument(values: ReadonlyArray<{ nodeId: string; value: ConfigurationJson | null }>): JsonObject {
    return {
      'network-topology:network-topology': {
        topology: [
          {
            'topology-id': UNICONFIG_TOPOLOGY,
            node: values.map((v) => ({ 'node-id': v.nodeId, [`${TOPOLOGY_MODULE}:configuration`]: v.value })),
          },
        ],
      },
    };
  }

  /**
   * Sets (or with null removes) the configuration of nodes in one datastore, in one write. `checked`:
   * the values were encoded here from checked trees (json-decode.ts's `anydataChecked`).
   */
  private async apply(
    datastore: 'config' | 'operational',
    values: ReadonlyArray<{ nodeId: string; value: ConfigurationJson | null }>,
    checked = true,
  ): Promise<void> {
    const edits: Edit[] = [];
    const put = values.filter((v) => v.value !== null);
    if (put.length > 0) {
      edits.push({
        operation: 'merge',
        target: [],
        value: decodeJson(this.topologyDocument(put), this.local.schema, {
          allowState: datastore === 'operational',
          anydataChecked: checked,
        }).root,
      });
    }
    for (const v of values)
      if (v.value === null) edits.push({ operation: 'remove', target: nodeSteps(this.local.schema, UNICONFIG_TOPOLOGY, v.nodeId) });
    await this.local.datastores[datastore].apply(edits);
  }
}

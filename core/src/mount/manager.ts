/**
 * The mount manager: the installed devices of a running service and their lifecycle. It installs
 * (connect through the southbound's `device.connect` tap, compile the device schema, remember the node in
 * the Config datastore), uninstalls, reconnects the remembered nodes at start-up, and hands the RESTCONF
 * layer a {@link MountedDevice} to read, write and invoke through (device-data.ts). Which southbounds
 * exist, their install containers and topologies, it learns from their descriptors (southbounds.ts);
 * the nodes' live status is rendered by status.ts. It knows devices and nothing about HTTP.
 *
 * A node is in the registry from the moment its install starts (a second install of the same node-id is
 * 409, and its status reads `connecting`) and leaves it if the install fails: nothing is persisted before
 * the device is connected and its schema compiled, so a failed install leaves nothing behind.
 *
 * Why this file is longer than 400 lines: install, uninstall, restore and reconnect all act on one
 * registry of nodes, its reconnect timers and its closed state, and must be read together to see a node's
 * whole lifecycle; the node record (node.ts), the device view (device-data.ts), the southbounds
 * (southbounds.ts) and the status (status.ts) are already apart.
 */
import type { DeviceCallObserver } from './device-calls';
import type { JobStarter } from '../jobs';
import type { Logger } from '../logger';
import type { Datastores } from '../datastore/datastore';
import { fault } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import type { DeviceConnection, DeviceInfo, JsonObject, OperationResult, RosettaHooks, RpcContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import { findDataChild, type SchemaContext } from '../yang/schema';
import { deviceCodec } from './codec';
import { ConnectGate, jitter } from './connect-pacing';
import { DeviceSchemaCache, type SchemaSourceText } from './device-schema';
import { badSetting, connectFailure, noConnection, nodeElsewhere, nodeExists, nodeMissing, notServed } from './errors';
import type { Elsewhere } from '../fault';
import { SecretBox } from '../datastore/secrets';
import { isSensitive, revealSecret, sealTree } from '../datastore/sensitive';
import { newNode, statusOf, type MountedDevice, type MountedNode } from './node';
import { type EventPublisher, NodeEvents } from './node-events';
import { NodeRegistry } from './node-registry';
import { southboundsOf } from './southbounds';
import { networkTopologyStatus, type StatusRead } from './status';
import {
  changedDeviceTopologies,
  kindOf,
  nodeConfigJson,
  nodeSteps,
  plainSettings,
  settingsToStore,
  storedNodes,
  UNIFIED,
  type SouthboundKind,
} from './topology';

export type { ConnectionStatus, MountedDevice, MountedNode } from './node';

export interface MountOptions {
  readonly datastores: Datastores;
  /** The local schema (network-topology, connection-manager and the southbounds' topology modules). */
  readonly schema: SchemaContext;
  /** Leases on the current plugin generation (the plugin host). */
  readonly scopes: { acquire(): PluginScope };
  /** The service's data folder: holds the key that seals device passwords unless `secrets` is given. */
  readonly dataDir: string;
  /** The box of the service's secrets key (the Config datastore's, so both see the one key). */
  readonly secrets?: SecretBox;
  /** Folders that resolve imports of device modules (the core's own YANG folder). */
  readonly importDirs: readonly string[];
  /** Where the manager reports what an operator should see. Never given a password. */
  readonly log: Logger;
  /**
   * YANG folders of the southbound plugins now loaded (their device RPCs, e.g. execute-and-read): they
   * join the schema of every device whose models are translation units, beside its units' models.
   */
  readonly southboundYangDirs?: () => readonly string[];
  /**
   * First wait between reconnection attempts of a restored node (ms, default 2000; grows 1.5x to a minute,
   * each wait drawn from its upper half); restored nodes make their first attempt within this window.
   */
  readonly retryMs?: number;
  /** Connection attempts of restored nodes and southbound reconnects in flight at once (default 8; `fleet.connectConcurrency`). */
  readonly connectConcurrency?: number;
  /** The service's event hub: node status and device notifications are published to it (node-events.ts). */
  readonly events?: EventPublisher;
  /** Told of each southbound call's protocol, kind, duration and success (the service's metrics). */
  readonly observeDeviceCall?: DeviceCallObserver;
  /** Where device schema compiles are reported as `schema-compile` jobs (device-schema.ts). */
  readonly jobs?: JobStarter;
  /**
   * With several instances on one database: who owns each node (database/node-leases.ts). An install
   * takes the node's lease first (refused, naming the owner, when a live instance holds it), and an
   * uninstall of a node another instance owns removes it from the Config datastore, which that owner
   * sees at its next renewal.
   */
  readonly ownership?: NodeOwnership;
}

/** The leases an install or uninstall takes or gives back (see MountOptions.ownership). */
export interface NodeOwnership {
  /** Takes `nodeId`'s lease for this instance: undefined when taken, else the instance that holds it. */
  claim(nodeId: string): Promise<string | undefined>;
  release(nodeId: string): Promise<void>;
  /** Whether this instance owns `nodeId`. */
  holds(nodeId: string): boolean;
  /** The URL of the other live instance that owns `nodeId` now, if one does (asked of the database). */
  locate(nodeId: string): Promise<string | undefined>;
  /** Takes `nodeIds` for a commit here, asking their owners for them; pinned until `unpin`. Resolves with those held. */
  borrow(nodeIds: readonly string[]): Promise<readonly string[]>;
  unpin(nodeIds: readonly string[]): void;
}

/** How long a commit waits for nodes it borrowed from other instances to connect here. */
const BORROWED_CONNECT_MS = 15_000;

const MAX_RETRY_MS = 60_000;
const NO_DIRS: readonly string[] = [];
/** For reading which nodes are stored without opening their sealed settings. */
const NO_SECRETS = { isSecret: () => false, reveal: () => undefined };

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class MountManager {
  private readonly nodes = new NodeRegistry();
  private readonly schemas: DeviceSchemaCache;
  /** Per plugin generation (its hooks), the device schemas its `schema.loaded` taps were given, per node. */
  private readonly announced = new WeakMap<RosettaHooks, WeakMap<SchemaContext, Set<string>>>();
  private readonly box: SecretBox;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Bounds the connection attempts of restored nodes, and of the southbounds' own reconnects (connect-pacing.ts). */
  readonly connects: ConnectGate;
  private readonly events: NodeEvents;
  private closed = false;

  constructor(private readonly options: MountOptions) {
    this.schemas = new DeviceSchemaCache(options.jobs);
    this.box = options.secrets ?? SecretBox.open(options.dataDir);
    this.connects = new ConnectGate(options.connectConcurrency);
    this.events = new NodeEvents(options.events, () => this.options.schema, options.log);
  }

  /**
   * The core's taps: install-node, uninstall-node, and the live node status under network-topology
   * (status.ts). `hooks` may be a recorder whose taps are replayed into every generation, so the taps
   * learn the southbounds from the generation they run in (a lease), never from `hooks`.
   */
  tap(hooks: RosettaHooks): void {
    hooks.rpc.invoke.for('connection-manager:install-node').tapPromise('mount', (ctx) => this.withScope((s) => this.install(s, ctx)));
    hooks.rpc.invoke.for('connection-manager:uninstall-node').tapPromise('mount', (ctx) => this.uninstall(ctx));
    hooks.data.readState.for('network-topology').tapPromise('mount', async (state, read) => ({ ...state, ...this.statusJson(read) }));
    hooks.data.beforeWrite.tapPromise('mount', async (ctx) => {
      const changed = changedDeviceTopologies(ctx.before, ctx.after, this.deviceTopologies());
      if (changed.length > 0) {
        ctx.faults.push(
          fault(
            'invalid-value',
            `/network-topology:network-topology/topology[topology-id='${changed[0]}']`,
            `nodes of topology '${changed[0]}' are installed and removed with connection-manager:install-node and uninstall-node, not written directly`,
          ),
        );
      }
    });
  }

  /**
   * The topologies whose nodes only install-node and uninstall-node change: the southbounds', those holding
   * nodes (of a southbound since unloaded too) and `unified`. Asked on every local write: it costs the
   * number of topologies, never the number of nodes (the registry counts them as they come and go).
   */
  private deviceTopologies(): Set<string> {
    const scope = this.options.scopes.acquire();
    try {
      const topologies = new Set(southboundsOf(scope.hooks).all.map((d) => d.topology));
      for (const topology of this.nodes.topologies()) topologies.add(topology);
      return topologies.add(UNIFIED);
    } finally {
      scope.release();
    }
  }

  private async withScope<T>(work: (scope: PluginScope) => Promise<T>): Promise<T> {
    const scope = this.options.scopes.acquire();
    try {
      return await work(scope);
    } finally {
      scope.release();
    }
  }

  /** install-node. Resolves once connected; MountError 409/400/501/502 otherwise, nothing left behind. */
  async install(scope: PluginScope, ctx: RpcContext): Promise<OperationResult> {
    const nodeId = ctx.input['node-id'];
    if (typeof nodeId !== 'string' || nodeId === '')
      throw badSetting('/connection-manager:install-node/input/node-id', 'node-id is required');
    const southbounds = southboundsOf(scope.hooks);
    const containers = southbounds.installContainers;
    if (containers.length === 0) throw notServed('no southbound plugin is loaded to install a device with');
    const given = containers.filter((c) => ctx.input[c] !== undefined);
    if (given.length !== 1) {
      throw badSetting(
        '/connection-manager:install-node/input',
        given.length === 0
          ? `give a ${containers.join(' or a ')} container`
          : `give one protocol container, not ${given.length === 2 ? 'both' : 'several'}`,
      );
    }
    const kind = kindOf(southbounds.container(given[0]!)!);
    const settings = plainSettings(ctx.input[kind.installContainer] as JsonObject);
    if (typeof settings.host !== 'string')
      throw badSetting(
        `/connection-manager:install-node/input/${kind.installContainer}/${kind.settingsModule}:host`,
        `${kind.settingsModule}:host is required`,
      );
    const existing = this.nodes.get(nodeId);
    if (existing !== undefined) throw nodeExists(nodeId, existing.kind.topology);
    const ownership = this.options.ownership;
    if (ownership !== undefined) {
      if (this.storedNodeIds().includes(nodeId)) throw nodeExists(nodeId, kind.topology);
      const holder = await ownership.claim(nodeId);
      if (holder !== undefined) throw nodeExists(nodeId, kind.topology, `instance ${holder} owns it`);
    }
    const node = newNode(nodeId, kind, settings);
    node.installing = true;
    this.nodes.set(nodeId, node);
    this.events.added(node);
    try {
      await this.connect(scope, node);
      node.settings = settingsToStore(node.settings, node.connection?.hostKey);
      if (node.settings['host-key'] !== settings['host-key'])
        this.options.log.info(`node ${nodeId}: trusting its SSH host key ${String(node.settings['host-key'])} (trust-on-first-use)`, {
          nodeId,
        });
      await this.options.datastores.config.apply([{ operation: 'merge', target: [], value: this.configTree(node) }]);
    } catch (e) {
      this.nodes.delete(nodeId);
      node.removed = true;
      this.events.failed(node, message(e));
      await node.connection?.close().catch(() => undefined);
      await ownership?.release(nodeId).catch(() => undefined);
      throw e;
    } finally {
      node.installing = false;
    }
    this.events.status(node);
    this.events.installed(node);
    this.options.log.info(`node ${nodeId} installed (${kind.protocol} ${settings.host}:${settings.port ?? 'default port'})`, { nodeId });
    return { output: null };
  }

  /** uninstall-node: closes the connection and forgets the node. 404 for an unknown node or another connection-type. */
  async uninstall(ctx: RpcContext): Promise<OperationResult> {
    const nodeId = ctx.input['node-id'];
    const type = ctx.input['connection-type'];
    const node = typeof nodeId === 'string' ? this.nodes.get(nodeId) : undefined;
    if (node === undefined && typeof nodeId === 'string' && this.options.ownership !== undefined)
      return this.uninstallElsewhere(nodeId, type);
    if (node === undefined || node.installing) throw nodeMissing(String(nodeId));
    if (type !== undefined && type !== node.protocol)
      throw nodeMissing(node.nodeId, `is installed as ${node.protocol}, not ${String(type)}`);
    node.removed = true;
    this.nodes.delete(node.nodeId);
    await node.connection
      ?.close()
      .catch((e: unknown) => this.options.log.error(`node ${node.nodeId}: close failed: ${message(e)}`, { nodeId: node.nodeId }));
    node.connection = undefined;
    await this.options.datastores.config.apply([
      { operation: 'remove', target: nodeSteps(this.options.schema, node.kind.topology, node.nodeId) },
    ]);
    this.events.uninstalled(node);
    this.options.log.info(`node ${node.nodeId} uninstalled`, { nodeId: node.nodeId });
    return { output: null };
  }

  /** uninstall-node of a node another instance owns: removed from the Config datastore; its owner lets go at its next renewal. */
  private async uninstallElsewhere(nodeId: string, type: unknown): Promise<OperationResult> {
    const scope = this.options.scopes.acquire();
    let stored: ReturnType<typeof storedNodes>[number] | undefined;
    try {
      stored = storedNodes(this.options.datastores.config.current(), southboundsOf(scope.hooks), NO_SECRETS).find(
        (s) => s.nodeId === nodeId,
      );
    } finally {
      scope.release();
    }
    if (stored === undefined) throw nodeMissing(nodeId);
    if (type !== undefined && type !== stored.kind.protocol)
      throw nodeMissing(nodeId, `is installed as ${stored.kind.protocol}, not ${String(type)}`);
    await this.options.datastores.config.apply([
      { operation: 'remove', target: nodeSteps(this.options.schema, stored.kind.topology, nodeId) },
    ]);
    this.options.log.info(`node ${nodeId} uninstalled (its session, on another instance, closes at that instance's next lease renewal)`, {
      nodeId,
    });
    return { output: null };
  }

  /** The node-ids installed: those the Config datastore holds, and those being installed here. */
  storedNodeIds(): string[] {
    const scope = this.options.scopes.acquire();
    try {
      const ids = storedNodes(this.options.datastores.config.current(), southboundsOf(scope.hooks), NO_SECRETS).map((s) => s.nodeId);
      for (const node of this.nodes.values()) if (node.installing) ids.push(node.nodeId);
      return ids;
    } finally {
      scope.release();
    }
  }

  /**
   * Closes the sessions of nodes this instance no longer owns (another instance connects them) and
   * forgets them here; they stay installed.
   */
  async letGo(nodeIds: readonly string[]): Promise<void> {
    const going: MountedNode[] = [];
    for (const nodeId of nodeIds) {
      const node = this.nodes.get(nodeId);
      if (node === undefined || node.installing) continue;
      node.removed = true;
      this.nodes.delete(nodeId);
      this.events.handedOver(node);
      going.push(node);
    }
    await Promise.all(
      going.map(async (node) => {
        await node.connection?.close().catch(() => undefined);
        node.connection = undefined;
        this.options.log.info(`node ${node.nodeId}: session closed, another instance owns it now`, { nodeId: node.nodeId });
      }),
    );
  }

  /**
   * Reconnects the nodes remembered in the Config datastore (`only` those, when given: the nodes this
   * instance owns), in the background (status shows progress): first attempts spread over the retry
   * window and at most `connectConcurrency` of them in flight.
   */
  restore(only?: ReadonlySet<string>): number {
    const config = this.options.datastores.config.current();
    const scope = this.options.scopes.acquire();
    let stored: ReturnType<typeof storedNodes>;
    try {
      stored = storedNodes(config, southboundsOf(scope.hooks), {
        isSecret: (kind, name) => this.settingLeaf(kind, name) !== undefined,
        reveal: (kind, nodeId, name) => {
          const leaf = this.settingLeaf(kind, name);
          return leaf === undefined
            ? undefined
            : revealSecret(config, [...nodeSteps(this.options.schema, kind.topology, nodeId), { schema: leaf }], this.box);
        },
      });
    } finally {
      scope.release();
    }
    if (only !== undefined) stored = stored.filter((s) => only.has(s.nodeId));
    for (const s of stored) {
      if (this.nodes.has(s.nodeId)) continue;
      const node = newNode(s.nodeId, s.kind, s.settings);
      if (s.unreadable.length > 0)
        node.problem = `the stored ${s.unreadable.join(', ')} cannot be opened with this data folder's key; reinstall the node`;
      this.nodes.set(s.nodeId, node);
      this.events.added(node);
      const retry = this.options.retryMs ?? 2000;
      this.later(jitter(retry, 0), () => this.reconnect(node, retry));
    }
    return stored.length;
  }

  /** One paced attempt to connect a restored node; a failure tries again after `wait`, spread at random. */
  private reconnect(node: MountedNode, wait: number): void {
    if (this.closed || node.removed) return;
    void this.connects
      .attempt(() => {
        // the node may have gone while it waited for a slot
        if (this.closed || node.removed) return Promise.reject(nodeMissing(node.nodeId, 'was uninstalled while waiting to reconnect'));
        return this.withScope((scope) => this.connect(scope, node));
      })
      .then(
        () => {
          this.events.status(node);
          this.options.log.info(`node ${node.nodeId} reconnected`, { nodeId: node.nodeId });
        },
        (e: unknown) => {
          if (this.closed || node.removed) return;
          node.problem = message(e);
          this.events.status(node);
          const next = jitter(wait);
          this.options.log.error(`node ${node.nodeId}: reconnect failed (${node.problem}); next attempt in ${next} ms`, {
            nodeId: node.nodeId,
          });
          this.later(next, () => this.reconnect(node, Math.min(MAX_RETRY_MS, Math.round(wait * 1.5))));
        },
      );
  }

  /** Runs `work` after `ms` unless the manager closes first. */
  private later(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Connects `node` through its southbound's plugin and compiles its schema. */
  private async connect(scope: PluginScope, node: MountedNode): Promise<void> {
    const hook = scope.hooks.device.connect.get(node.protocol);
    if (hook === undefined || !hook.isUsed()) throw notServed(`no southbound plugin serves '${node.protocol}' devices`);
    const info = this.infoOf(scope, node);
    let connection: DeviceConnection | undefined;
    try {
      const events = this.events.forConnection(node);
      connection = await hook.promise({ device: info, settings: node.settings, pacing: this.connects, ...(events ? { events } : {}) });
    } catch (e) {
      throw connectFailure(node.nodeId, e);
    }
    if (connection === undefined) throw notServed(`no southbound plugin accepted the ${node.protocol} settings of '${node.nodeId}'`);
    if (node.removed || this.closed) {
      await connection.close().catch(() => undefined);
      throw nodeMissing(node.nodeId, 'was uninstalled while connecting');
    }
    node.connection = connection;
    this.compileOwnSchema(node, connection);
    if (node.ownSchema !== undefined) this.announce(scope, node.ownSchema.schema, node.nodeId);
    node.problem = undefined;
  }

  /**
   * Runs `schema.loaded` for a device's schema, once per generation, schema and node: at install, and at
   * a node's first request in a generation (a plugin swapped in later, a CLI device's unit set compiled
   * per request, a module set that changed). Cheap when nothing taps the hook. A failing tap is logged.
   */
  private announce(scope: PluginScope, schema: SchemaContext, nodeId: string): void {
    const hook = scope.hooks.schema.loaded;
    if (!hook.isUsed()) return;
    let bySchema = this.announced.get(scope.hooks);
    if (bySchema === undefined) this.announced.set(scope.hooks, (bySchema = new WeakMap()));
    let nodes = bySchema.get(schema);
    if (nodes === undefined) bySchema.set(schema, (nodes = new Set()));
    if (nodes.has(nodeId)) return;
    nodes.add(nodeId);
    try {
      hook.call({ schema, scope: { kind: 'device', nodeId } });
    } catch (e) {
      this.options.log.error(`node ${nodeId}: a schema.loaded tap failed: ${message(e)}`, { nodeId });
    }
  }

  /** Compiles the modules the connection handed over (shared per module set); failures are logged. */
  private compileOwnSchema(node: MountedNode, connection: DeviceConnection): void {
    if (connection.schemaSources === undefined) return;
    node.ownSchema = this.schemas.forSources(connection.schemaSources, this.options.importDirs, node.nodeId);
    node.ownSchemaSet = connection.moduleSetId;
    for (const f of node.ownSchema.failed)
      this.options.log.error(`node ${node.nodeId}: module ${f.module} left out: ${f.reason}`, { nodeId: node.nodeId });
  }

  /** What a southbound is told of a node: for one whose models are translation units, the units serving it in `scope`. */
  private infoOf(scope: PluginScope, node: MountedNode): DeviceInfo {
    if (node.kind.models !== 'translation-units' || node.deviceType === undefined) {
      return {
        nodeId: node.nodeId,
        protocol: node.protocol,
        units: [],
        ...(node.deviceType ? { deviceType: node.deviceType } : {}),
        ...(node.deviceVersion ? { deviceVersion: node.deviceVersion } : {}),
      };
    }
    const match = scope.unitsFor(node.deviceType, node.deviceVersion ?? '*');
    return {
      nodeId: node.nodeId,
      protocol: node.protocol,
      deviceType: node.deviceType,
      ...(node.deviceVersion ? { deviceVersion: node.deviceVersion } : {}),
      units: match.units,
      ...(match.reason !== undefined ? { unitsMissingReason: match.reason } : {}),
    };
  }

  /**
   * The Config datastore tree of a node's settings, its sensitive leaves (password, secret) sealed here
   * already: the Config datastore seals them too, but the mount layer does not rely on the store it is given.
   */
  private configTree(node: MountedNode) {
    return sealTree(
      decodeJson(nodeConfigJson(node.kind, node.nodeId, node.settings), this.options.schema, { allowState: false }).root,
      this.box,
    );
  }

  /** The southbound plugins' own YANG folders (none without a plugin host). */
  private southboundDirs(): readonly string[] {
    return this.options.southboundYangDirs?.() ?? NO_DIRS;
  }

  /** The sensitive leaf of a node's setting `name` in the local schema, if it is one. */
  private settingLeaf(kind: SouthboundKind, name: string) {
    const nodeList = nodeSteps(this.options.schema, kind.topology, '').at(-1)!.schema;
    const leaf = findDataChild(nodeList.children, kind.settingsModule, name);
    return leaf !== undefined && isSensitive(leaf) ? leaf : undefined;
  }

  /**
   * Runs `work` (a commit of several nodes) with `nodeIds` held and connected here: with several
   * instances on one database, the nodes others own are asked for and connected here first, and none
   * of them is handed over until `work` ends (database/node-leases.ts, borrowing). A node not had or
   * not connected in time is left to `work` to find unreachable.
   */
  async withNodesHere<T>(nodeIds: readonly string[], work: () => Promise<T>): Promise<T> {
    const ownership = this.options.ownership;
    if (ownership === undefined) return work();
    const borrowed = nodeIds.filter((n) => !ownership.holds(n));
    const held = await ownership.borrow(nodeIds);
    try {
      const waiting = borrowed.filter((n) => held.includes(n));
      for (const deadline = performance.now() + BORROWED_CONNECT_MS; performance.now() < deadline; ) {
        if (
          waiting.every((n) => {
            const node = this.nodes.get(n);
            return node !== undefined && statusOf(node) === 'connected';
          })
        )
          break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (borrowed.length > 0)
        this.options.log.info(`borrowed ${held.filter((n) => borrowed.includes(n)).length} of ${borrowed.length} node(s) for a commit`);
      return await work();
    } finally {
      ownership.unpin(nodeIds);
    }
  }

  /**
   * Where to send a request for node `nodeId` when another instance sharing the database owns it (an
   * installed node this instance does not hold); undefined when it is here, or nowhere.
   */
  elsewhere(nodeId: string): Elsewhere | undefined {
    const ownership = this.options.ownership;
    if (ownership === undefined || this.nodes.has(nodeId) || ownership.holds(nodeId) || !this.storedNodeIds().includes(nodeId))
      return undefined;
    return nodeElsewhere(nodeId, () => ownership.locate(nodeId));
  }

  /**
   * The node reached under `topology=<topology>/node=<nodeId>` (topology `unified` reaches every node),
   * as a request in `scope` uses it. MountError 404 when there is no such node, 502 when it has no session.
   */
  device(scope: PluginScope, topology: string, nodeId: string): MountedDevice {
    const node = this.nodes.get(nodeId);
    const away = node === undefined ? this.elsewhere(nodeId) : undefined;
    if (away !== undefined) throw away;
    if (node === undefined || node.installing || (topology !== UNIFIED && topology !== node.kind.topology)) {
      throw nodeMissing(nodeId, `is not installed in topology '${topology}'`);
    }
    const connection = node.connection;
    if (connection === undefined) throw noConnection(nodeId, node.problem ?? 'not connected yet');
    if (node.ownSchema !== undefined && connection.moduleSetId !== node.ownSchemaSet) {
      // the device came back from a reconnect with other modules (an upgrade): compile what it has now
      this.options.log.info(
        `node ${nodeId}: module set changed (${node.ownSchemaSet ?? '?'} -> ${connection.moduleSetId ?? '?'}); compiling its schema again`,
        { nodeId },
      );
      this.compileOwnSchema(node, connection);
    }
    const info = this.infoOf(scope, node);
    const schema = node.ownSchema ?? this.schemas.forUnits(info.units, this.southboundDirs(), this.options.importDirs, nodeId);
    this.announce(scope, schema.schema, nodeId);
    return {
      node,
      info,
      connection,
      schema: schema.schema,
      codec: node.ownSchema ? deviceCodec(schema.schema) : undefined,
      failed: schema.failed,
      ...(this.options.observeDeviceCall !== undefined ? { observe: this.options.observeDeviceCall } : {}),
    };
  }

  /**
   * The schema of an installed node whether or not it is connected now (the uniconfig layer serves its
   * stored copy of a device that is down): a connected node's is {@link device}'s; one whose models are
   * translation units follows its units; one with its own models that has not connected since start-up compiles `sources` (modules its
   * caller kept from an earlier connection) in the shared cache, so a later connection with the same
   * modules yields the very same schema object. Undefined when nothing is known; MountError 404 for a
   * node that is not installed.
   */
  schemaOf(scope: PluginScope, nodeId: string, sources?: () => readonly SchemaSourceText[] | undefined): SchemaContext | undefined {
    const node = this.nodes.get(nodeId);
    if (node === undefined) {
      // owned by another instance: its stored configuration is read and edited here (in a transaction
      // committed here) with the modules kept for it; without them, the request goes to the owner
      const away = this.elsewhere(nodeId);
      const kept = away === undefined ? undefined : sources?.();
      if (kept !== undefined) return this.schemas.forSources(kept, this.options.importDirs, nodeId).schema;
      if (away !== undefined) throw away;
    }
    if (node === undefined || node.installing) throw nodeMissing(nodeId, 'is not installed');
    if (node.connection !== undefined) return this.device(scope, UNIFIED, nodeId).schema;
    if (node.ownSchema !== undefined) return node.ownSchema.schema;
    if (node.kind.models === 'translation-units')
      return this.schemas.forUnits(this.infoOf(scope, node).units, this.southboundDirs(), this.options.importDirs, nodeId).schema;
    const kept = sources?.();
    return kept === undefined ? undefined : this.schemas.forSources(kept, this.options.importDirs, nodeId).schema;
  }

  /** Operational `network-topology` as the southbounds serving now render it, as much as `read` asks for (status.ts). */
  statusJson(read?: StatusRead): JsonObject {
    const scope = this.options.scopes.acquire();
    try {
      return networkTopologyStatus(this.nodes, southboundsOf(scope.hooks), (node) => this.infoOf(scope, node), read);
    } finally {
      scope.release();
    }
  }

  /** Installed nodes with the device type and version they were installed with (plugin introspection). */
  installedDevices(): Array<{ nodeId: string; deviceType?: string; deviceVersion?: string }> {
    return [...this.nodes.values()]
      .filter((n) => !n.installing)
      .map((n) => ({
        nodeId: n.nodeId,
        ...(n.deviceType !== undefined ? { deviceType: n.deviceType } : {}),
        ...(n.deviceVersion !== undefined ? { deviceVersion: n.deviceVersion } : {}),
      }));
  }

  /** The installed node `nodeId` (not one still being installed), if there is one. */
  installedNode(nodeId: string): MountedNode | undefined {
    const node = this.nodes.get(nodeId);
    return node === undefined || node.installing ? undefined : node;
  }

  /** Every installed node (not those still being installed), in no particular order. */
  installedNodes(): MountedNode[] {
    return [...this.nodes.values()].filter((n) => !n.installing);
  }

  /** Installed node ids (for tests and the start-up report). */
  get nodeIds(): string[] {
    return [...this.nodes.keys()];
  }

  /** Closes every connection and stops reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const open = [...this.nodes.values()];
    this.nodes.clear();
    await Promise.all(open.map((n) => n.connection?.close().catch(() => undefined)));
  }
}

/**
 * The uniconfig engine: node views and writes (docs/devices.md#uniconfig); a commit of many nodes is
 * commit.ts, which the engine hands its store, log, bound and reachable devices.
 *
 * - A *view* of a node is what a request sees of it: inside a transaction, the transaction's copy
 *   (taken when the transaction first looks at the node); without one, the stored intended and actual
 *   configurations.
 * - An immediate write (no transaction) is a one-node commit: the edit is applied to the stored
 *   intended configuration, the difference from the actual one is pushed to the device, and only once
 *   the device took it are both configurations stored; if the device refuses, the southbound has undone
 *   its own partial work and nothing is stored (the device's error is the answer).
 */
import type { DataChangeFeed } from '../events/data-change-feed';
import type { Logger } from '../logger';
import { applyEdits, type Edit } from '../data/edit';
import type { DataRoot } from '../data/tree';
import type { MountedDevice, MountManager } from '../mount';
import { noConnection } from '../mount/errors';
import type { PluginScope } from '../plugins/generation';
import type { SchemaContext } from '../yang/schema';
import { RestconfError } from '../restconf/errors';
import { type CommitOptions, type CommitOutcome, type CommitParts, commitNodes, DEFAULT_COMMIT_CONCURRENCY, readBack } from './commit';
import { type NodeChange, publishNodeChanges } from './change-events';
import { pushConfiguration } from './device-io';
import type { DeviceModuleStore } from './device-modules';
import type { NodeStore } from './node-store';
import type { NodeView, Transaction } from './transactions';

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** 404 for a node-id that names no uniconfig node. */
export function unknownNode(nodeId: string): RestconfError {
  return RestconfError.of('data-missing', `node '${nodeId}' is not a node of topology uniconfig`, { type: 'application' });
}

export class UniconfigEngine {
  constructor(
    readonly store: NodeStore,
    private readonly mount: MountManager,
    private readonly log: Logger,
    readonly modules: DeviceModuleStore,
    /** Devices a commit pushes to at once (`fleet.commitConcurrency`). */
    readonly concurrency = DEFAULT_COMMIT_CONCURRENCY,
    /** Where stored changes are published as data-change events (absent: none are). */
    private readonly changes?: DataChangeFeed,
  ) {}

  /** The mounted device of a uniconfig node (404 unknown, 502 unreachable); its modules are kept for when it is down. */
  device(scope: PluginScope, nodeId: string): MountedDevice {
    if (!this.store.has(nodeId)) throw unknownNode(nodeId);
    const device = this.mount.device(scope, 'unified', nodeId);
    this.modules
      .remember(nodeId, device.connection.schemaSources)
      .catch((e: unknown) => this.log.error(`node ${nodeId}: keeping its YANG modules failed: ${messageOf(e)}`, { nodeId }));
    return device;
  }

  /** A connected device: 502 before anything is sent when it is down (its session lost, reconnecting). */
  private connectedDevice(scope: PluginScope, nodeId: string): MountedDevice {
    const device = this.device(scope, nodeId);
    const status = device.connection.status?.() ?? 'connected';
    if (status !== 'connected') throw noConnection(nodeId, `its connection is ${status}`);
    return device;
  }

  /**
   * The device schema of a uniconfig node, whether or not the device is up: its stored configuration
   * stays readable and editable in a transaction while it is down (404 unknown node; 502 only when a
   * NETCONF device is down and its modules were never kept).
   */
  schema(scope: PluginScope, nodeId: string): SchemaContext {
    if (!this.store.has(nodeId)) throw unknownNode(nodeId);
    const schema = this.mount.schemaOf(scope, nodeId, () => this.modules.sources(nodeId));
    if (schema === undefined) throw noConnection(nodeId, 'the device is down and its YANG modules are not known yet');
    return schema;
  }

  /** A transaction's view of a node, taken from the stores the first time it looks. */
  view(scope: PluginScope, tx: Transaction, nodeId: string): NodeView {
    const existing = tx.views.get(nodeId);
    if (existing !== undefined) return existing;
    const schema = this.schema(scope, nodeId);
    const view: NodeView = {
      nodeId,
      schema,
      written: false,
      intended: this.store.tree('config', nodeId, schema),
      baseActual: this.store.tree('operational', nodeId, schema),
      baseVersion: this.store.version(nodeId),
    };
    tx.views.set(nodeId, view);
    return view;
  }

  /** The intended (or actual) configuration a request sees. */
  read(scope: PluginScope, tx: Transaction | undefined, nodeId: string, which: 'intended' | 'actual'): DataRoot {
    if (tx !== undefined) {
      const view = this.view(scope, tx, nodeId);
      return which === 'intended' ? view.intended : view.baseActual;
    }
    return this.store.tree(which === 'intended' ? 'config' : 'operational', nodeId, this.schema(scope, nodeId));
  }

  /**
   * Applies `edits` to a node's intended configuration: in the transaction's view, or (immediate mode)
   * committed to the device and stored. `check` validates the would-be tree (throws to refuse).
   */
  async write(
    scope: PluginScope,
    tx: Transaction | undefined,
    nodeId: string,
    edits: readonly Edit[],
    check?: (next: DataRoot, previous: DataRoot) => void,
    /** Who writes, when authentication is on (named by the data-change events). */
    user?: string,
  ): Promise<DataRoot> {
    if (tx !== undefined) {
      const view = this.view(scope, tx, nodeId);
      const next = applyEdits(view.intended, edits, view.schema);
      check?.(next, view.intended);
      view.intended = next;
      view.written = true;
      return next;
    }
    return this.store.locked([nodeId], async () => {
      const device = this.connectedDevice(scope, nodeId);
      const intended = this.store.tree('config', nodeId, device.schema);
      const actual = this.store.tree('operational', nodeId, device.schema);
      const next = applyEdits(intended, edits, device.schema);
      check?.(next, intended);
      const pushed = await pushConfiguration(device, scope, actual, next, { readBack: true });
      const now = pushed.sent.length === 0 ? actual : (pushed.now ?? (await readBack(this.log, device, scope, actual, next)));
      try {
        await this.store.save([
          { nodeId, intended: this.store.encode(next, device.schema), actual: this.store.encode(now, device.schema) },
        ]);
      } catch (e) {
        await pushConfiguration(device, scope, now, actual).catch((r: unknown) =>
          this.log.error(`node ${nodeId}: rollback after a failed store write failed: ${messageOf(r)}`, { nodeId }),
        );
        throw e;
      }
      await this.published([{ nodeId, intended: { before: intended, after: next }, actual: { before: actual, after: now } }], user);
      return next;
    });
  }

  /** Publishes what stored nodes' trees changed (change-events.ts); resolves once the events are durable. */
  published(changes: readonly NodeChange[], user?: string): Promise<void> {
    return publishNodeChanges(this.changes, this.log, changes, user);
  }

  /** The target nodes of an operation, each checked to be a uniconfig node (404 otherwise). */
  targets(given: readonly string[] | undefined, fallback: () => string[]): string[] {
    const ids = given !== undefined && given.length > 0 ? [...new Set(given)] : fallback();
    for (const id of ids) if (!this.store.has(id)) throw unknownNode(id);
    return ids;
  }

  /**
   * Commits `nodeIds` (commit.ts). With a transaction its views are pushed; without, the stored
   * intended configurations. The caller closes the transaction.
   */
  commit(scope: PluginScope, tx: Transaction | undefined, nodeIds: readonly string[], options: CommitOptions): Promise<CommitOutcome> {
    const parts: CommitParts = {
      store: this.store,
      log: this.log,
      concurrency: this.concurrency,
      connectedDevice: (s, id) => this.connectedDevice(s, id),
      ...(this.changes !== undefined ? { changes: this.changes } : {}),
    };
    // nodes other instances own come here for the commit (mount/manager.ts withNodesHere)
    return this.mount.withNodesHere(nodeIds, () => commitNodes(parts, scope, tx, nodeIds, options));
  }
}

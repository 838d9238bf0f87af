/**
 * The uniconfig engine: node views, writes, and commit with rollback (docs/devices.md#uniconfig).
 *
 * - A *view* of a node is what a request sees of it: inside a transaction, the transaction's copy
 *   (taken when the transaction first looks at the node); without one, the stored intended and actual
 *   configurations.
 * - An immediate write (no transaction) is a one-node commit: the edit is applied to the stored
 *   intended configuration, the difference from the actual one is pushed to the device, and only once
 *   the device took it are both configurations stored; if the device refuses, the southbound has undone
 *   its own partial work and nothing is stored (the device's error is the answer).
 * - A commit pushes, node by node, actual -> intended through the mount point, as per-change edits
 *   (device-edits.ts: only what changed is sent). When a node fails, every
 *   node already changed gets intended -> actual pushed back, and the answer is 500 (502 when the failure
 *   was a lost connection) with one error entry per node: `node-id`, `configuration-status`,
 *   `rollback-status`. Before anything is sent: every node must be reachable (502), must not have been
 *   changed since the transaction first looked at it (409 `in-use`), and for a checked commit the
 *   device must still hold the actual configuration the transaction started from (409 `resource-denied`).
 *   After a success each changed device is read back into the actual configuration.
 */
import type { Logger } from '../logger';
import { diffTrees } from '../data/diff';
import { applyEdits, type Edit } from '../data/edit';
import type { DataRoot } from '../data/tree';
import { MountError, type MountedDevice, type MountManager } from '../mount';
import { noConnection } from '../mount/errors';
import type { PluginScope } from '../plugins/generation';
import type { SchemaContext } from '../yang/schema';
import { RestconfError } from '../restconf/errors';
import { changeEdits } from './device-edits';
import { pushConfiguration, readChanged, readConfiguration, southboundRollback } from './device-io';
import type { DeviceModuleStore } from './device-modules';
import type { NodeStore, NodeUpdate } from './node-store';
import type { NodeView, Transaction } from './transactions';

/** One node of a commit: its device, what is on it (actual) and what should be (intended). */
interface CommitItem {
  readonly nodeId: string;
  readonly device: MountedDevice;
  readonly actual: DataRoot;
  readonly intended: DataRoot;
  /** The actual configuration the committing transaction started from (checked commit). */
  readonly base: DataRoot;
  /** Whether the intended configuration is new (a transaction's write) and must be stored. */
  readonly storeIntended: boolean;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Whether a failure means the device could not be reached (502), not that it refused the change. */
function isConnectionLoss(e: unknown): boolean {
  if (e instanceof MountError) return e.status === 502 && e.entries[0]?.tag === 'southbound_no_connection';
  return e instanceof RestconfError && e.status === 502;
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
  ) {}

  /** The mounted device of a uniconfig node (404 unknown, 502 unreachable); its modules are kept for when it is down. */
  device(scope: PluginScope, nodeId: string): MountedDevice {
    if (!this.store.has(nodeId)) throw unknownNode(nodeId);
    const device = this.mount.device(scope, 'unified', nodeId);
    this.modules
      .remember(nodeId, device.connection.schemaSources)
      .catch((e: unknown) => this.log.error(`node ${nodeId}: keeping its YANG modules failed: ${messageOf(e)}`));
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
      const sent = await pushConfiguration(device, scope, actual, next);
      const now = sent.length > 0 ? await this.readBack(device, scope, actual, next) : actual;
      try {
        await this.store.save([
          { nodeId, intended: this.store.encode(next, device.schema), actual: this.store.encode(now, device.schema) },
        ]);
      } catch (e) {
        await pushConfiguration(device, scope, now, actual).catch((r: unknown) =>
          this.log.error(`node ${nodeId}: rollback after a failed store write failed: ${messageOf(r)}`),
        );
        throw e;
      }
      return next;
    });
  }

  /** The target nodes of an operation, each checked to be a uniconfig node (404 otherwise). */
  targets(given: readonly string[] | undefined, fallback: () => string[]): string[] {
    const ids = given !== undefined && given.length > 0 ? [...new Set(given)] : fallback();
    for (const id of ids) if (!this.store.has(id)) throw unknownNode(id);
    return ids;
  }

  /**
   * Commits `nodeIds` (see the top of this file). With a transaction its views are pushed; without,
   * the stored intended configurations. The caller closes the transaction.
   */
  async commit(scope: PluginScope, tx: Transaction | undefined, nodeIds: readonly string[], checked: boolean): Promise<void> {
    await this.store.locked(nodeIds, async () => {
      if (tx !== undefined) {
        const stale = nodeIds.filter((id) => {
          const v = tx.views.get(id);
          return v !== undefined && this.store.version(id) !== v.baseVersion;
        });
        if (stale.length > 0) {
          throw RestconfError.of(
            'in-use',
            `node(s) ${stale.join(', ')} changed since this transaction first read them (another transaction or write committed); nothing was committed`,
            { type: 'application' },
          );
        }
      }
      const items = nodeIds.map((nodeId): CommitItem => {
        const device = this.connectedDevice(scope, nodeId); // 502 for a device that is down, before anything is sent
        const view = tx?.views.get(nodeId);
        const schema = device.schema;
        const actual = this.store.tree('operational', nodeId, schema);
        // a view taken while the device was down, or before it came back with other modules, is in another schema
        const intended = view === undefined ? this.store.tree('config', nodeId, schema) : this.inSchema(view.intended, view.schema, schema);
        const base = view === undefined ? actual : this.inSchema(view.baseActual, view.schema, schema);
        return { nodeId, device, actual, intended, base, storeIntended: view?.written === true };
      });
      if (checked) await this.checkDevices(scope, items);
      const pushed = await this.pushAll(scope, items);
      const updates: NodeUpdate[] = [];
      for (const item of items) {
        const changed = pushed.includes(item);
        if (!changed && !item.storeIntended) continue;
        const schema = item.device.schema;
        const now = changed ? await this.readBack(item.device, scope, item.actual, item.intended) : undefined;
        updates.push({
          nodeId: item.nodeId,
          ...(item.storeIntended ? { intended: this.store.encode(item.intended, schema) } : {}),
          ...(now !== undefined ? { actual: this.store.encode(now, schema) } : {}),
        });
      }
      try {
        await this.store.save(updates);
      } catch (e) {
        this.log.error(`commit of ${nodeIds.join(', ')}: storing the result failed (${messageOf(e)}); rolling the devices back`);
        await this.rollback(scope, pushed);
        throw e;
      }
      if (pushed.length > 0) this.log.info(`committed ${pushed.map((p) => p.nodeId).join(', ')}`);
    });
  }

  /** `tree` (of schema `from`) as a tree of schema `to`. */
  private inSchema(tree: DataRoot, from: SchemaContext, to: SchemaContext): DataRoot {
    return from === to ? tree : this.store.decode(this.store.encode(tree, from), to);
  }

  /** 409 unless every device still holds the actual configuration its transaction started from. */
  private async checkDevices(scope: PluginScope, items: readonly CommitItem[]): Promise<void> {
    const drifted: string[] = [];
    for (const item of items) {
      const now = await readConfiguration(item.device, scope);
      if (diffTrees(item.base, now).length > 0) drifted.push(item.nodeId);
    }
    if (drifted.length > 0) {
      throw RestconfError.of(
        'resource-denied',
        `the configuration of ${drifted.join(', ')} on the device differs from the actual configuration this transaction started from (changed outside this service?); nothing was committed`,
        { type: 'application' },
      );
    }
  }

  /** Pushes every item; on the first failure rolls back those pushed and throws the per-node report. */
  private async pushAll(scope: PluginScope, items: readonly CommitItem[]): Promise<CommitItem[]> {
    const pushed: CommitItem[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (changeEdits(item.actual, item.intended).length === 0) continue;
      try {
        await pushConfiguration(item.device, scope, item.actual, item.intended);
        pushed.push(item);
      } catch (e) {
        const rolledBack = await this.rollback(scope, pushed);
        throw this.failure(items, item, e, pushed, rolledBack);
      }
    }
    return pushed;
  }

  /** Pushes intended -> actual on each item, last first; the node-ids whose rollback failed. */
  private async rollback(scope: PluginScope, pushed: readonly CommitItem[]): Promise<Set<string>> {
    const failed = new Set<string>();
    for (const item of [...pushed].reverse()) {
      try {
        await pushConfiguration(item.device, scope, item.intended, item.actual);
      } catch (e) {
        failed.add(item.nodeId);
        this.log.error(`node ${item.nodeId}: rollback failed: ${messageOf(e)}`);
      }
    }
    return failed;
  }

  /**
   * The answer to a failed commit: one entry per node saying how it fared. The failing node's
   * `rollback-status` is its southbound's own report (device-io.ts): `complete`, `fail` or `unknown`.
   */
  private failure(
    items: readonly CommitItem[],
    failedItem: CommitItem,
    cause: unknown,
    pushed: readonly CommitItem[],
    rollbackFailed: ReadonlySet<string>,
  ): RestconfError {
    const own = southboundRollback(cause);
    const status = isConnectionLoss(cause) && rollbackFailed.size === 0 && own?.status !== 'fail' ? 502 : 500;
    const entries = items.map((item) => {
      const wasPushed = pushed.includes(item);
      const failedHere = item === failedItem;
      const configuration = failedHere ? 'fail' : wasPushed ? 'complete' : 'n/a';
      const rollback = failedHere
        ? (own?.status ?? 'complete')
        : wasPushed
          ? rollbackFailed.has(item.nodeId)
            ? 'fail'
            : 'complete'
          : 'n/a';
      const message = failedHere
        ? `${messageOf(cause)}${own ? `; rollback on the device: ${own.detail}` : ''}`
        : wasPushed
          ? `rolled back because node '${failedItem.nodeId}' failed`
          : `not sent because node '${failedItem.nodeId}' failed`;
      const tag = failedHere
        ? status === 502
          ? 'southbound_no_connection'
          : 'operation-failed'
        : rollback === 'fail'
          ? 'rollback-failed'
          : 'operation-failed';
      return {
        type: 'application' as const,
        tag,
        message,
        info: { 'node-id': item.nodeId, 'configuration-status': configuration, 'rollback-status': rollback },
      };
    });
    return new RestconfError(status, entries);
  }

  /** The device's configuration after a push of `before` -> `after`; `after` when it cannot be read. */
  private async readBack(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<DataRoot> {
    try {
      return await readChanged(device, scope, before, after);
    } catch (e) {
      this.log.error(
        `node ${device.node.nodeId}: reading the configuration back after a write failed (${messageOf(e)}); keeping what was sent as actual`,
      );
      return after;
    }
  }
}

/**
 * The uniconfig layer of a running service, assembled: the node store, the engine, transactions,
 * snapshots, operations and the RESTCONF routes, plus its taps on the core's hooks:
 * - `connection-manager:install-node` (ahead of the mount layer's tap, which it calls): strips the
 *   `uniconfig-config:install-uniconfig-node-enabled` setting, installs through the mount manager, then
 *   (unless the setting is false) reads the device's configuration into intended and actual; when
 *   that read fails the node is uninstalled again and the install answers the error. The configurations
 *   that appear are published as data-change events (`create` edits), like any stored change of a node.
 * - `connection-manager:uninstall-node`: uninstalls, then forgets the node's configurations and
 *   publishes their removal (one `delete` of the whole configuration per datastore).
 * - `data.beforeWrite`: the uniconfig topology and the snapshots are written only through this layer
 *   (a direct write there would bypass the device), so local writes that change them are refused.
 */
import type { Database } from '../database';
import { fault } from '../data/errors';
import type { DataNode, DataRoot } from '../data/tree';
import type { JsonObject, JsonValue, OperationResult, RosettaHooks, RpcContext } from '../hooks';
import { southboundsOf, type MountManager } from '../mount';
import type { RestconfContext } from '../restconf/context';
import type { PluginScope } from '../plugins/generation';
import type { SchemaContext } from '../yang/schema';
import { configurationBase } from './data-route';
import { readConfiguration } from './device-io';
import { DeviceModuleStore } from './device-modules';
import { UniconfigEngine } from './engine';
import { NodeStore, UNICONFIG_TOPOLOGY } from './node-store';
import { type OperationParts, UniconfigOperations } from './operations';
import type { RouteTable } from '../restconf/route-table';
import { addUniconfigRoutes } from './routes';
import { SnapshotStore } from './snapshots';
import { type SharedTransactions, TransactionRegistry } from './transactions';

const ENABLED_SETTING = 'install-uniconfig-node-enabled';

export interface UniconfigOptions {
  /** The RESTCONF context the layer serves in (schema, datastores, plugins, options, log). */
  readonly ctx: RestconfContext;
  readonly mount: MountManager;
  /** The service's data folder (the actual configurations are kept under it). */
  readonly dataDir: string;
  /** Devices a commit, sync-from-network or diff works on at once (`fleet.commitConcurrency`; commit.ts's default when absent). */
  readonly commitConcurrency?: number;
  /** The service's readiness, which the `uniconfig-manager:health` RPC answers. */
  readonly health?: OperationParts['health'];
  /** Told each commit's outcome (the service's metrics). */
  readonly commitDone?: OperationParts['commitDone'];
  /** Where syncs of the network keep and log their progress. */
  readonly jobs?: OperationParts['jobs'];
  /** With several instances on one database: where the transactions the others opened are found. */
  readonly sharedTransactions?: SharedTransactions;
  /** The database the datastores are kept in, if any: the actual configurations are kept there too (node-store.ts). */
  readonly database?: Database;
}

/**
 * The install-node input with our setting taken out of its protocol containers (the registered
 * southbounds' install containers), and the setting's value.
 */
function withoutSetting(input: JsonObject, containers: readonly string[]): { input: JsonObject; enabled: boolean } {
  let enabled = true;
  const out: JsonObject = { ...input };
  for (const protocol of containers) {
    const container = input[protocol];
    if (container === null || typeof container !== 'object' || Array.isArray(container)) continue;
    const kept: Record<string, JsonValue> = {};
    for (const [member, value] of Object.entries(container)) {
      if (member === ENABLED_SETTING || member.endsWith(`:${ENABLED_SETTING}`)) enabled = value !== false;
      else kept[member] = value;
    }
    out[protocol] = kept;
  }
  return { input: out, enabled };
}

/** The uniconfig topology's entry and the snapshots container of a tree (compared by identity). */
function guarded(root: DataRoot, snapshots: SnapshotStore): Array<DataNode | undefined> {
  const top = root.children.find((c) => c.schema.name === 'network-topology' && c.schema.module.name === 'network-topology');
  let uniconfig: DataNode | undefined;
  if (top?.kind === 'container') {
    const list = top.children.find((c) => c.kind === 'list');
    if (list?.kind === 'list')
      uniconfig = list.entries.find((e) =>
        e.children.some((c) => c.kind === 'leaf' && c.schema.name === 'topology-id' && c.value === UNICONFIG_TOPOLOGY),
      );
  }
  return [uniconfig, root.children.find((c) => snapshots.isSnapshotsNode(c.schema))];
}

export class Uniconfig {
  readonly store: NodeStore;
  readonly engine: UniconfigEngine;
  readonly registry: TransactionRegistry;
  readonly snapshots: SnapshotStore;
  readonly operations: UniconfigOperations;

  constructor(private readonly options: UniconfigOptions) {
    const { ctx } = options;
    this.store = new NodeStore(ctx, options.dataDir, options.database, (line) => ctx.log.error(`uniconfig: ${line}`));
    this.engine = new UniconfigEngine(
      this.store,
      options.mount,
      ctx.log,
      new DeviceModuleStore(options.dataDir, ctx.log, options.database),
      options.commitConcurrency,
      ctx.dataChanges,
    );
    this.registry = new TransactionRegistry(ctx.log, options.sharedTransactions);
    this.snapshots = new SnapshotStore(ctx, ctx.dataChanges !== undefined ? { feed: ctx.dataChanges, log: ctx.log } : undefined);
    this.operations = new UniconfigOperations({
      engine: this.engine,
      registry: this.registry,
      snapshots: this.snapshots,
      ...(options.health !== undefined ? { health: options.health } : {}),
      ...(options.commitDone !== undefined ? { commitDone: options.commitDone } : {}),
      ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
    });
  }

  /** Loads the actual configurations kept before a restart; resolves with how many nodes. */
  async open(): Promise<number> {
    try {
      await this.engine.modules.open();
      return await this.store.open();
    } catch (e) {
      await this.closeStores();
      throw e;
    }
  }

  /** Adds the layer's routes to the RESTCONF dispatcher's route table (routes.ts). */
  addRoutes(table: RouteTable): void {
    addUniconfigRoutes(table, { ctx: this.options.ctx, engine: this.engine, registry: this.registry, operations: this.operations });
  }

  /**
   * A node's configuration as its OpenAPI document describes it: the device schema and the path it is
   * served at; undefined when the node is not installed in uniconfig.
   */
  configurationOf(scope: PluginScope, nodeId: string): { schema: SchemaContext; data: string } | undefined {
    return this.store.has(nodeId) ? { schema: this.engine.schema(scope, nodeId), data: configurationBase(nodeId) } : undefined;
  }

  /** The layer's taps (see the top of this file). */
  tap(hooks: RosettaHooks): void {
    hooks.rpc.invoke.for('connection-manager:install-node').tapPromise({ name: 'uniconfig', stage: -10 }, (ctx) => this.install(ctx));
    hooks.rpc.invoke.for('connection-manager:uninstall-node').tapPromise({ name: 'uniconfig', stage: -10 }, (ctx) => this.uninstall(ctx));
    hooks.data.beforeWrite.tapPromise('uniconfig', async (w) => {
      const [beforeNodes, beforeSnapshots] = guarded(w.before, this.snapshots);
      const [afterNodes, afterSnapshots] = guarded(w.after, this.snapshots);
      if (beforeNodes !== afterNodes) {
        w.faults.push(
          fault(
            'invalid-value',
            `/network-topology:network-topology/topology[topology-id='${UNICONFIG_TOPOLOGY}']`,
            'uniconfig nodes are created by install-node and changed under .../node=<id>/configuration, not written directly',
          ),
        );
      }
      if (beforeSnapshots !== afterSnapshots) {
        w.faults.push(
          fault(
            'invalid-value',
            '/snapshot-manager:snapshots',
            'snapshots are written by snapshot-manager:create-snapshot and delete-snapshot only',
          ),
        );
      }
    });
  }

  private async install(rpc: RpcContext): Promise<OperationResult> {
    const scope = this.options.ctx.plugins.acquire();
    try {
      const { input, enabled } = withoutSetting(rpc.input, southboundsOf(scope.hooks).installContainers);
      const result = await this.options.mount.install(scope, { ...rpc, input });
      const nodeId = String(input['node-id']);
      if (!enabled) return result;
      try {
        const device = this.options.mount.device(scope, 'unified', nodeId);
        const root = await readConfiguration(device, scope);
        await this.engine.modules.remember(nodeId, device.connection.schemaSources);
        const json = this.store.encode(root, device.schema);
        await this.store.locked([nodeId], async () => {
          const intended = this.store.tree('config', nodeId, device.schema);
          const actual = this.store.tree('operational', nodeId, device.schema);
          await this.store.save([{ nodeId, intended: json, actual: json }]);
          await this.engine.published([{ nodeId, intended: { before: intended, after: root }, actual: { before: actual, after: root } }]);
        });
      } catch (e) {
        await this.options.mount
          .uninstall({ operation: 'connection-manager:uninstall-node', input: { 'node-id': nodeId } })
          .catch(() => undefined);
        await this.engine.modules.forget(nodeId).catch(() => undefined);
        throw e;
      }
      return result;
    } finally {
      scope.release();
    }
  }

  private async uninstall(rpc: RpcContext): Promise<OperationResult> {
    const result = await this.options.mount.uninstall(rpc);
    const nodeId = String(rpc.input['node-id']);
    if (this.store.has(nodeId) || this.store.json('operational', nodeId) !== undefined) {
      await this.store.locked([nodeId], async () => {
        const had = {
          intended: this.store.json('config', nodeId) !== undefined,
          actual: this.store.json('operational', nodeId) !== undefined,
        };
        await this.store.save([{ nodeId, intended: null, actual: null }]);
        await this.engine.published([
          { nodeId, ...(had.intended ? { intended: 'removed' as const } : {}), ...(had.actual ? { actual: 'removed' as const } : {}) },
        ]);
      });
    }
    await this.engine.modules.forget(nodeId);
    return result;
  }

  /** Drops open transactions and closes the stores' journals (service stop). */
  async close(): Promise<void> {
    this.registry.closeAll();
    await this.closeStores();
  }

  private async closeStores(): Promise<void> {
    await Promise.all([this.engine.modules.close(), this.store.close()]);
  }
}

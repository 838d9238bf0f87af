/**
 * The operations of `uniconfig-manager`, `dryrun-manager` and `snapshot-manager`, in engine terms:
 * each takes the decoded input (RFC 7951 members), the request's transaction (from the cookie, or
 * none) and answers an output (or none: 204). Operations that change intended configuration without
 * a transaction (replace-config-with-operational, replace-config-with-snapshot) are committed at once,
 * as an immediate write is; commit and checked-commit close the transaction whatever the outcome.
 */
import { mapBounded } from '../data/bounded-concurrency';
import { diffTrees } from '../data/diff';
import { jsonEqual } from '../data/json-equal';
import type { JsonObject, JsonValue } from '../hooks';
import type { Job, JobBoard } from '../jobs';
import type { PluginScope } from '../plugins/generation';
import { RestconfError } from '../restconf/errors';
import type { CommitOptions } from './commit';
import { dryRunConfiguration, readConfiguration } from './device-io';
import { diffReport } from './diff-report';
import type { UniconfigEngine } from './engine';
import { missing, type SnapshotStore } from './snapshots';
import { invalidTransaction, Transaction, type TransactionRegistry } from './transactions';

/** What an operation answers: its output members, or null for none (204). */
export type OperationOutput = JsonObject | null;

export interface OperationParts {
  readonly engine: UniconfigEngine;
  readonly registry: TransactionRegistry;
  readonly snapshots: SnapshotStore;
  /** The service's readiness (service/readiness.ts), answered by the health RPC. */
  readonly health?: () => { readonly ready: boolean; readonly checks: Readonly<Record<string, string>> };
  /** Told each commit's and checked commit's outcome (the service's metrics). */
  readonly commitDone?: (ok: boolean) => void;
  /** Where syncs of the network keep and log their progress (none kept when absent). */
  readonly jobs?: JobBoard;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `target-nodes/node` of an input; undefined when absent or empty. */
function targetNodes(input: JsonObject): string[] | undefined {
  const container = input['target-nodes'];
  if (container === null || typeof container !== 'object' || Array.isArray(container)) return undefined;
  const nodes = (container as JsonObject)['node'];
  return Array.isArray(nodes) && nodes.length > 0 ? nodes.map(String) : undefined;
}

function nameOf(input: JsonObject): string {
  const name = input['name'];
  if (typeof name !== 'string' || name === '') throw RestconfError.of('missing-element', 'input name is required', { type: 'application' });
  return name;
}

/**
 * Per node, `work`'s members, or status fail with the error's message: one node's failure does not
 * stop the others. Nodes run `limit` at a time (many devices are asked at once, not one after
 * another); the results stay in input order.
 */
async function perNode(
  ids: readonly string[],
  limit: number,
  work: (nodeId: string) => Promise<JsonObject>,
  job?: Job,
): Promise<JsonObject> {
  const results = await mapBounded(ids, limit, async (nodeId): Promise<JsonValue> => {
    try {
      const result = { 'node-id': nodeId, status: 'complete', ...(await work(nodeId)) };
      job?.item();
      return result;
    } catch (e) {
      job?.item(`${nodeId}: ${messageOf(e)}`);
      return { 'node-id': nodeId, status: 'fail', 'error-message': messageOf(e) };
    }
  });
  return { 'node-results': { 'node-result': results as JsonValue[] } };
}

/** commit's and checked-commit's flags (do-rollback defaults to true). */
function commitOptions(input: JsonObject, checked: boolean, user: string | undefined): CommitOptions {
  return {
    checked,
    skipUnreachable: input['skip-unreachable-nodes'] === true,
    doRollback: input['do-rollback'] !== false,
    ...(user !== undefined ? { user } : {}),
  };
}

export class UniconfigOperations {
  constructor(private readonly parts: OperationParts) {}

  /** Runs `module:rpc`; undefined when it is not one of ours. */
  async run(
    name: string,
    scope: PluginScope,
    tx: Transaction | undefined,
    input: JsonObject,
    /** Who asked, when authentication is on: the data-change events of what the operation stores name them. */
    user?: string,
  ): Promise<OperationOutput | undefined> {
    const { engine, registry } = this.parts;
    const allNodes = () => engine.store.nodeIds();
    // the actual configurations other instances stored before this operation (a database's shared
    // journal); health answers without the database, which it reports on
    if (name !== 'uniconfig-manager:health') await Promise.all([engine.store.catchUp(), engine.modules.catchUp()]);
    switch (name) {
      case 'uniconfig-manager:health': {
        if (this.parts.health === undefined) return undefined;
        const { ready, checks } = this.parts.health();
        const down = Object.entries(checks).filter(([, state]) => state !== 'UP');
        const details = down.length === 0 ? 'all parts are up' : down.map(([part, state]) => `${part}: ${state}`).join('; ');
        return { status: ready ? 'UP' : 'DOWN', details };
      }
      case 'uniconfig-manager:close-transaction':
        if (tx === undefined) throw invalidTransaction('close-transaction needs the UNICONFIGTXID cookie of an open transaction');
        registry.drop(tx);
        return null;
      case 'uniconfig-manager:commit':
      case 'uniconfig-manager:checked-commit':
        try {
          let unreachable: readonly string[];
          try {
            // without a transaction, "every node" means every node with something to send: a node that is
            // down but has nothing to commit does not stop the others
            const ids = engine.targets(targetNodes(input), () => (tx !== undefined ? tx.writtenNodes() : engine.store.changedNodeIds()));
            ({ unreachable } = await engine.commit(scope, tx, ids, commitOptions(input, name.endsWith('checked-commit'), user)));
          } catch (e) {
            this.parts.commitDone?.(false);
            throw e;
          }
          this.parts.commitDone?.(true);
          return unreachable.length > 0 ? { 'unreachable-nodes': { node: [...unreachable] } } : null;
        } finally {
          if (tx !== undefined) registry.drop(tx);
        }
      case 'uniconfig-manager:calculate-diff': {
        const ids = engine.targets(targetNodes(input), () => (tx !== undefined ? tx.writtenNodes() : allNodes()));
        return perNode(ids, engine.concurrency, async (id) =>
          diffReport(engine.read(scope, tx, id, 'actual'), engine.read(scope, tx, id, 'intended')),
        );
      }
      case 'dryrun-manager:dryrun-commit': {
        const ids = engine.targets(targetNodes(input), () => (tx !== undefined ? tx.writtenNodes() : allNodes()));
        return perNode(ids, engine.concurrency, async (id) => {
          const device = engine.device(scope, id);
          const commands = await dryRunConfiguration(
            device,
            scope,
            engine.read(scope, tx, id, 'actual'),
            engine.read(scope, tx, id, 'intended'),
          );
          return { protocol: device.node.protocol, ...(commands.length > 0 ? { command: commands } : {}) };
        });
      }
      case 'uniconfig-manager:sync-from-network': {
        const ids = engine.targets(targetNodes(input), allNodes);
        // each node is stored and published on its own: a device that cannot be read stores and publishes nothing
        const sync = (job?: Job) =>
          perNode(
            ids,
            engine.concurrency,
            (id) =>
              engine.store.locked([id], async () => {
                const device = engine.device(scope, id);
                const now = await readConfiguration(device, scope);
                const actual = engine.store.encode(now, device.schema);
                const stored = engine.store.json('operational', id);
                // the device still holds what is stored (most syncs): nothing to write, no change to publish
                if (stored !== undefined && jsonEqual(stored, actual)) return {};
                const before = engine.store.tree('operational', id, device.schema);
                await engine.store.save([{ nodeId: id, actual }]);
                await engine.published([{ nodeId: id, actual: { before, after: now } }], user);
                return {};
              }),
            job,
          );
        const { jobs } = this.parts;
        if (jobs === undefined) return sync();
        const one = ids.length === 1 ? { nodeId: ids[0]! } : {};
        return jobs.run({ kind: 'sync-from-network', total: ids.length, doing: 'syncing', done: 'synced', ...one }, sync);
      }
      case 'uniconfig-manager:is-in-sync': {
        const ids = engine.targets(targetNodes(input), allNodes);
        return perNode(ids, engine.concurrency, async (id) => {
          const device = engine.device(scope, id);
          const now = await readConfiguration(device, scope);
          return { 'is-in-sync': diffTrees(engine.store.tree('operational', id, device.schema), now).length === 0 };
        });
      }
      case 'uniconfig-manager:replace-config-with-operational': {
        const ids = engine.targets(targetNodes(input), allNodes);
        await this.replaceIntended(scope, tx, ids, (id) => engine.read(scope, tx, id, 'actual'), user);
        return null;
      }
      case 'snapshot-manager:create-snapshot': {
        const snapshotName = nameOf(input);
        const ids = engine.targets(targetNodes(input), allNodes);
        const copies = new Map<string, JsonObject>();
        for (const id of ids) {
          const schema = engine.schema(scope, id);
          copies.set(id, engine.store.encode(engine.read(scope, tx, id, 'intended'), schema));
        }
        await this.parts.snapshots.create(snapshotName, copies, user);
        return null;
      }
      case 'snapshot-manager:replace-config-with-snapshot': {
        const snapshotName = nameOf(input);
        const copies = this.parts.snapshots.read(snapshotName);
        if (copies === undefined) throw missing(snapshotName);
        const ids = engine.targets(targetNodes(input), () => [...copies.keys()]);
        const absent = ids.filter((id) => !copies.has(id));
        if (absent.length > 0)
          throw RestconfError.of('data-missing', `snapshot '${snapshotName}' holds no configuration of ${absent.join(', ')}`, {
            type: 'application',
          });
        await this.replaceIntended(scope, tx, ids, (id) => engine.store.decode(copies.get(id)!, engine.schema(scope, id)), user);
        return null;
      }
      case 'snapshot-manager:delete-snapshot':
        await this.parts.snapshots.delete(nameOf(input), user);
        return null;
      default:
        return undefined;
    }
  }

  /** Intended := `next(id)` for each node: in the transaction, or committed at once without one. */
  private async replaceIntended(
    scope: PluginScope,
    tx: Transaction | undefined,
    ids: readonly string[],
    next: (id: string) => import('../data/tree').DataRoot,
    user: string | undefined,
  ): Promise<void> {
    const { engine } = this.parts;
    // Without a transaction: a private one, committed now (all or nothing, like any commit).
    const target = tx ?? new Transaction('immediate', 60_000, () => undefined);
    try {
      for (const id of ids) {
        const view = engine.view(scope, target, id);
        view.intended = next(id);
        view.written = true;
      }
      if (tx === undefined)
        await engine.commit(scope, target, ids, {
          checked: false,
          skipUnreachable: false,
          doRollback: true,
          ...(user !== undefined ? { user } : {}),
        });
    } finally {
      if (tx === undefined) target.close();
    }
  }
}

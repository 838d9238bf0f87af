/**
 * Bulk node operations (docs/devices.md#bulk-operations), in UniConfig's shapes: connection-manager's
 * install-multiple-nodes, uninstall-multiple-nodes, check-installed-nodes, get-installed-nodes and
 * check-nodes-connection. The manager (manager.ts) owns one node's lifecycle; this file owns batches.
 *
 * A batch hands each node to the same `rpc.invoke` chain as install-node or uninstall-node, so every
 * tap of those runs per node as it would for a single call (the uniconfig layer's, which makes the node
 * a uniconfig node too, included), and a node that fails leaves nothing behind because that path
 * guarantees it for one node. A bounded number of nodes is worked on at once (the service
 * configuration's `fleet.installConcurrency`); one node's failure does not stop the others. As UniConfig
 * does, the answer is 204 when every node succeeded, else 200 listing the nodes that failed and why.
 * What a batch cannot be run as (no nodes, a node named twice) is refused whole before any node is
 * touched, so that the answer never depends on which copy of a node happened to go first.
 *
 * Each batch is a job of the service's board (jobs/): its progress is readable as `rosetta-jobs:jobs`
 * while it runs and logged as it goes (`installing 340/2000`), while the nodes' status stays readable
 * under network-topology.
 */
import type { JsonObject, JsonValue, OperationResult, RosettaHooks, RpcContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import { mapBounded } from '../data/bounded-concurrency';
import { FaultError } from '../fault';
import type { JobBoard, JobKind } from '../jobs';
import { MountError, notServed, type MountErrorEntry } from './errors';
import type { MountManager } from './manager';
import { statusOf } from './node';

export interface BulkOptions {
  readonly mount: MountManager;
  /** Leases on the current plugin generation: one per node, so a plugin swapped in mid-batch serves the rest. */
  readonly scopes: { acquire(): PluginScope };
  /** Nodes worked on at once. */
  readonly concurrency: number;
  /** Whether a node is also a node of the uniconfig topology (false for every node when not given). */
  readonly uniconfigLayer?: (nodeId: string) => boolean;
  /** Where each batch's progress is kept and logged. */
  readonly jobs: JobBoard;
}

/** One batch operation: its RPC (the job's kind), the per-node RPC it runs, and the words of its log lines. */
interface BatchKind {
  readonly rpc: JobKind;
  readonly perNode: string;
  readonly doing: string;
  readonly done: string;
}

const INSTALL: BatchKind = {
  rpc: 'install-multiple-nodes',
  perNode: 'connection-manager:install-node',
  doing: 'installing',
  done: 'installed',
};
const UNINSTALL: BatchKind = {
  rpc: 'uninstall-multiple-nodes',
  perNode: 'connection-manager:uninstall-node',
  doing: 'uninstalling',
  done: 'uninstalled',
};

function failureMessage(e: unknown): string {
  if (e instanceof FaultError && e.faults.length > 0) return e.faults.map((f) => f.message || f.tag).join('; ');
  return e instanceof Error ? e.message : String(e);
}

function badInput(tag: 'missing-element' | 'invalid-value', path: string, message: string): MountErrorEntry {
  return { type: 'protocol', tag, path, message };
}

export class BulkNodes {
  constructor(private readonly options: BulkOptions) {}

  /** The bulk RPCs' taps. */
  tap(hooks: RosettaHooks): void {
    const rpc = (name: string, run: (ctx: RpcContext) => Promise<OperationResult>) =>
      hooks.rpc.invoke.for(`connection-manager:${name}`).tapPromise('mount', run);
    rpc(INSTALL.rpc, (ctx) => this.batch(INSTALL, ctx));
    rpc(UNINSTALL.rpc, (ctx) => this.batch(UNINSTALL, ctx));
    rpc('check-installed-nodes', async (ctx) => ({ output: this.installed(this.targets('check-installed-nodes', ctx)) }));
    rpc('get-installed-nodes', async () => ({ output: this.installed(undefined) }));
    rpc('check-nodes-connection', async (ctx) => this.checkConnections(this.targets('check-nodes-connection', ctx)));
  }

  /** install- or uninstall-multiple-nodes: every node through its per-node RPC, bounded, each failure recorded. */
  private async batch(kind: BatchKind, ctx: RpcContext): Promise<OperationResult> {
    const nodes = this.batchNodes(kind, ctx.input);
    const { concurrency } = this.options;
    const job = this.options.jobs.start({
      kind: kind.rpc,
      total: nodes.length,
      doing: kind.doing,
      done: kind.done,
      detail: `, at most ${concurrency} at once`,
    });
    let outcomes: Array<JsonObject | null | undefined>;
    try {
      // each node's failure is its result, never a rejection: one node does not stop the others
      outcomes = await mapBounded(nodes, concurrency, async (node): Promise<JsonObject | null> => {
        let failure: JsonObject | null = null;
        try {
          await this.invoke(kind.perNode, node);
        } catch (e) {
          failure = { 'node-id': String(node['node-id']), status: 'fail', 'error-message': failureMessage(e) };
        }
        job.item(failure === null ? undefined : `${String(failure['node-id'])}: ${String(failure['error-message'])}`);
        return failure;
      });
    } catch (e) {
      job.finish(failureMessage(e));
      throw e;
    }
    job.finish();
    const results = outcomes.filter((o): o is JsonObject => o !== null && o !== undefined);
    return { output: results.length === 0 ? null : { 'node-results': results } };
  }

  /** Runs one node's RPC through its hook chain in a lease of its own. */
  private async invoke(operation: string, input: JsonObject): Promise<void> {
    const scope = this.options.scopes.acquire();
    try {
      const hook = scope.hooks.rpc.invoke.get(operation);
      if (hook === undefined || !hook.isUsed()) throw notServed(`nothing serves ${operation}`);
      const result = await hook.promise({ operation, input });
      if (result === undefined) throw notServed(`nothing answered ${operation}`);
    } finally {
      scope.release();
    }
  }

  /** The batch's `nodes`, refused whole (400) when there are none or a node-id is named more than once. */
  private batchNodes(kind: BatchKind, input: JsonObject): JsonObject[] {
    const path = `/connection-manager:${kind.rpc}/input/nodes`;
    const given = input['nodes'];
    const nodes = Array.isArray(given)
      ? (given.filter((n) => typeof n === 'object' && n !== null && !Array.isArray(n)) as JsonObject[])
      : [];
    if (nodes.length === 0)
      throw new MountError(undefined, [badInput('missing-element', path, 'the batch names no nodes: give at least one entry in nodes')]);
    const counts = new Map<string, number>();
    for (const n of nodes) {
      const id = String(n['node-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const twice = [...counts].filter(([, count]) => count > 1);
    if (twice.length > 0) {
      throw new MountError(
        undefined,
        twice.map(([id, count]) =>
          badInput(
            'invalid-value',
            path,
            `node '${id}' is named ${count} times in the batch; name each node once (nothing was ${kind.done})`,
          ),
        ),
      );
    }
    return nodes;
  }

  /** The distinct node-ids of `target-nodes/node`, refused (400) when there are none. */
  private targets(rpc: string, ctx: RpcContext): string[] {
    const target = ctx.input['target-nodes'] as JsonObject | undefined;
    const nodes = Array.isArray(target?.['node']) ? (target['node'] as JsonValue[]).map(String) : [];
    if (nodes.length === 0)
      throw new MountError(undefined, [
        badInput('missing-element', `/connection-manager:${rpc}/input/target-nodes`, 'target-nodes names no node: give at least one node'),
      ]);
    return [...new Set(nodes)];
  }

  /** check-installed-nodes (the installed ones of `nodeIds`, in their order) and get-installed-nodes (every one, by node-id). */
  private installed(nodeIds: readonly string[] | undefined): JsonObject {
    const { mount, uniconfigLayer } = this.options;
    const nodes =
      nodeIds === undefined
        ? mount.installedNodes().sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0))
        : nodeIds.flatMap((id) => mount.installedNode(id) ?? []);
    const results = nodes.map(
      (n): JsonObject => ({ 'node-id': n.nodeId, 'topology-id': n.kind.topology, 'uniconfig-layer': uniconfigLayer?.(n.nodeId) ?? false }),
    );
    return { 'node-results': results.length > 0 ? { 'node-result': results } : {} };
  }

  /** check-nodes-connection: 204 when every target is connected, else one error per node that is not, naming why. */
  private checkConnections(nodeIds: readonly string[]): OperationResult {
    const faults: MountErrorEntry[] = [];
    for (const nodeId of nodeIds) {
      const node = this.options.mount.installedNode(nodeId);
      if (node === undefined) {
        faults.push({
          type: 'application',
          tag: 'operation-failed',
          message: `node '${nodeId}' is not installed`,
          info: { 'node-id': nodeId, error: 'not installed' },
        });
        continue;
      }
      const status = statusOf(node);
      if (status === 'connected') continue;
      const why = node.problem ?? status;
      faults.push({
        type: 'application',
        tag: 'operation-failed',
        message: `node '${nodeId}' (topology ${node.kind.topology}) is not connected: ${why}`,
        info: { 'node-id': nodeId, 'topology-id': node.kind.topology, error: why },
      });
    }
    if (faults.length > 0) throw new MountError(undefined, faults);
    return { output: null };
  }
}

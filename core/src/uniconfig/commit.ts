/**
 * A commit across many uniconfig nodes (docs/devices.md#uniconfig): pushes, per node, actual ->
 * intended through the mount point as per-change edits (device-edits.ts: only what changed is sent),
 * to many devices at once but never more than the configured bound (`fleet.commitConcurrency`), so
 * a commit of a thousand nodes is not a thousand round trips in sequence, nor a thousand sessions
 * asked at once.
 *
 * Before anything is sent, under the nodes' locks: every node must not have been changed since the
 * transaction first looked at it (409 `in-use`); every node must be reachable (502 with one entry per
 * node), unless `skip-unreachable-nodes` leaves the unreachable ones out and reports them; and for a
 * checked commit every device must still hold the actual configuration the transaction started from
 * (409 `resource-denied`, devices read concurrently).
 *
 * When a push fails no new push starts, those in flight finish, and then (with `do-rollback`, the
 * default) every node already changed gets intended -> actual pushed back, concurrently; without it
 * they stay committed and are stored as such. Either way the answer is 500 (502 when every failure
 * was a lost connection and nothing is left half-undone) with one error entry per node: `node-id`,
 * `configuration-status`, `rollback-status`. What a push changed is read back into the actual
 * configuration within the push's own exchange (device-io.ts), or after it when the southbound did not.
 */
import { mapBounded } from '../data/bounded-concurrency';
import { diffTrees } from '../data/diff';
import type { DataRoot } from '../data/tree';
import type { DataChangeFeed } from '../events/data-change-feed';
import type { Logger } from '../logger';
import { MountError, type MountedDevice } from '../mount';
import type { PluginScope } from '../plugins/generation';
import { RestconfError, type RestconfErrorEntry } from '../restconf/errors';
import type { SchemaContext } from '../yang/schema';
import { type NodeChange, publishNodeChanges } from './change-events';
import { changeEdits } from './device-edits';
import { pushConfiguration, readChanged, readConfiguration, southboundRollback } from './device-io';
import type { NodeStore, NodeUpdate } from './node-store';
import type { Transaction } from './transactions';

/** How many devices a commit pushes to (and rolls back, reads back, checks) at once, unless configured. */
export const DEFAULT_COMMIT_CONCURRENCY = 32;

/** The input flags of commit and checked-commit. */
export interface CommitOptions {
  /** Check first that each device still holds the actual configuration (checked-commit). */
  readonly checked: boolean;
  /** Commit the reachable nodes and report the unreachable ones, instead of refusing the whole commit. */
  readonly skipUnreachable: boolean;
  /** Roll back the nodes already changed when another fails (all or nothing); false leaves them committed. */
  readonly doRollback: boolean;
  /** Who commits, when authentication is on (named by the data-change events). */
  readonly user?: string;
}

/** What a commit that went through reports. */
export interface CommitOutcome {
  /** Nodes left out because their devices could not be reached (only with skipUnreachable). */
  readonly unreachable: readonly string[];
}

/** What a commit needs of the engine. */
export interface CommitParts {
  readonly store: NodeStore;
  readonly log: Logger;
  /** Devices in flight at once. */
  readonly concurrency: number;
  /** Where the stored changes are published as data-change events (absent: none are). */
  readonly changes?: DataChangeFeed;
  /** A node's device, connected: throws 502 before anything is sent when it is down. */
  connectedDevice(scope: PluginScope, nodeId: string): MountedDevice;
}

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

/** How each node fared in a push round. */
type PushState = { readonly kind: 'pushed'; readonly now?: DataRoot } | { readonly kind: 'failed'; readonly cause: unknown } | undefined;

/** Node names as a message or log line shows them: a few, then how many more (an entry per node must not name every other node). */
function someNodes(nodeIds: readonly string[], quote = ''): string {
  const shown = nodeIds.slice(0, 5).map((id) => `${quote}${id}${quote}`);
  return nodeIds.length > shown.length ? `${shown.join(', ')} and ${nodeIds.length - shown.length} more` : shown.join(', ');
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Whether a failure means the device could not be reached (502), not that it refused the change. */
export function isConnectionLoss(e: unknown): boolean {
  if (e instanceof MountError) return e.status === 502 && e.entries[0]?.tag === 'southbound_no_connection';
  return e instanceof RestconfError && e.status === 502;
}

/** The device's configuration after a push of `before` -> `after`; `after` when it cannot be read. */
export async function readBack(
  log: Logger,
  device: MountedDevice,
  scope: PluginScope,
  before: DataRoot,
  after: DataRoot,
): Promise<DataRoot> {
  try {
    return await readChanged(device, scope, before, after);
  } catch (e) {
    log.error(
      `node ${device.node.nodeId}: reading the configuration back after a write failed (${messageOf(e)}); keeping what was sent as actual`,
    );
    return after;
  }
}

/** `tree` (of schema `from`) as a tree of schema `to`. */
function inSchema(store: NodeStore, tree: DataRoot, from: SchemaContext, to: SchemaContext): DataRoot {
  return from === to ? tree : store.decode(store.encode(tree, from), to);
}

/** Commits `nodeIds` (see the top of this file). With a transaction its views are pushed; without, the stored intended configurations. */
export async function commitNodes(
  parts: CommitParts,
  scope: PluginScope,
  tx: Transaction | undefined,
  nodeIds: readonly string[],
  options: CommitOptions,
): Promise<CommitOutcome> {
  const { store } = parts;
  return store.locked(nodeIds, async () => {
    if (tx !== undefined) {
      const stale = nodeIds.filter((id) => {
        const v = tx.views.get(id);
        return v !== undefined && store.version(id) !== v.baseVersion;
      });
      if (stale.length > 0) {
        throw RestconfError.of(
          'in-use',
          `node(s) ${stale.join(', ')} changed since this transaction first read them (another transaction or write committed); nothing was committed`,
          { type: 'application' },
        );
      }
    }
    const items: CommitItem[] = [];
    const unreachable = new Map<string, unknown>();
    for (const nodeId of nodeIds) {
      let device: MountedDevice;
      try {
        device = parts.connectedDevice(scope, nodeId);
      } catch (e) {
        if (!isConnectionLoss(e)) throw e;
        unreachable.set(nodeId, e);
        continue;
      }
      const view = tx?.views.get(nodeId);
      const schema = device.schema;
      const actual = store.tree('operational', nodeId, schema);
      // a view taken while the device was down, or before it came back with other modules, is in another schema
      const intended = view === undefined ? store.tree('config', nodeId, schema) : inSchema(store, view.intended, view.schema, schema);
      const base = view === undefined ? actual : inSchema(store, view.baseActual, view.schema, schema);
      items.push({ nodeId, device, actual, intended, base, storeIntended: view?.written === true });
    }
    if (unreachable.size > 0 && !options.skipUnreachable) throw unreachableReport(nodeIds, unreachable);
    if (options.checked) await checkDevices(parts, scope, items);

    const states = await pushAll(parts, scope, items);
    const pushed = items.filter((_, i) => states[i]?.kind === 'pushed');
    const failed = items.some((_, i) => states[i]?.kind === 'failed');
    if (failed && options.doRollback) {
      const rollbackFailed = await rollback(parts, scope, pushed);
      throw failureReport(items, states, { rolledBack: true, rollbackFailed });
    }
    // what reached the devices is stored: everything on success, the nodes left committed otherwise
    const keep = failed ? items.filter((_, i) => states[i]?.kind === 'pushed') : items;
    const readBackOf = new Map(items.flatMap((item, i) => (states[i]?.kind === 'pushed' ? [[item, states[i].now] as const] : [])));
    await storeResults(parts, scope, keep, readBackOf, options.user);
    if (pushed.length > 0) parts.log.info(`committed ${someNodes(pushed.map((p) => p.nodeId))}`);
    if (unreachable.size > 0) parts.log.info(`commit skipped unreachable node(s) ${someNodes([...unreachable.keys()])}`);
    if (failed) throw failureReport(items, states, { rolledBack: false, rollbackFailed: new Set() });
    return { unreachable: [...unreachable.keys()] };
  });
}

/** 409 unless every device still holds the actual configuration its transaction started from. */
async function checkDevices(parts: CommitParts, scope: PluginScope, items: readonly CommitItem[]): Promise<void> {
  const drifted = await mapBounded(items, parts.concurrency, async (item) => {
    const now = await readConfiguration(item.device, scope);
    return diffTrees(item.base, now).length > 0;
  });
  const names = items.filter((_, i) => drifted[i] === true).map((item) => item.nodeId);
  if (names.length > 0) {
    throw RestconfError.of(
      'resource-denied',
      `the configuration of ${names.join(', ')} on the device differs from the actual configuration this transaction started from (changed outside this service?); nothing was committed`,
      { type: 'application' },
    );
  }
}

/**
 * Pushes the items that have changes, `concurrency` at a time, in input order; after the first failure
 * none starts (those in flight finish). Each item's state, in input order: undefined when nothing was sent.
 */
async function pushAll(parts: CommitParts, scope: PluginScope, items: readonly CommitItem[]): Promise<PushState[]> {
  let failed = false;
  const changing = items.filter((item) => changeEdits(item.actual, item.intended).length > 0);
  const outcomes = await mapBounded(
    changing,
    parts.concurrency,
    async (item): Promise<PushState> => {
      try {
        const { now } = await pushConfiguration(item.device, scope, item.actual, item.intended, { readBack: true });
        return now === undefined ? { kind: 'pushed' } : { kind: 'pushed', now };
      } catch (cause) {
        failed = true;
        return { kind: 'failed', cause };
      }
    },
    { stop: () => failed },
  );
  const byItem = new Map(changing.map((item, i) => [item, outcomes[i]]));
  return items.map((item) => byItem.get(item));
}

/** Pushes intended -> actual on each item, concurrently; the node-ids whose rollback failed. */
async function rollback(parts: CommitParts, scope: PluginScope, pushed: readonly CommitItem[]): Promise<Set<string>> {
  const failed = new Set<string>();
  await mapBounded(pushed, parts.concurrency, async (item) => {
    try {
      await pushConfiguration(item.device, scope, item.intended, item.actual);
    } catch (e) {
      failed.add(item.nodeId);
      parts.log.error(`node ${item.nodeId}: rollback failed: ${messageOf(e)}`, { nodeId: item.nodeId });
    }
  });
  return failed;
}

/**
 * Stores what the devices now hold (as their pushes read it back, else read now, concurrently) and the transaction's intended
 * configurations; if the store cannot be written the pushed devices are rolled back and the error thrown.
 */
async function storeResults(
  parts: CommitParts,
  scope: PluginScope,
  items: readonly CommitItem[],
  pushed: ReadonlyMap<CommitItem, DataRoot | undefined>,
  user: string | undefined,
): Promise<void> {
  const { store } = parts;
  const saving = items.filter((item) => pushed.has(item) || item.storeIntended);
  // in the commit's node order, whichever device answered first
  const changes = new Map<CommitItem, NodeChange>(saving.map((item) => [item, { nodeId: item.nodeId }]));
  const updates = await mapBounded(saving, parts.concurrency, async (item): Promise<NodeUpdate> => {
    const schema = item.device.schema;
    const now = pushed.has(item)
      ? (pushed.get(item) ?? (await readBack(parts.log, item.device, scope, item.actual, item.intended)))
      : undefined;
    changes.set(item, {
      nodeId: item.nodeId,
      ...(item.storeIntended ? { intended: { before: store.tree('config', item.nodeId, schema), after: item.intended } } : {}),
      ...(now !== undefined ? { actual: { before: item.actual, after: now } } : {}),
    });
    return {
      nodeId: item.nodeId,
      ...(item.storeIntended ? { intended: store.encode(item.intended, schema) } : {}),
      ...(now !== undefined ? { actual: store.encode(now, schema) } : {}),
    };
  });
  try {
    await store.save(updates.filter((u): u is NodeUpdate => u !== undefined));
  } catch (e) {
    parts.log.error(
      `commit of ${items.map((i) => i.nodeId).join(', ')}: storing the result failed (${messageOf(e)}); rolling the devices back`,
    );
    await rollback(parts, scope, [...pushed.keys()]);
    throw e;
  }
  await publishNodeChanges(parts.changes, parts.log, [...changes.values()], user);
}

/** 502 naming each unreachable node; the others were not sent either. */
function unreachableReport(nodeIds: readonly string[], unreachable: ReadonlyMap<string, unknown>): RestconfError {
  const down = someNodes([...unreachable.keys()]);
  const entries = nodeIds.map((nodeId): RestconfErrorEntry => {
    const cause = unreachable.get(nodeId);
    return {
      type: 'application',
      tag: cause === undefined ? 'operation-failed' : 'southbound_no_connection',
      message:
        cause === undefined
          ? `not sent because node(s) ${down} cannot be reached (skip-unreachable-nodes commits the others)`
          : messageOf(cause),
      info: { 'node-id': nodeId, 'configuration-status': cause === undefined ? 'n/a' : 'fail', 'rollback-status': 'n/a' },
    };
  });
  return new RestconfError(502, entries);
}

/**
 * The answer to a commit a node failed: one entry per node saying how it fared. A failing node's
 * `rollback-status` is its southbound's own report (device-io.ts): `complete`, `fail` or `unknown`.
 * A node pushed and then rolled back says `complete`/`fail`; one left committed (do-rollback false) `n/a`.
 */
function failureReport(
  items: readonly CommitItem[],
  states: readonly PushState[],
  rollback: { readonly rolledBack: boolean; readonly rollbackFailed: ReadonlySet<string> },
): RestconfError {
  const failures = items.flatMap((item, i) => {
    const state = states[i];
    return state?.kind === 'failed' ? [{ item, cause: state.cause, own: southboundRollback(state.cause) }] : [];
  });
  const failureOf = new Map(failures.map((f) => [f.item, f]));
  const failedNames = someNodes(
    failures.map((f) => f.item.nodeId),
    "'",
  );
  const because = `node${failures.length > 1 ? 's' : ''} ${failedNames} failed`;
  const allLost = failures.every((f) => isConnectionLoss(f.cause) && f.own?.status !== 'fail');
  const status = allLost && rollback.rollbackFailed.size === 0 ? 502 : 500;
  const entries = items.map((item, i): RestconfErrorEntry => {
    const state = states[i];
    const failure = failureOf.get(item);
    let configuration: string;
    let rollbackStatus: string;
    let message: string;
    let tag = 'operation-failed';
    if (failure !== undefined) {
      configuration = 'fail';
      rollbackStatus = failure.own?.status ?? 'complete';
      message = `${messageOf(failure.cause)}${failure.own ? `; rollback on the device: ${failure.own.detail}` : ''}`;
      if (status === 502) tag = 'southbound_no_connection';
    } else if (state?.kind === 'pushed' && rollback.rolledBack) {
      configuration = 'complete';
      rollbackStatus = rollback.rollbackFailed.has(item.nodeId) ? 'fail' : 'complete';
      message = `rolled back because ${because}`;
      if (rollbackStatus === 'fail') tag = 'rollback-failed';
    } else if (state?.kind === 'pushed') {
      configuration = 'complete';
      rollbackStatus = 'n/a';
      message = `committed and left so (do-rollback is false) although ${because}`;
    } else {
      configuration = 'n/a';
      rollbackStatus = 'n/a';
      message = `not sent because ${because}`;
    }
    return {
      type: 'application',
      tag,
      message,
      info: { 'node-id': item.nodeId, 'configuration-status': configuration, 'rollback-status': rollbackStatus },
    };
  });
  return new RestconfError(status, entries);
}

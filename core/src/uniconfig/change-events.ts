/**
 * The uniconfig layer's data-change events: once a node's configurations are stored (an immediate
 * write, or a commit of many nodes), what changed in its intended configuration is published with
 * datastore `uniconfig-intended` and what changed on the device (the actual configuration as read back
 * after the push) with `uniconfig-actual`, each as the difference of the stored trees before and after,
 * with topology `uniconfig`, the node's id and the user who asked (when authentication is on). Every
 * writer of a node's stored trees publishes here once the node store holds them: an immediate write
 * and a commit (engine.ts, commit.ts), sync-from-network (operations.ts), install-node's first read and
 * uninstall-node (uniconfig.ts). All are started in node order before any is awaited, so
 * the hub numbers them in that order; a replay log that cannot be written is logged, not thrown, since
 * the devices and the stores already hold the change.
 */
import { diffTrees } from '../data/diff';
import type { DataRoot } from '../data/tree';
import { type ChangeEdit, editsOfDiff } from '../events/data-change';
import type { DataChangeFeed } from '../events/data-change-feed';
import type { Logger } from '../logger';

/** The topology the events name. */
const TOPOLOGY = 'uniconfig';

/** One stored tree's change: before and after, or `removed` (the node is gone: one `delete` of its whole configuration, target `/`). */
export type TreeChange = { readonly before: DataRoot; readonly after: DataRoot } | 'removed';

/** What one node's save changed: either side may be absent (that side was not stored). */
export interface NodeChange {
  readonly nodeId: string;
  readonly intended?: TreeChange;
  readonly actual?: TreeChange;
}

function editsOf(change: TreeChange): ChangeEdit[] {
  return change === 'removed' ? [{ operation: 'delete', path: [] }] : editsOfDiff(diffTrees(change.before, change.after));
}

/**
 * Whether two changes have the same edits without diffing both: the same trees after, and the same (or
 * both empty) before. An install or a commit that the device took as sent stores one tree on both
 * sides, and diffing and encoding it twice was a fifth of an install's garbage.
 */
function sameEdits(a: TreeChange, b: TreeChange): boolean {
  if (a === 'removed' || b === 'removed') return a === b;
  return a.after === b.after && (a.before === b.before || (a.before.children.length === 0 && b.before.children.length === 0));
}

/** Publishes the changes of stored nodes; resolves once their events are durable (or their failure logged). */
export async function publishNodeChanges(
  feed: DataChangeFeed | undefined,
  log: Logger,
  changes: readonly NodeChange[],
  user?: string,
): Promise<void> {
  if (feed === undefined) return;
  const published: Promise<void>[] = [];
  for (const c of changes) {
    const node = { topologyId: TOPOLOGY, nodeId: c.nodeId, ...(user !== undefined ? { user } : {}) };
    const intended = c.intended === undefined ? undefined : editsOf(c.intended);
    if (intended !== undefined) published.push(feed.publish({ datastore: 'uniconfig-intended', ...node, edits: intended }));
    if (c.actual !== undefined) {
      const edits = intended !== undefined && sameEdits(c.intended!, c.actual) ? intended : editsOf(c.actual);
      published.push(feed.publish({ datastore: 'uniconfig-actual', ...node, edits }));
    }
  }
  try {
    await Promise.all(published);
  } catch (e) {
    log.error(`publishing uniconfig data-change events failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

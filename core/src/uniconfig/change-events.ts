/**
 * The uniconfig layer's data-change events: once a node's configurations are stored (an immediate
 * write, or a commit of many nodes), what changed in its intended configuration is published with
 * datastore `uniconfig-intended` and what changed on the device (the actual configuration as read back
 * after the push) with `uniconfig-actual`, each as the difference of the stored trees before and after,
 * with topology `uniconfig` and the node's id. All are started in node order before any is awaited, so
 * the hub numbers them in that order; a replay log that cannot be written is logged, not thrown, since
 * the devices and the stores already hold the change.
 */
import { diffTrees } from '../data/diff';
import type { DataRoot } from '../data/tree';
import { editsOfDiff } from '../events/data-change';
import type { DataChangeFeed } from '../events/data-change-feed';
import type { Logger } from '../logger';

/** The topology the events name. */
const TOPOLOGY = 'uniconfig';

/** What one node's save changed: either pair may be absent (that side was not stored). */
export interface NodeChange {
  readonly nodeId: string;
  readonly intended?: { readonly before: DataRoot; readonly after: DataRoot };
  readonly actual?: { readonly before: DataRoot; readonly after: DataRoot };
}

/** Publishes the changes of stored nodes; resolves once their events are durable (or their failure logged). */
export async function publishNodeChanges(feed: DataChangeFeed | undefined, log: Logger, changes: readonly NodeChange[]): Promise<void> {
  if (feed === undefined) return;
  const published: Promise<void>[] = [];
  for (const c of changes) {
    const node = { topologyId: TOPOLOGY, nodeId: c.nodeId };
    if (c.intended !== undefined)
      published.push(
        feed.publish({ datastore: 'uniconfig-intended', ...node, edits: editsOfDiff(diffTrees(c.intended.before, c.intended.after)) }),
      );
    if (c.actual !== undefined)
      published.push(
        feed.publish({ datastore: 'uniconfig-actual', ...node, edits: editsOfDiff(diffTrees(c.actual.before, c.actual.after)) }),
      );
  }
  try {
    await Promise.all(published);
  } catch (e) {
    log.error(`publishing uniconfig data-change events failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The Operational datastore: state the service itself writes (device connection status, loaded
 * plugins, ...), kept in memory only. Same contract as the Config datastore (immutable versions,
 * serialized all-or-nothing writers), without the journal: a change is visible as soon as it applies.
 */
import { applyEdits, type Edit } from '../data/edit';
import { emptyRoot, type DataRoot } from '../data/tree';
import type { SchemaContext } from '../yang/schema';
import type { Datastore, PreparedWrite } from './datastore';
import { WriteQueue } from './write-queue';

/** The in-memory Operational datastore. */
export class OperationalStore implements Datastore {
  readonly name = 'operational' as const;
  private root: DataRoot = emptyRoot();
  private readonly writers = new WriteQueue();

  constructor(private readonly ctx: SchemaContext) {}

  current(): DataRoot {
    return this.root;
  }

  apply(edits: readonly Edit[], check?: (next: DataRoot, previous: DataRoot) => void, prepared?: PreparedWrite): Promise<DataRoot> {
    return this.writers.run(() => {
      const previous = this.root;
      const tree = prepared?.tree;
      const next = tree !== undefined && tree.base === previous ? tree.next : applyEdits(previous, edits, this.ctx);
      check?.(next, previous);
      this.root = next;
      return next;
    });
  }

  /** Resolves once every write queued so far has settled. */
  idle(): Promise<void> {
    return this.writers.idle();
  }
}

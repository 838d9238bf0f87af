/**
 * The difference between two data trees: what was created, updated, deleted or reordered, each with
 * its instance path. Changes are reported at the highest node that changed as a whole (a created
 * container is one change, not one per leaf), and a change of attributes alone is an update. The walk
 * is diff-walk.ts's (lists matched by key, shared subtrees skipped, so a diff is linear in the size of
 * what is compared and diffing a stored version against its edit costs little more than the edit).
 */
import { type InstancePath, renderInstancePath } from '../yang/instance-path';
import type { SchemaNode } from '../yang/schema';
import { DiffWalk, type Loc, pathOf } from './diff-walk';
import type { DataNode, DataRoot, LeafListNode, LeafValue, ListNode } from './tree';

export type ChangeType = 'created' | 'updated' | 'deleted' | 'reordered';

/** One change. Nodes are given for whole nodes, values for leaves and leaf-list values. */
export interface Change {
  readonly type: ChangeType;
  /** The node's RFC 7951 instance path, under the diff's `base`. */
  readonly path: string;
  /** The same node as the instance path value, from the compared trees' top (without `base`). */
  readonly pathValue: InstancePath;
  readonly schema: SchemaNode;
  /** The node before (deleted, updated, reordered). */
  readonly oldNode?: DataNode;
  /** The node after (created, updated, reordered). */
  readonly newNode?: DataNode;
  /** For leaves and leaf-list values: the value before / after. */
  readonly oldValue?: LeafValue;
  readonly newValue?: LeafValue;
}

class Differ extends DiffWalk {
  readonly changes: Change[] = [];

  constructor(private readonly base: string) {
    super(true);
  }

  private push(type: ChangeType, loc: Loc, extra: Omit<Change, 'type' | 'path' | 'pathValue' | 'schema'>): void {
    const pathValue = pathOf(loc);
    this.changes.push({
      type,
      path: renderInstancePath(pathValue, { kind: 'json', base: this.base }),
      pathValue,
      schema: loc.segment.schema,
      ...extra,
    });
  }

  protected created(node: DataNode, at: Loc): void {
    this.push('created', at, { newNode: node });
  }

  protected deleted(node: DataNode, at: Loc): void {
    this.push('deleted', at, { oldNode: node });
  }

  protected updated(before: DataNode, after: DataNode, at: Loc): void {
    if (before.kind === 'leaf' && after.kind === 'leaf')
      this.push('updated', at, { oldNode: before, newNode: after, oldValue: before.value, newValue: after.value });
    else this.push('updated', at, { oldNode: before, newNode: after });
  }

  protected createdValue(list: LeafListNode, index: number, at: Loc): void {
    this.push('created', at, { newValue: list.values[index]! });
  }

  protected deletedValue(_list: LeafListNode, value: LeafValue, at: Loc): void {
    this.push('deleted', at, { oldValue: value });
  }

  protected override reordered(before: ListNode | LeafListNode, after: ListNode | LeafListNode, at: Loc): void {
    this.push('reordered', at, { oldNode: before, newNode: after });
  }

  /** Keyless (state) lists have no identity but position: entries are compared pairwise. */
  protected keyless(a: ListNode, b: ListNode, loc: Loc): void {
    const n = Math.max(a.entries.length, b.entries.length);
    for (let i = 0; i < n; i++) {
      const x = a.entries[i];
      const y = b.entries[i];
      if (x === undefined) this.push('created', loc, { newNode: y! });
      else if (y === undefined) this.push('deleted', loc, { oldNode: x });
      else this.children(x.children, y.children, loc, y);
    }
  }
}

/**
 * The changes that turn tree `before` into tree `after` (roots, or two nodes of the same schema;
 * `base` is then the instance path of their parent). Deleted and updated come in tree order of
 * `before`, created after the deletions at each level.
 */
export function diffTrees(before: DataRoot | DataNode, after: DataRoot | DataNode, base = ''): Change[] {
  const d = new Differ(base);
  const a = before.kind === 'root' ? before.children : [before];
  const b = after.kind === 'root' ? after.children : [after];
  d.children(a, b, undefined, undefined);
  return d.changes;
}

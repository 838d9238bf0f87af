/**
 * The difference between two data trees: what was created, updated, deleted or reordered, each with
 * its instance path. Changes are reported at the highest node that changed as a whole (a created
 * container is one change, not one per leaf). Lists are matched by key through their indexes, so a
 * diff is linear in the size of what is compared; subtrees shared by identity (copy-on-write edits)
 * are skipped without looking inside, so diffing a stored version against its edit costs little more
 * than the edit.
 */
import { type InstancePath, renderInstancePath } from '../yang/instance-path';
import type { SchemaNode } from '../yang/schema';
import { entryKey, listIndex } from './list';
import { entryKeyValues, instancePathOf, valueText, type PathSegment } from './path';
import type { Attributes, DataNode, DataRoot, LeafListNode, LeafValue, ListEntryNode, ListNode } from './tree';

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

function sameValue(a: LeafValue, b: LeafValue): boolean {
  return a === b || (typeof a === typeof b && valueText(a) === valueText(b));
}

function sameAttributes(a: Attributes | undefined, b: Attributes | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}

/**
 * Where the walk stands: a chain of path segments, turned into text only when a change is reported
 * (most nodes a diff visits are equal, and building their paths would dominate the cost).
 */
interface Loc {
  readonly parent: Loc | undefined;
  readonly segment: PathSegment;
}

function pathOf(loc: Loc): InstancePath {
  const segments: PathSegment[] = [];
  for (let l: Loc | undefined = loc; l; l = l.parent) segments.push(l.segment);
  return instancePathOf(segments.reverse());
}

class Differ {
  readonly changes: Change[] = [];

  constructor(private readonly base: string) {}

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

  children(a: readonly DataNode[], b: readonly DataNode[], parent: Loc | undefined): void {
    if (a === b) return;
    const matched = new Set<DataNode>();
    for (const n of a) {
      const m = b.find((x) => x.schema === n.schema);
      const loc: Loc = { parent, segment: { schema: n.schema } };
      if (m === undefined) this.push('deleted', loc, { oldNode: n });
      else {
        matched.add(m);
        this.node(n, m, loc);
      }
    }
    for (const n of b) if (!matched.has(n)) this.push('created', { parent, segment: { schema: n.schema } }, { newNode: n });
  }

  private node(a: DataNode, b: DataNode, loc: Loc): void {
    if (a === b) return;
    switch (a.kind) {
      case 'leaf': {
        const bv = (b as typeof a).value;
        if (!sameValue(a.value, bv) || !sameAttributes(a.attributes, b.attributes)) {
          this.push('updated', loc, { oldNode: a, newNode: b, oldValue: a.value, newValue: bv });
        }
        return;
      }
      case 'any':
        if (JSON.stringify(a.value) !== JSON.stringify((b as typeof a).value) || !sameAttributes(a.attributes, b.attributes)) {
          this.push('updated', loc, { oldNode: a, newNode: b });
        }
        return;
      case 'container':
        if (!sameAttributes(a.attributes, b.attributes)) this.push('updated', loc, { oldNode: a, newNode: b });
        this.children(a.children, (b as typeof a).children, loc);
        return;
      case 'list':
        this.list(a, b as ListNode, loc);
        return;
      case 'leaf-list':
        this.leafList(a, b as LeafListNode, loc);
        return;
      case 'entry':
        return; // entries are compared by `list`
    }
  }

  private entryLoc(e: ListEntryNode, list: Loc): Loc {
    return { parent: list.parent, segment: { schema: e.schema, keys: entryKeyValues(e) } };
  }

  private list(a: ListNode, b: ListNode, loc: Loc): void {
    if (!sameAttributes(a.attributes, b.attributes)) this.push('updated', loc, { oldNode: a, newNode: b });
    const ia = listIndex(a);
    const ib = listIndex(b);
    if (ia === undefined || ib === undefined) {
      this.keyless(a, b, loc);
      return;
    }
    for (const e of a.entries) {
      const other = ib.get(entryKey(e));
      if (other === undefined) this.push('deleted', this.entryLoc(e, loc), { oldNode: e });
      else if (other !== e) {
        const entryLoc = this.entryLoc(other, loc);
        if (!sameAttributes(e.attributes, other.attributes)) this.push('updated', entryLoc, { oldNode: e, newNode: other });
        this.children(e.children, other.children, entryLoc);
      }
    }
    for (const e of b.entries) {
      if (!ia.has(entryKey(e))) this.push('created', this.entryLoc(e, loc), { newNode: e });
    }
    if (a.schema.orderedBy === 'user') {
      const before = a.entries.map(entryKey).filter((k) => ib.has(k));
      const after = b.entries.map(entryKey).filter((k) => ia.has(k));
      if (before.some((k, i) => k !== after[i])) this.push('reordered', loc, { oldNode: a, newNode: b });
    }
  }

  /** Keyless (state) lists have no identity but position: entries are compared pairwise. */
  private keyless(a: ListNode, b: ListNode, loc: Loc): void {
    const n = Math.max(a.entries.length, b.entries.length);
    for (let i = 0; i < n; i++) {
      const x = a.entries[i];
      const y = b.entries[i];
      if (x === undefined) this.push('created', loc, { newNode: y! });
      else if (y === undefined) this.push('deleted', loc, { oldNode: x });
      else this.children(x.children, y.children, loc);
    }
  }

  private leafList(a: LeafListNode, b: LeafListNode, loc: Loc): void {
    if (!sameAttributes(a.attributes, b.attributes)) this.push('updated', loc, { oldNode: a, newNode: b });
    const before = new Set(a.values.map(valueText));
    const after = new Set(b.values.map(valueText));
    const valueLoc = (v: LeafValue): Loc => ({ parent: loc.parent, segment: { schema: a.schema, value: v } });
    for (const v of a.values) if (!after.has(valueText(v))) this.push('deleted', valueLoc(v), { oldValue: v });
    for (const v of b.values) if (!before.has(valueText(v))) this.push('created', valueLoc(v), { newValue: v });
    if (a.schema.orderedBy === 'user') {
      const x = a.values.map(valueText).filter((t) => after.has(t));
      const y = b.values.map(valueText).filter((t) => before.has(t));
      if (x.some((t, i) => t !== y[i])) this.push('reordered', loc, { oldNode: a, newNode: b });
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
  d.children(a, b, undefined);
  return d.changes;
}

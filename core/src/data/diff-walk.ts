/**
 * The one walk over two data trees that every diff builds on (diff.ts's change list, uniconfig's device
 * edits): children matched by schema node, list entries matched by key through the lists' indexes,
 * leaf-list values by their text, and subtrees shared by identity (copy-on-write edits) skipped without
 * looking inside, so a walk is linear in the size of what differs. What a difference becomes is the
 * subclass's: the walk calls `created`, `deleted`, `updated`, ... at the place it found it, and a subclass
 * may take a parent or a list whole instead of entry by entry (`takesParentWhole`, `takesListWhole`).
 *
 * A place is a chain of path segments, turned into text only when a subclass reports it (most nodes a
 * walk visits are equal, and building their paths would dominate the cost).
 */
import { entryKey, listIndex } from './list';
import type { InstancePath } from '../yang/instance-path';
import { entryKeyValues, instancePathOf, valueText, type PathSegment } from './path';
import type { Attributes, DataNode, LeafListNode, LeafValue, ListEntryNode, ListNode } from './tree';

/** Where the walk stands. */
export interface Loc {
  readonly parent: Loc | undefined;
  readonly segment: PathSegment;
}

/** The instance path value of a place, from the top of the compared trees. */
export function pathOf(loc: Loc): InstancePath {
  const segments: PathSegment[] = [];
  for (let l: Loc | undefined = loc; l; l = l.parent) segments.push(l.segment);
  return instancePathOf(segments.reverse());
}

export function sameValue(a: LeafValue, b: LeafValue): boolean {
  return a === b || (typeof a === typeof b && valueText(a) === valueText(b));
}

export function sameAttributes(a: Attributes | undefined, b: Attributes | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}

/** Whether the entries (or values) two ordered-by-user lists share are in a different order; false for keyless lists. */
export function orderChanged(a: ListNode | LeafListNode, b: ListNode | LeafListNode): boolean {
  if (a.schema.orderedBy !== 'user') return false;
  if (a.kind === 'leaf-list') {
    const bl = b as LeafListNode;
    const inA = new Set(a.values.map(valueText));
    const inB = new Set(bl.values.map(valueText));
    const x = a.values.map(valueText).filter((t) => inB.has(t));
    const y = bl.values.map(valueText).filter((t) => inA.has(t));
    return x.some((t, i) => t !== y[i]);
  }
  const ia = listIndex(a);
  const ib = listIndex(b as ListNode);
  if (ia === undefined || ib === undefined) return false;
  const x = a.entries.map(entryKey).filter((k) => ib.has(k));
  const y = (b as ListNode).entries.map(entryKey).filter((k) => ia.has(k));
  return x.some((k, i) => k !== y[i]);
}

export abstract class DiffWalk {
  /** `attributes`: whether a change of RFC 7952 attributes alone is a difference (it is `updated`). */
  constructor(private readonly attributes: boolean) {}

  /** A node present only after. */
  protected abstract created(node: DataNode, at: Loc): void;
  /** A node present only before. */
  protected abstract deleted(node: DataNode, at: Loc): void;
  /** A leaf or anydata whose value changed, or (with attributes) any node whose attributes changed. */
  protected abstract updated(before: DataNode, after: DataNode, at: Loc): void;
  /** A value at `index` of the leaf-list after that was not there before. */
  protected abstract createdValue(list: LeafListNode, index: number, at: Loc): void;
  /** A value of the leaf-list before that is not there after. */
  protected abstract deletedValue(list: LeafListNode, value: LeafValue, at: Loc): void;
  /** A keyless list (identity is position) that is not the same object on both sides. */
  protected abstract keyless(before: ListNode, after: ListNode, at: Loc): void;

  /** An ordered-by-user list or leaf-list whose common entries changed order (entries were walked already). */
  protected reordered(_before: ListNode | LeafListNode, _after: LeafListNode | ListNode, _at: Loc): void {}

  /**
   * Called with the matched children of a parent before they are walked (`owner` is the parent after,
   * undefined at the top); true when the subclass has taken the parent whole, so its children are not walked.
   */
  protected takesParentWhole(_matched: ReadonlyMap<DataNode, DataNode>, _parent: Loc | undefined, _owner: DataNode | undefined): boolean {
    return false;
  }

  /** Called for a keyed list before its entries are walked; true when the subclass has taken it whole. */
  protected takesListWhole(_before: ListNode, _after: ListNode, _at: Loc): boolean {
    return false;
  }

  /** Walks two sibling lists of nodes: matched by schema node, deleted ones in order of `a`, created after. */
  children(a: readonly DataNode[], b: readonly DataNode[], parent: Loc | undefined, owner: DataNode | undefined): void {
    if (a === b) return;
    const matched = new Map<DataNode, DataNode>();
    for (const n of a) {
      const m = b.find((x) => x.schema === n.schema);
      if (m !== undefined) matched.set(n, m);
    }
    if (this.takesParentWhole(matched, parent, owner)) return;
    for (const n of a) {
      const m = matched.get(n);
      const loc: Loc = { parent, segment: { schema: n.schema } };
      if (m === undefined) this.deleted(n, loc);
      else this.node(n, m, loc);
    }
    const seen = new Set(matched.values());
    for (const n of b) if (!seen.has(n)) this.created(n, { parent, segment: { schema: n.schema } });
  }

  protected entryLoc(e: ListEntryNode, list: Loc): Loc {
    return { parent: list.parent, segment: { schema: e.schema, keys: entryKeyValues(e) } };
  }

  protected valueLoc(list: LeafListNode, v: LeafValue, loc: Loc): Loc {
    return { parent: loc.parent, segment: { schema: list.schema, value: v } };
  }

  private changedAttributes(a: DataNode, b: DataNode): boolean {
    return this.attributes && !sameAttributes(a.attributes, b.attributes);
  }

  private node(a: DataNode, b: DataNode, loc: Loc): void {
    if (a === b) return;
    switch (a.kind) {
      case 'leaf':
        if (!sameValue(a.value, (b as typeof a).value) || this.changedAttributes(a, b)) this.updated(a, b, loc);
        return;
      case 'any':
        if (JSON.stringify(a.value) !== JSON.stringify((b as typeof a).value) || this.changedAttributes(a, b)) this.updated(a, b, loc);
        return;
      case 'container':
        if (this.changedAttributes(a, b)) this.updated(a, b, loc);
        this.children(a.children, (b as typeof a).children, loc, b);
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

  private list(a: ListNode, b: ListNode, loc: Loc): void {
    if (this.changedAttributes(a, b)) this.updated(a, b, loc);
    const ia = listIndex(a);
    const ib = listIndex(b);
    if (ia === undefined || ib === undefined) {
      this.keyless(a, b, loc);
      return;
    }
    if (this.takesListWhole(a, b, loc)) return;
    for (const e of a.entries) {
      const other = ib.get(entryKey(e));
      if (other === undefined) this.deleted(e, this.entryLoc(e, loc));
      else if (other !== e) {
        const entryLoc = this.entryLoc(other, loc);
        if (this.changedAttributes(e, other)) this.updated(e, other, entryLoc);
        this.children(e.children, other.children, entryLoc, other);
      }
    }
    for (const e of b.entries) if (!ia.has(entryKey(e))) this.created(e, this.entryLoc(e, loc));
    if (orderChanged(a, b)) this.reordered(a, b, loc);
  }

  private leafList(a: LeafListNode, b: LeafListNode, loc: Loc): void {
    if (this.changedAttributes(a, b)) this.updated(a, b, loc);
    const before = new Set(a.values.map(valueText));
    const after = new Set(b.values.map(valueText));
    for (const v of a.values) if (!after.has(valueText(v))) this.deletedValue(a, v, this.valueLoc(a, v, loc));
    b.values.forEach((v, i) => {
      if (!before.has(valueText(v))) this.createdValue(b, i, this.valueLoc(b, v, loc));
    });
    if (orderChanged(a, b)) this.reordered(a, b, loc);
  }
}

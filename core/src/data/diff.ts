/**
 * The difference between two data trees: what was created, updated, deleted or reordered, each with
 * its instance path. Changes are reported at the highest node that changed as a whole (a created
 * container is one change, not one per leaf). Lists are matched by key through their indexes, so a
 * diff is linear in the size of what is compared; subtrees shared by identity (copy-on-write edits)
 * are skipped without looking inside, so diffing a stored version against its edit costs little more
 * than the edit.
 */
import type { SchemaNode } from '../yang/schema';
import { entryKey, listIndex } from './list';
import { entryKeyValues, instancePath, quotePredicate, valueText } from './path';
import type { Attributes, DataNode, DataRoot, LeafListNode, LeafValue, ListEntryNode, ListNode } from './tree';

export type ChangeType = 'created' | 'updated' | 'deleted' | 'reordered';

/** One change. Nodes are given for whole nodes, values for leaves and leaf-list values. */
export interface Change {
  readonly type: ChangeType;
  readonly path: string;
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

class Differ {
  readonly changes: Change[] = [];

  children(a: readonly DataNode[], b: readonly DataNode[], base: string, module: string | undefined): void {
    if (a === b) return;
    const after = new Map<SchemaNode, DataNode>();
    for (const n of b) after.set(n.schema, n);
    for (const n of a) {
      const m = after.get(n.schema);
      if (m === undefined) this.whole('deleted', n, base, module);
      else {
        after.delete(n.schema);
        this.node(n, m, base, module);
      }
    }
    for (const n of after.values()) this.whole('created', n, base, module);
  }

  private whole(type: 'created' | 'deleted', node: DataNode, base: string, module: string | undefined): void {
    const path = instancePath([{ schema: node.schema }], base, module);
    if (type === 'created') this.changes.push({ type, path, schema: node.schema, newNode: node });
    else this.changes.push({ type, path, schema: node.schema, oldNode: node });
  }

  private node(a: DataNode, b: DataNode, base: string, module: string | undefined): void {
    if (a === b) return;
    const path = instancePath([{ schema: a.schema }], base, module);
    const own = a.schema.module.name;
    switch (a.kind) {
      case 'leaf': {
        const bv = (b as typeof a).value;
        if (!sameValue(a.value, bv) || !sameAttributes(a.attributes, b.attributes)) {
          this.changes.push({ type: 'updated', path, schema: a.schema, oldNode: a, newNode: b, oldValue: a.value, newValue: bv });
        }
        return;
      }
      case 'any':
        if (JSON.stringify(a.value) !== JSON.stringify((b as typeof a).value) || !sameAttributes(a.attributes, b.attributes)) {
          this.changes.push({ type: 'updated', path, schema: a.schema, oldNode: a, newNode: b });
        }
        return;
      case 'container':
        if (!sameAttributes(a.attributes, b.attributes)) this.changes.push({ type: 'updated', path, schema: a.schema, oldNode: a, newNode: b });
        this.children(a.children, (b as typeof a).children, path, own);
        return;
      case 'list':
        this.list(a, b as ListNode, base, module, path);
        return;
      case 'leaf-list':
        this.leafList(a, b as LeafListNode, path);
        return;
      case 'entry':
        return; // entries are compared by `list`
    }
  }

  private entryPath(e: ListEntryNode, base: string, module: string | undefined): string {
    return instancePath([{ schema: e.schema, keys: entryKeyValues(e) }], base, module);
  }

  private entry(a: ListEntryNode, b: ListEntryNode, base: string, module: string | undefined): void {
    if (a === b) return;
    const path = this.entryPath(b, base, module);
    if (!sameAttributes(a.attributes, b.attributes)) this.changes.push({ type: 'updated', path, schema: a.schema, oldNode: a, newNode: b });
    this.children(a.children, b.children, path, a.schema.module.name);
  }

  private list(a: ListNode, b: ListNode, base: string, module: string | undefined, path: string): void {
    if (!sameAttributes(a.attributes, b.attributes)) this.changes.push({ type: 'updated', path, schema: a.schema, oldNode: a, newNode: b });
    const ia = listIndex(a);
    const ib = listIndex(b);
    if (ia === undefined || ib === undefined) {
      this.keyless(a, b, base, module);
      return;
    }
    for (const e of a.entries) {
      const other = ib.get(entryKey(e));
      if (other === undefined) this.changes.push({ type: 'deleted', path: this.entryPath(e, base, module), schema: e.schema, oldNode: e });
      else this.entry(e, other, base, module);
    }
    for (const e of b.entries) {
      if (!ia.has(entryKey(e))) this.changes.push({ type: 'created', path: this.entryPath(e, base, module), schema: e.schema, newNode: e });
    }
    if (a.schema.orderedBy === 'user') {
      const before = a.entries.map(entryKey).filter((k) => ib.has(k));
      const after = b.entries.map(entryKey).filter((k) => ia.has(k));
      if (before.some((k, i) => k !== after[i])) this.changes.push({ type: 'reordered', path, schema: a.schema, oldNode: a, newNode: b });
    }
  }

  /** Keyless (state) lists have no identity but position: entries are compared pairwise. */
  private keyless(a: ListNode, b: ListNode, base: string, module: string | undefined): void {
    const n = Math.max(a.entries.length, b.entries.length);
    for (let i = 0; i < n; i++) {
      const x = a.entries[i];
      const y = b.entries[i];
      const path = instancePath([{ schema: a.schema }], base, module);
      if (x === undefined) this.changes.push({ type: 'created', path, schema: a.schema, newNode: y! });
      else if (y === undefined) this.changes.push({ type: 'deleted', path, schema: a.schema, oldNode: x });
      else this.children(x.children, y.children, path, a.schema.module.name);
    }
  }

  private leafList(a: LeafListNode, b: LeafListNode, path: string): void {
    if (!sameAttributes(a.attributes, b.attributes)) this.changes.push({ type: 'updated', path, schema: a.schema, oldNode: a, newNode: b });
    const before = new Set(a.values.map(valueText));
    const after = new Set(b.values.map(valueText));
    const valuePath = (v: LeafValue) => `${path}[.=${quotePredicate(valueText(v))}]`;
    for (const v of a.values) if (!after.has(valueText(v))) this.changes.push({ type: 'deleted', path: valuePath(v), schema: a.schema, oldValue: v });
    for (const v of b.values) if (!before.has(valueText(v))) this.changes.push({ type: 'created', path: valuePath(v), schema: a.schema, newValue: v });
    if (a.schema.orderedBy === 'user') {
      const x = a.values.map(valueText).filter((t) => after.has(t));
      const y = b.values.map(valueText).filter((t) => before.has(t));
      if (x.some((t, i) => t !== y[i])) this.changes.push({ type: 'reordered', path, schema: a.schema, oldNode: a, newNode: b });
    }
  }
}

/**
 * The changes that turn tree `before` into tree `after` (roots, or two nodes of the same schema;
 * `base` is then the instance path of their parent). Deleted and updated come in tree order of
 * `before`, created after the deletions at each level.
 */
export function diffTrees(before: DataRoot | DataNode, after: DataRoot | DataNode, base = ''): Change[] {
  const d = new Differ();
  const a = before.kind === 'root' ? before.children : [before];
  const b = after.kind === 'root' ? after.children : [after];
  d.children(a, b, base, undefined);
  return d.changes;
}

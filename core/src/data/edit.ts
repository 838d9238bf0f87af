/**
 * Edits of a stored tree: merge, replace, create, delete and remove (RFC 6241 §7.2 / RFC 8040
 * semantics) at a target named by schema nodes and keys, with insert/point for `ordered-by user` lists
 * and leaf-lists.
 *
 * Writing a node of one case of a choice deletes the nodes of the choice's other cases, in the same edit
 * (RFC 7950 §7.9.2), so switching cases is one write. Only what was stored goes: an edit's own value
 * holding two cases of one choice is kept as given, for validation to refuse.
 *
 * Copy-on-write: an edit returns a new root; the nodes on the path from the root to the change are
 * copied, everything else is shared with the input tree, and no node of the input tree (nor of the
 * edit's value) is ever mutated. So a stored version stays valid for readers while a new one is built,
 * and `diff` can skip shared subtrees by identity.
 */
import { enclosingCases, type CaseSchema, type ListSchema, type SchemaContext, type SchemaNode } from '../yang/schema';
import { childTable, orderOf, topTable, type ChildTable } from './children';
import { DataError, fault } from './errors';
import {
  copyLeafList,
  copyList,
  entryKey,
  findEntry,
  listIndex,
  listSize,
  keyString,
  putEntry,
  putValue,
  removeEntry,
  removeValue,
  type InsertPosition,
} from './list';
import { instancePath, type PathSegment } from './path';
import type { Attributes, DataNode, DataRoot, LeafNode, LeafValue, ListEntryNode, ListNode } from './tree';

/** One step of an edit target: a schema node, with keys to name one list entry or a value to name one leaf-list value. */
export interface PathStep extends PathSegment {
  readonly schema: SchemaNode;
  readonly keys?: readonly LeafValue[];
  readonly value?: LeafValue;
}

export type EditOperation = 'merge' | 'replace' | 'create' | 'delete' | 'remove';

/**
 * One edit. `value` is the new content of the target: a DataRoot for the empty target (the whole
 * tree); a list entry (or a list holding exactly that entry) for a target naming an entry; a
 * leaf-list holding the one value for a target naming a value; otherwise the node of the target's
 * schema (a container, a whole list, a leaf, a whole leaf-list, anydata). delete/remove take none.
 */
export interface Edit {
  readonly operation: EditOperation;
  readonly target: readonly PathStep[];
  readonly value?: DataNode | DataRoot;
  /** Where a new (or moved) entry or value goes in an `ordered-by user` list or leaf-list. */
  readonly insert?: InsertPosition;
}

function mergeAttributes(a: Attributes | undefined, b: Attributes | undefined): Attributes | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { ...a, ...b };
}

function withAttributes<T extends DataNode>(node: T, attributes: Attributes | undefined): T {
  if (attributes === node.attributes) return node;
  const copy = { ...node };
  if (attributes === undefined) delete copy.attributes;
  else copy.attributes = attributes;
  return copy;
}

/** Puts `node` among `children` (a private array) at its canonical place, or over the node of the same schema. */
function placeChild(children: DataNode[], node: DataNode, table: ChildTable): void {
  const order = orderOf(table, node.schema);
  let i = 0;
  while (i < children.length && orderOf(table, children[i]!.schema) <= order) {
    if (children[i]!.schema === node.schema) {
      children[i] = node;
      return;
    }
    i++;
  }
  children.splice(i, 0, node);
}

/** Whether a data node belongs to a case (most do not: one look at the parent tells). */
function inChoice(schema: SchemaNode): boolean {
  const parent = schema.parent;
  return parent !== undefined && (parent.kind === 'case' || parent.kind === 'choice');
}

/**
 * Removes from `children` (a private array) the nodes that a node of `schema` excludes: those of
 * the other cases of each choice enclosing it, nested choices included. Nodes whose schema is in `keep`
 * stay (they come from the same edit value).
 */
function dropOtherCases(children: DataNode[], schema: SchemaNode, keep?: ReadonlySet<SchemaNode>): void {
  if (!inChoice(schema)) return;
  const cases = enclosingCases(schema);
  for (let i = children.length - 1; i >= 0; i--) {
    const other = children[i]!.schema;
    if (other !== schema && !keep?.has(other) && inOtherCase(other, cases)) children.splice(i, 1);
  }
}

/** Whether `node` sits in a case other than `cases` hold for one of their choices. */
function inOtherCase(node: SchemaNode, cases: readonly CaseSchema[]): boolean {
  for (const c of enclosingCases(node)) {
    const mine = cases.find((k) => k.parent === c.parent);
    if (mine !== undefined && mine !== c) return true;
  }
  return false;
}

/**
 * RFC 6241 merge of `b` into `a` (same schema): a new node; neither input is changed. Nodes of
 * different cases of a choice are all kept: this merges what reads gather from several sources.
 */
export function mergeNodes(a: DataNode, b: DataNode): DataNode {
  return merge(a, b, false);
}

/** Merges sibling lists: a new array; nodes of `b` go in at their canonical places (all cases kept, as mergeNodes). */
export function mergeChildren(a: readonly DataNode[], b: readonly DataNode[], table: ChildTable): DataNode[] {
  return mergeSiblings(a, b, table, false);
}

/** The merge of `b` into `a`. `replaceCases`: nodes of `b` delete those of `a` in other cases of their choices, as an edit does. */
function merge(a: DataNode, b: DataNode, replaceCases: boolean): DataNode {
  const attributes = mergeAttributes(a.attributes, b.attributes);
  switch (b.kind) {
    case 'leaf':
    case 'any':
      return withAttributes(b, attributes);
    case 'container':
    case 'entry': {
      const inner = a as typeof b;
      const children = mergeSiblings(inner.children, b.children, childTable(b.schema), replaceCases);
      const out = { ...inner, children } as typeof b;
      if (attributes !== undefined) out.attributes = attributes;
      return out;
    }
    case 'list': {
      const list = copyList(a as ListNode);
      if (attributes !== undefined) list.attributes = attributes;
      for (const e of b.entries) {
        const existing = listIndex(list)?.get(entryKey(e));
        putEntry(list, existing === undefined ? e : (merge(existing, e, replaceCases) as ListEntryNode));
      }
      return list;
    }
    case 'leaf-list': {
      const ll = copyLeafList(a as typeof b);
      if (attributes !== undefined) ll.attributes = attributes;
      for (let i = 0; i < b.values.length; i++) putValue(ll, b.values[i]!, b.valueAttributes?.[i]);
      return ll;
    }
  }
}

function mergeSiblings(a: readonly DataNode[], b: readonly DataNode[], table: ChildTable, replaceCases: boolean): DataNode[] {
  const out = a.slice();
  let given: Set<SchemaNode> | undefined;
  for (const node of b) {
    const existing = out.find((c) => c.schema === node.schema);
    placeChild(out, existing === undefined ? node : merge(existing, node, replaceCases), table);
    if (replaceCases && inChoice(node.schema)) dropOtherCases(out, node.schema, (given ??= new Set(b.map((n) => n.schema))));
  }
  return out;
}

class Editor {
  constructor(
    private readonly edit: Edit,
    private readonly ctx: SchemaContext,
  ) {}

  private path(depth: number): string {
    return instancePath(this.edit.target.slice(0, depth + 1));
  }

  run(root: DataRoot): DataRoot {
    const { operation, value } = this.edit;
    const table = topTable(this.ctx);
    if (this.edit.target.length === 0) {
      const given = value?.kind === 'root' ? value.children : value !== undefined ? [value as DataNode] : [];
      switch (operation) {
        case 'merge':
          return { kind: 'root', children: mergeSiblings(root.children, given, table, true) };
        case 'replace':
          return { kind: 'root', children: mergeChildren([], given, table) };
        case 'create':
          if (root.children.length > 0) throw new DataError(fault('data-exists', '/', 'the datastore already holds data'));
          return { kind: 'root', children: mergeChildren([], given, table) };
        case 'delete':
          if (root.children.length === 0) throw new DataError(fault('data-missing', '/', 'the datastore holds no data'));
          return { kind: 'root', children: [] };
        case 'remove':
          return { kind: 'root', children: [] };
      }
    }
    const children = this.children(root.children, table, 0);
    return children === undefined ? root : { kind: 'root', children };
  }

  /** The edited copy of a sibling array at depth `i`, or undefined when nothing changes. */
  private children(children: readonly DataNode[], table: ChildTable, i: number): DataNode[] | undefined {
    const step = this.edit.target[i]!;
    const at = children.findIndex((c) => c.schema === step.schema);
    const existing = at >= 0 ? children[at] : undefined;
    const last = i === this.edit.target.length - 1;
    let replacement: DataNode | undefined | null; // null: remove the node; undefined: no change
    if (step.schema.kind === 'list' && step.keys !== undefined) replacement = this.inList(existing as ListNode | undefined, step, i, last);
    else if (last && step.schema.kind === 'leaf-list' && step.value !== undefined) replacement = this.inLeafList(existing, step, i);
    else if (last) replacement = this.atNode(existing, i);
    else replacement = this.descend(existing, step, i);
    if (replacement === undefined) return undefined;
    const out = children.slice();
    if (replacement === null) {
      out.splice(at, 1);
    } else {
      placeChild(out, replacement, table);
      dropOtherCases(out, replacement.schema);
    }
    return out;
  }

  /** Descends through a container (created when missing, unless deleting). */
  private descend(existing: DataNode | undefined, step: PathStep, i: number): DataNode | undefined {
    if (
      step.schema.kind !== 'container' &&
      step.schema.kind !== 'input' &&
      step.schema.kind !== 'output' &&
      step.schema.kind !== 'notification'
    ) {
      throw new DataError(fault('invalid-value', this.path(i), `cannot descend into ${step.schema.kind} '${step.schema.name}'`));
    }
    if (existing === undefined && this.absent(i)) return undefined;
    const container = (existing ?? { kind: 'container', schema: step.schema, children: [] }) as Extract<DataNode, { kind: 'container' }>;
    const children = this.children(container.children, childTable(step.schema), i + 1);
    return children === undefined ? undefined : { ...container, children };
  }

  /** For delete/remove: what a missing node on the way means (undefined: nothing to do). */
  private absent(i: number): boolean {
    if (this.edit.operation === 'delete') throw new DataError(fault('data-missing', this.path(i), 'no data at the target'));
    return this.edit.operation === 'remove';
  }

  /** The edit at or below one entry of a list; returns the list's new node (null when it empties). */
  private inList(list: ListNode | undefined, step: PathStep, i: number, last: boolean): ListNode | null | undefined {
    const schema = step.schema as ListSchema;
    const keys = step.keys!;
    if (keys.length !== schema.keys.length) {
      throw new DataError(
        fault('missing-attribute', this.path(i), `list '${schema.name}' needs ${schema.keys.length} key value(s), ${keys.length} given`),
      );
    }
    const entry = list === undefined ? undefined : findEntry(list, keys);
    if (entry === undefined && (this.edit.operation === 'delete' || this.edit.operation === 'remove')) {
      this.absent(i);
      return undefined;
    }
    let replacement: DataNode | null | undefined;
    if (last) {
      replacement = this.atNode(entry, i);
    } else {
      const current = entry ?? this.newEntry(schema, keys);
      const children = this.children(current.children, childTable(schema), i + 1);
      replacement = children === undefined ? undefined : { ...current, children };
    }
    if (replacement === undefined) return undefined;
    const copy: ListNode = list === undefined ? { kind: 'list', schema, entries: [] } : copyList(list);
    if (replacement === null) {
      removeEntry(copy, entry!);
      return listSize(copy) === 0 && copy.attributes === undefined ? null : copy;
    }
    const e = replacement as ListEntryNode;
    if (keyString(keys) !== entryKey(e)) {
      throw new DataError(fault('invalid-value', this.path(i), 'the key values in the data differ from those of the target'));
    }
    putEntry(copy, e, last ? this.edit.insert : undefined, this.path(i));
    return copy;
  }

  private newEntry(schema: ListSchema, keys: readonly LeafValue[]): ListEntryNode {
    const children: DataNode[] = schema.keys.map((k, n) => ({ kind: 'leaf', schema: k, value: keys[n]! }) satisfies LeafNode);
    return { kind: 'entry', schema, children };
  }

  /** The edit of one leaf-list value; returns the leaf-list's new node (null when it empties). */
  private inLeafList(existing: DataNode | undefined, step: PathStep, i: number): DataNode | null | undefined {
    const ll = existing?.kind === 'leaf-list' ? existing : undefined;
    const present = ll?.values.some((v) => keyString([v]) === keyString([step.value!]));
    const op = this.edit.operation;
    if (!present && (op === 'delete' || op === 'remove')) {
      this.absent(i);
      return undefined;
    }
    if (present && op === 'create') throw new DataError(fault('data-exists', this.path(i), 'the value already exists'));
    const copy =
      ll !== undefined
        ? copyLeafList(ll)
        : { kind: 'leaf-list' as const, schema: step.schema as Extract<DataNode, { kind: 'leaf-list' }>['schema'], values: [] };
    if (op === 'delete' || op === 'remove') {
      removeValue(copy, step.value!);
      return copy.values.length === 0 && copy.attributes === undefined ? null : copy;
    }
    const given = this.edit.value;
    let attributes: Attributes | undefined;
    if (given?.kind === 'leaf-list') {
      if (given.values.length !== 1 || keyString([given.values[0]!]) !== keyString([step.value!])) {
        throw new DataError(fault('invalid-value', this.path(i), 'the value in the data differs from that of the target'));
      }
      attributes = given.valueAttributes?.[0];
    }
    putValue(copy, step.value!, attributes, this.edit.insert, this.path(i));
    return copy;
  }

  /** The operation on the node at the target (a whole node or one list entry). null: remove it. */
  private atNode(existing: DataNode | undefined, i: number): DataNode | null | undefined {
    const step = this.edit.target[i]!;
    const op = this.edit.operation;
    if (op === 'delete' || op === 'remove') {
      if (existing === undefined) this.absent(i);
      return existing === undefined ? undefined : null;
    }
    let value = this.edit.value;
    if (value === undefined || value.kind === 'root') {
      throw new DataError(fault('missing-element', this.path(i), `the ${op} operation needs data for the target`));
    }
    if (value.kind === 'list' && step.keys !== undefined) {
      if (value.entries.length !== 1) throw new DataError(fault('invalid-value', this.path(i), 'exactly one list entry is expected'));
      value = value.entries[0]!;
    }
    if (value.schema !== step.schema) {
      throw new DataError(
        fault('invalid-value', this.path(i), `the data names '${value.schema.name}', not the target '${step.schema.name}'`),
      );
    }
    switch (op) {
      case 'create':
        if (existing !== undefined) throw new DataError(fault('data-exists', this.path(i), 'the data already exists'));
        return value;
      case 'replace':
        return value;
      default:
        return existing === undefined ? value : merge(existing, value, true);
    }
  }
}

/**
 * Applies one edit to a tree and returns the new tree (the input is not changed; unchanged subtrees
 * are shared). Throws DataError: `data-exists` (create of present data), `data-missing` (delete of
 * absent data), `invalid-value` (data not matching the target, keys differing), `bad-attribute`
 * (insert point missing).
 */
export function applyEdit(root: DataRoot, edit: Edit, ctx: SchemaContext): DataRoot {
  return new Editor(edit, ctx).run(root);
}

/** Applies edits in order, all or nothing: the first failure throws and no partial tree escapes. */
export function applyEdits(root: DataRoot, edits: readonly Edit[], ctx: SchemaContext): DataRoot {
  let current = root;
  for (const e of edits) current = applyEdit(current, e, ctx);
  return current;
}
